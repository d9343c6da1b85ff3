#include "gputwin/sim/sweep.hpp"

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "gputwin/core/random.hpp"
#include "gputwin/core/yaml_input.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/maintenance.hpp"
#include "gputwin/sim/queue_policy.hpp"
#include "gputwin/sim/replay_engine.hpp"
#include "gputwin/sim/simulated_cluster.hpp"

namespace gputwin {
namespace {

std::string beside(const std::string& file, const std::string& relative) {
  const std::filesystem::path path(relative);
  if (path.is_absolute()) return path.lexically_normal().string();
  // A file named without a directory ("sweep.yaml") sits in the working directory.
  const std::filesystem::path directory = std::filesystem::path(file).parent_path();
  return (std::filesystem::absolute(directory.empty() ? "." : directory) / path).lexically_normal().string();
}

std::string unique_name(const YamlField& field, std::set<std::string>& names) {
  const std::string name = field.text();
  if (name.empty()) field.fail("a name must not be empty");
  if (!names.insert(name).second) field.fail("the name '" + name + "' is used twice");
  return name;
}

SweepDesign read_design(const YamlField& f, const std::string& file, std::set<std::string>& names) {
  f.expect_keys({"name", "spec", "nodes", "gpus_per_node"});
  SweepDesign design;
  design.name = unique_name(f.child("name"), names);
  if (f.has("spec") == f.has("nodes")) f.fail("give exactly one of 'spec' (a cluster spec) or 'nodes'");
  if (auto spec = f.optional_child("spec")) {
    design.spec_path = beside(file, spec->text());
    if (!std::filesystem::is_regular_file(design.spec_path)) spec->fail("no such file: " + design.spec_path);
  } else {
    design.nodes = static_cast<int>(f.child("nodes").positive_integer());
    if (auto per_node = f.optional_child("gpus_per_node"))
      design.gpus_per_node = static_cast<int>(per_node->positive_integer());
  }
  return design;
}

TraceVariant read_variant(const YamlField& f, std::set<std::string>& names) {
  f.expect_keys({"name", "sample", "time_scale"});
  TraceVariant variant;
  variant.name = unique_name(f.child("name"), names);
  if (auto sample = f.optional_child("sample")) {
    variant.sample = sample->positive_number();
    if (variant.sample > 1)
      sample->fail("a sample is a fraction of the jobs, at most 1, got '" + sample->text() + "'");
  }
  if (auto scale = f.optional_child("time_scale")) variant.time_scale = scale->positive_number();
  return variant;
}

// The sweep's own factor, or the data default: a sweep never plans with true durations unless told to (1).
RunTimeEstimate read_run_time_estimate(const YamlField& root) {
  std::optional<double> factor;
  if (auto field = root.optional_child("runtime_estimate_factor")) factor = field->positive_number();
  auto estimate = run_time_estimate_or_default(factor);
  if (!estimate.ok()) throw InputFailure(estimate.errors().front());
  return std::move(estimate).value();
}

// The failure setup's messages name `simulate replay`'s options; a sweep file names its keys.
std::string with_sweep_keys(std::string message) {
  static const std::pair<std::string_view, std::string_view> kKeys[] = {
      {"--node-mtbf", "node_mtbf"},
      {"--node-failure-rate", "node_failure_rate"},
      {"--failure-profile/--failure-rates", "profile/rates"},
      {"--failure-profile", "profile"},
      {"--failure-rates", "rates"},
      {"--repair", "repair"},
      {"--checkpoint-interval T or young-daly", "checkpoint_intervals"},
      {"--checkpoint-interval", "checkpoint_intervals"},
      {"--checkpoint-write", "checkpoint_write"},
      {"--restart", "restart"},
      {"--spare-nodes", "spare_nodes"},
      {"--maintenance", "maintenance"}};
  for (const auto& [option, key] : kKeys) {
    for (auto at = message.find(option); at != std::string::npos; at = message.find(option, at + key.size()))
      message.replace(at, option.size(), key);
  }
  return message;
}

// A text field checked by `check` (which throws std::invalid_argument), failed at its place.
template <class Check>
void read_text(const YamlField& f, std::string_view key, std::string& into, Check check) {
  const auto field = f.optional_child(key);
  if (!field) return;
  into = field->text();
  try {
    check(into);
  } catch (const std::invalid_argument& error) {
    field->fail(with_sweep_keys(error.what()));
  }
}

SweepFailures read_failures(const YamlField& f, const std::string& file) {
  f.expect_keys({"node_mtbf", "node_failure_rate", "profile", "rates", "repair", "checkpoint_write",
                 "restart", "maintenance", "checkpoint_intervals", "spare_nodes"});
  SweepFailures failures;
  FailureSetup& setup = failures.setup;
  const auto duration = [](std::string_view option) {
    return [option](const std::string& text) { (void)parse_duration_s(text, option); };
  };
  read_text(f, "node_mtbf", setup.node_mtbf, duration("node_mtbf"));
  read_text(f, "node_failure_rate", setup.node_failure_rate,
            [](const std::string& text) { (void)parse_failure_rate_per_hour(text, "node_failure_rate"); });
  read_text(f, "profile", setup.failure_profile, [](const std::string&) {});
  read_text(f, "rates", setup.failure_rates, [&](std::string& path) {
    path = beside(file, path);
    if (!std::filesystem::is_regular_file(path)) throw std::invalid_argument("no such file: " + path);
  });
  read_text(f, "repair", setup.repair, duration("repair"));
  read_text(f, "checkpoint_write", setup.checkpoint_write, duration("checkpoint_write"));
  read_text(f, "restart", setup.restart, duration("restart"));
  read_text(f, "maintenance", setup.maintenance,
            [](const std::string& text) { (void)parse_maintenance(text); });
  if (auto intervals = f.optional_child("checkpoint_intervals")) {
    failures.checkpoint_intervals.clear();
    std::set<std::string> seen;
    for (const auto& item : intervals->items()) {
      const std::string interval = item.text();
      if (interval != "none" && interval != "young-daly") {
        try {
          if (!(parse_duration_s(interval, "checkpoint_intervals") > 0))
            item.fail("a checkpoint interval is a time > 0, 'young-daly' or 'none'");
        } catch (const std::invalid_argument& error) {
          item.fail(error.what());
        }
      }
      if (!seen.insert(interval).second) item.fail("'" + interval + "' is listed twice");
      failures.checkpoint_intervals.push_back(interval);
    }
    if (failures.checkpoint_intervals.empty()) intervals->fail("list at least one interval (or 'none')");
  } else {
    failures.checkpoint_intervals = {"none"};
  }
  if (auto spares = f.optional_child("spare_nodes")) {
    failures.spare_nodes.clear();
    failures.spare_nodes_where = spares->location();
    for (const auto& item : spares->items())
      failures.spare_nodes.push_back(static_cast<int>(item.non_negative_integer()));
    if (failures.spare_nodes.empty()) spares->fail("list at least one spare pool (0 for none)");
  }
  // The combinations (a rate without its repair, young-daly without a rate, ...) on a small cluster.
  for (const std::string& interval : failures.checkpoint_intervals) {
    FailureSetup one = setup;
    one.checkpoint_interval = interval == "none" ? "" : interval;
    try {
      (void)make_replay_models(one, uniform_simulated_cluster(2, 8).topology, std::nullopt);
    } catch (const std::invalid_argument& error) {
      f.fail(with_sweep_keys(error.what()));
    }
  }
  return failures;
}

SweepSpec read_sweep(const YamlField& root, const std::string& file) {
  root.expect_keys({"name", "trace", "designs", "policies", "seeds", "variants", "interval", "scan_depth",
                    "runtime_estimate_factor", "failures"});
  SweepSpec sweep;
  sweep.file = file;
  sweep.name = root.child("name").text();
  const YamlField trace = root.child("trace");
  trace.expect_keys({"path", "format"});
  sweep.trace_path = beside(file, trace.child("path").text());
  if (auto format = trace.optional_child("format")) {
    sweep.trace_format = format->one_of({"auto", "philly", "swf", "helios", "jobs", "sacct", "openb"});
  }
  std::set<std::string> design_names;
  for (const auto& item : root.child("designs").items())
    sweep.designs.push_back(read_design(item, file, design_names));
  if (sweep.designs.empty()) root.child("designs").fail("list at least one design");
  for (const auto& item : root.child("policies").items()) {
    const std::string policy = item.text();
    try {
      (void)make_queue_policy(policy);
    } catch (const std::invalid_argument& error) {
      item.fail(error.what());
    }
    sweep.policies.push_back(policy);
  }
  if (sweep.policies.empty()) root.child("policies").fail("list at least one policy");
  if (auto seeds = root.optional_child("seeds")) {
    sweep.seeds.clear();
    for (const auto& item : seeds->items())
      sweep.seeds.push_back(static_cast<std::uint64_t>(item.non_negative_integer()));
    if (sweep.seeds.empty()) seeds->fail("list at least one seed");
  }
  if (auto variants = root.optional_child("variants")) {
    sweep.variants.clear();
    std::set<std::string> names;
    for (const auto& item : variants->items()) sweep.variants.push_back(read_variant(item, names));
    if (sweep.variants.empty()) variants->fail("list at least one variant");
  }
  if (auto interval = root.optional_child("interval")) sweep.replay.interval = interval->positive_number();
  if (auto depth = root.optional_child("scan_depth"))
    sweep.replay.scan_depth = static_cast<int>(depth->positive_integer());
  sweep.replay.run_time_estimate = read_run_time_estimate(root);
  if (auto failures = root.optional_child("failures")) {
    sweep.failures = read_failures(*failures, file);
    for (const SweepDesign& design : sweep.designs) {
      if (design.spec_path.empty()) {
        if (auto error = spare_pool_error(sweep, design, design.nodes)) throw InputFailure(*error);
      }
    }
  }
  return sweep;
}

}  // namespace

Result<SweepSpec> parse_sweep(const std::string& text, const std::string& name) {
  return result_of<SweepSpec>([&] {
    const YamlDocument document = YamlDocument::parse(text, name);
    if (!document.root().is_map())
      document.root().fail("a sweep is a mapping with 'name', 'trace', 'designs' and 'policies'");
    return read_sweep(document.root(), name);
  });
}

Result<SweepSpec> load_sweep(const std::string& path) {
  return result_of<SweepSpec>([&] {
    const YamlDocument document = YamlDocument::load(path);
    if (!document.root().is_map())
      document.root().fail("a sweep is a mapping with 'name', 'trace', 'designs' and 'policies'");
    return read_sweep(document.root(), path);
  });
}

std::optional<InputError> spare_pool_error(const SweepSpec& sweep, const SweepDesign& design, int nodes) {
  if (!sweep.failures) return std::nullopt;
  for (const int spares : sweep.failures->spare_nodes) {
    if (spares > 0 && spares >= nodes) {
      return InputError{sweep.failures->spare_nodes_where, "failures.spare_nodes",
                        std::to_string(spares) + " spares leave no node of design '" + design.name + "' (" +
                            std::to_string(nodes) + " nodes) to run jobs"};
    }
  }
  return std::nullopt;
}

std::vector<SweepTask> sweep_tasks(const SweepSpec& sweep) {
  const int intervals = sweep.failures ? static_cast<int>(sweep.failures->checkpoint_intervals.size()) : 1;
  const int pools = sweep.failures ? static_cast<int>(sweep.failures->spare_nodes.size()) : 1;
  std::vector<SweepTask> tasks;
  for (int d = 0; d < static_cast<int>(sweep.designs.size()); ++d)
    for (int p = 0; p < static_cast<int>(sweep.policies.size()); ++p)
      for (int v = 0; v < static_cast<int>(sweep.variants.size()); ++v)
        for (int c = 0; c < intervals; ++c)
          for (int k = 0; k < pools; ++k)
            for (int s = 0; s < static_cast<int>(sweep.seeds.size()); ++s)
              tasks.push_back({static_cast<int>(tasks.size()), d, p, v, s, c, k});
  return tasks;
}

std::vector<JobSpec> apply_variant(const std::vector<JobSpec>& jobs, const TraceVariant& variant,
                                   std::uint64_t seed) {
  Random random(seed);
  std::vector<JobSpec> kept;
  kept.reserve(jobs.size());
  for (const JobSpec& job : jobs) {
    // One draw per job whatever the fraction, so a job's fate depends only on the seed and its position.
    const bool keep = random.unit() < variant.sample;
    if (!keep) continue;
    kept.push_back(job);
    kept.back().submit_time *= variant.time_scale;
  }
  return kept;
}

namespace {

// A task of a sweep with failures: the same replay under the task's failure seed, checkpoint interval and
// spare pool.
ReplayResult replay_with_failures(const SweepSpec& sweep, const SweepTask& task,
                                  const std::vector<JobSpec>& jobs, const GpuPool& pool,
                                  const ReplayTopology& topology, const QueuePolicy& policy) {
  FailureSetup setup = sweep.failures->setup;
  const std::string& interval = sweep.failures->checkpoint_intervals[task.checkpoint];
  setup.checkpoint_interval = interval == "none" ? "" : interval;
  setup.spare_nodes = sweep.failures->spare_nodes[task.spares];
  setup.failure_seed = sweep.seeds[task.seed];
  ReplayEngine engine(jobs, pool, std::nullopt, policy, sweep.replay,
                      make_replay_models(setup, topology, std::nullopt));
  return engine.run();
}

SweepFailureRow failure_row(const SweepSpec& sweep, const SweepTask& task, const ReplayResult& result) {
  SweepFailureRow row;
  row.checkpoint_interval = sweep.failures->checkpoint_intervals[task.checkpoint];
  row.spare_nodes = sweep.failures->spare_nodes[task.spares];
  if (result.failures) {
    row.interruptions = result.failures->interruptions;
    row.goodput = result.failures->goodput;
    row.ettr = result.failures->ettr;
    row.availability = result.failures->availability;
  }
  return row;
}

}  // namespace

SweepRow run_sweep_task(const SweepSpec& sweep, const SweepTask& task, const std::vector<JobSpec>& jobs,
                        const GpuPool& pool, int reader_skipped, const ReplayTopology* topology) {
  const std::uint64_t seed = sweep.seeds[task.seed];
  const auto policy = make_queue_policy(sweep.policies[task.policy]);
  const std::vector<JobSpec> varied = apply_variant(jobs, sweep.variants[task.variant], seed);
  if (sweep.failures && topology == nullptr)
    throw std::invalid_argument("a sweep with failures needs the design's topology");
  const ReplayResult result = sweep.failures
                                  ? replay_with_failures(sweep, task, varied, pool, *topology, *policy)
                                  : replay(varied, pool, *policy, sweep.replay);
  SweepRow row;
  row.task = task.index;
  row.design = sweep.designs[task.design].name;
  row.policy = sweep.policies[task.policy];
  row.variant = sweep.variants[task.variant].name;
  row.seed = seed;
  row.jobs = result.jobs;
  row.completed = result.completed;
  row.never_run = jobs_never_run(result);
  row.reader_skipped = reader_skipped;
  row.mean_wait_s = result.wait.mean;
  row.p95_wait_s = result.wait.p95;
  row.mean_jct_s = result.jct.mean;
  row.mean_bounded_slowdown = result.bounded_slowdown.mean;
  row.window_utilisation = result.window_utilisation;
  row.drain_s = result.makespan - result.last_arrival;
  row.utilisation = result.utilisation;
  row.makespan_s = result.makespan;
  if (sweep.failures) row.failures = failure_row(sweep, task, result);
  return row;
}

std::vector<SweepRow> run_sweep(const SweepSpec& sweep, const std::vector<JobSpec>& jobs,
                                const std::vector<GpuPool>& pools, int threads, int reader_skipped,
                                const std::vector<ReplayTopology>& topologies) {
  if (sweep.failures && topologies.size() < pools.size())
    throw std::invalid_argument("a sweep with failures needs every design's topology");
  const auto tasks = sweep_tasks(sweep);
  std::vector<SweepRow> rows(tasks.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < tasks.size(); i = next++) {
      const int design = tasks[i].design;
      rows[i] = run_sweep_task(sweep, tasks[i], jobs, pools[design], reader_skipped,
                               sweep.failures ? &topologies[design] : nullptr);
    }
  };
  std::vector<std::thread> workers;
  const int count = std::max(1, std::min<int>(threads, static_cast<int>(tasks.size())));
  for (int t = 1; t < count; ++t) workers.emplace_back(work);
  work();
  for (auto& worker : workers) worker.join();
  return rows;
}

std::vector<std::string> sweep_refusals(const std::vector<SweepRow>& rows) {
  std::vector<std::string> refusals;
  std::set<std::string> designs;
  for (const SweepRow& row : rows) {
    if (row.jobs > 0 || !designs.insert(row.design).second) continue;
    refusals.push_back("design '" + row.design + "': no job can run on this cluster (" +
                       std::to_string(row.never_run) + " in the trace can never run on it)");
  }
  return refusals;
}

}  // namespace gputwin
