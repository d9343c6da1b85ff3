#include "gputwin/sim/sweep.hpp"

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "gputwin/core/random.hpp"
#include "gputwin/core/yaml_input.hpp"
#include "gputwin/sim/queue_policy.hpp"

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

SweepSpec read_sweep(const YamlField& root, const std::string& file) {
  root.expect_keys({"name", "trace", "designs", "policies", "seeds", "variants", "interval", "scan_depth",
                    "runtime_estimate_factor"});
  SweepSpec sweep;
  sweep.file = file;
  sweep.name = root.child("name").text();
  const YamlField trace = root.child("trace");
  trace.expect_keys({"path", "format"});
  sweep.trace_path = beside(file, trace.child("path").text());
  if (auto format = trace.optional_child("format")) {
    sweep.trace_format = format->one_of({"auto", "philly", "swf", "helios", "jobs", "sacct"});
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

std::vector<SweepTask> sweep_tasks(const SweepSpec& sweep) {
  std::vector<SweepTask> tasks;
  for (int d = 0; d < static_cast<int>(sweep.designs.size()); ++d)
    for (int p = 0; p < static_cast<int>(sweep.policies.size()); ++p)
      for (int v = 0; v < static_cast<int>(sweep.variants.size()); ++v)
        for (int s = 0; s < static_cast<int>(sweep.seeds.size()); ++s)
          tasks.push_back({static_cast<int>(tasks.size()), d, p, v, s});
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

SweepRow run_sweep_task(const SweepSpec& sweep, const SweepTask& task, const std::vector<JobSpec>& jobs,
                        const GpuPool& pool, int reader_skipped) {
  const std::uint64_t seed = sweep.seeds[task.seed];
  const auto policy = make_queue_policy(sweep.policies[task.policy]);
  const ReplayResult result =
      replay(apply_variant(jobs, sweep.variants[task.variant], seed), pool, *policy, sweep.replay);
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
  return row;
}

std::vector<SweepRow> run_sweep(const SweepSpec& sweep, const std::vector<JobSpec>& jobs,
                                const std::vector<GpuPool>& pools, int threads, int reader_skipped) {
  const auto tasks = sweep_tasks(sweep);
  std::vector<SweepRow> rows(tasks.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < tasks.size(); i = next++) {
      rows[i] = run_sweep_task(sweep, tasks[i], jobs, pools[tasks[i].design], reader_skipped);
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
