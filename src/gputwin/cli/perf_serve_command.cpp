// `gputwin perf serve`: a serving deployment simulated request by request (serve/): requests arrive (Poisson,
// bursty, a recorded trace, or closed-loop clients), replicas batch them as vLLM's scheduler does, and the
// latency percentiles, throughput and goodput against targets come out as text, JSON or a CSV over time.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/export/serve_search_array.hpp"
#include "gputwin/export/slurm_array.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/plan/cluster_price.hpp"
#include "gputwin/report/serve_report.hpp"
#include "gputwin/serve/serve_scenario.hpp"
#include "gputwin/serve/serving_power.hpp"

namespace gputwin::cli {
namespace {

struct ServeOptions {
  InferenceModelOptions deployment;
  int replicas = 1;
  double rate = 0;
  double duration_s = 60;
  double gap_cv = 1;
  std::string trace;
  int concurrency = 0;
  int requests = 0;
  std::string slo;
  int max_batched_tokens = 0;
  int max_sequences = 0;
  int block_tokens = 0;
  std::uint64_t seed = 1;
  double sample_every_s = 1;
  std::string timeline_csv;
  std::string search_csv;  // --search: the table as CSV
  bool json = false;
  bool search = false;
  std::vector<std::string> systems;
  int max_gpus = 4096;
  std::string prices;
  std::string disaggregate;  // "prefill=P,decode=D"
  int prefill_tp = 0;        // default: --tp
  int decode_tp = 0;
  int threads = 0;  // 0 = the hardware's concurrency
  std::string engine_generation;
  std::vector<std::string> batch_limits;
  int max_domains = 4;
  // The search as a Slurm job array (export/serve_search_array.hpp).
  std::string slurm_array;
  std::vector<std::string> sbatch_options;
  bool no_submit = false;
  bool wait = false;
  int task = -1;
  std::string out;
  std::string merge_array;
  PowerOptions power;  // --power-cap or --clock-limit (one deployment only)
  // --input-tokens / --output-tokens as given: a length or a distribution (serve/requests.hpp).
  std::string input_lengths = "128";
  std::string output_lengths = "128";
  LengthDistribution input_distribution = LengthDistribution::fixed_at(128);
  LengthDistribution output_distribution = LengthDistribution::fixed_at(128);
};

// --input-tokens / --output-tokens: N, uniform:LO,HI or lognormal:MEAN,CV.
LengthDistribution parse_lengths(const std::string& option, const std::string& text) {
  auto parsed = parse_length_distribution(text);
  if (!parsed.ok()) throw UsageFailure{option + ": " + parsed.errors().front().message};
  return parsed.value();
}

// "8192/1024": max_num_batched_tokens/max_num_seqs.
BatchLimits parse_batch_limits(const std::string& text) {
  const auto slash = text.find('/');
  try {
    std::size_t used_tokens = 0, used_sequences = 0;
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    const std::string tokens = text.substr(0, slash), sequences = text.substr(slash + 1);
    const BatchLimits limits{std::stoi(tokens, &used_tokens), std::stoi(sequences, &used_sequences)};
    if (used_tokens == tokens.size() && used_sequences == sequences.size() && limits.max_batched_tokens > 0 &&
        limits.max_sequences > 0)
      return limits;
  } catch (const std::exception&) {
  }
  throw UsageFailure{"--batch-limits: '" + text + "' is not TOKENS/SEQUENCES (e.g. 8192/1024)"};
}

double number_in(const std::string& item, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < 0)
    throw UsageFailure{"--slo: '" + item + "' does not hold a number where one belongs"};
  return value;
}

// "ttft-p90=500ms,tpot-p90=50ms": one percentile for every target (the share of requests that must meet all).
LatencyTargets parse_slo(const std::string& text) {
  LatencyTargets targets;
  std::optional<int> percentile;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    const auto dash = item.find("-p");
    const auto equals = item.find('=');
    if (dash == std::string::npos || equals == std::string::npos || equals < dash)
      throw UsageFailure{"--slo: '" + item + "' is not METRIC-pNN=VALUE (e.g. ttft-p90=500ms)"};
    const std::string metric = item.substr(0, dash);
    const int p = static_cast<int>(number_in(item, item.substr(dash + 2, equals - dash - 2)));
    if (percentile && *percentile != p)
      throw UsageFailure{
          "--slo: every target must use the same percentile (the share of requests meeting all)"};
    percentile = p;
    std::string value = item.substr(equals + 1);
    double scale = 1;
    if (value.ends_with("ms")) {
      scale = 1e-3;
      value.resize(value.size() - 2);
    } else if (value.ends_with("s")) {
      value.pop_back();
    } else {
      throw UsageFailure{"--slo: '" + item + "' needs a unit (ms or s)"};
    }
    const double seconds = number_in(item, value) * scale;
    if (metric == "ttft")
      targets.ttft_s = seconds;
    else if (metric == "tpot")
      targets.tpot_s = seconds;
    else if (metric == "e2e")
      targets.e2e_s = seconds;
    else
      throw UsageFailure{"--slo: unknown metric '" + metric + "' (ttft, tpot, e2e)"};
  }
  if (percentile) {
    if (*percentile <= 0 || *percentile > 100) throw UsageFailure{"--slo: the percentile must be 1..100"};
    targets.percentile = *percentile / 100.0;
  }
  return targets;
}

TrafficSpec traffic_spec(const ServeOptions& options) {
  const auto& d = options.deployment;
  return {options.trace,
          options.concurrency,
          options.requests,
          {options.rate, options.duration_s, options.gap_cv, d.input_tokens, d.output_tokens},
          options.seed,
          options.input_distribution,
          options.output_distribution};
}

std::optional<ServeTraffic> traffic_of(const ServeOptions& options) {
  auto traffic = make_traffic(traffic_spec(options));
  if (!traffic.ok()) {
    std::cerr << traffic.error_text();
    return std::nullopt;
  }
  return std::move(traffic).value();
}

EngineLimitOverrides limit_overrides(const ServeOptions& options) {
  return {options.max_batched_tokens, options.max_sequences, options.block_tokens};
}

// This run's arguments without the program.
std::vector<std::string> command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> words;
  std::string word;
  while (std::getline(in, word, '\0')) words.push_back(word);
  if (!words.empty()) words.erase(words.begin());
  return words;
}

int run_search_task(const ServeOptions& options, const CapacityInputs& capacity,
                    const std::vector<DeploymentCandidate>& candidates, const ServeTraffic& traffic,
                    const LatencyTargets& targets) {
  if (options.out.empty() && options.task < static_cast<int>(candidates.size()))
    throw UsageFailure{"--task needs --out FILE"};
  const auto task =
      search_task(capacity, candidates, options.task, traffic.requests, targets, options.max_gpus);
  if (!task.ok()) {
    std::cerr << "perf serve: --task " << task.errors().front().message << "\n";
    return kUsageError;
  }
  if (!write_capacity_task(options.out, task.value())) {
    std::cerr << "perf serve: cannot write " << options.out << "\n";
    return kInputError;
  }
  return 0;
}

int run_search_array(const ServeOptions& options, const std::string& model, std::size_t tasks,
                     const ServeTraffic& traffic) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(options.slurm_array);
  if (!make_array_dirs(dir)) return kInputError;
  const ServeSearchArray array{model,
                               traffic.description,
                               options.slo,
                               tasks,
                               fs::read_symlink("/proc/self/exe").string(),
                               dir.string(),
                               fs::current_path().string(),
                               options.sbatch_options,
                               array_task_arguments(command_line())};
  return write_and_submit_array(serve_search_array_files(array), dir,
                                {kServeSearchScript, tasks, options.no_submit, options.wait, "perf serve",
                                 "gputwin perf serve-merge " + dir.string()});
}

int print_search(const ServeOptions& options, const CapacitySearch& search, const std::string& model,
                 const std::string& traffic, const LatencyTargets& targets) {
  if (!options.search_csv.empty()) {
    std::ofstream out(options.search_csv);
    out << capacity_csv(search);
    if (!out) {
      std::cerr << "perf serve: cannot write " << options.search_csv << "\n";
      return kInputError;
    }
  }
  std::cout << (options.json ? capacity_json(search, model, traffic, targets).dump(2) + "\n"
                             : capacity_text(search, model, traffic, targets));
  return search.rows.empty() || !search.rows.front().meets ? kInputError : 0;
}

int run_merge_array(const ServeOptions& options) {
  const auto merged = merge_serve_search_array(options.merge_array);
  if (!merged.ok()) {
    std::cerr << merged.error_text();
    return kInputError;
  }
  const MergedServeSearch& array = merged.value();
  for (const std::string& line : array.missing) std::cerr << "perf serve-merge: " << line << "\n";
  if (!array.missing.empty()) {
    std::cerr << "perf serve-merge: " << array.missing.size() << " of " << array.tasks
              << " candidates have no result\n";
    return kInputError;
  }
  return print_search(options, merged_search(array), array.model, array.traffic, parse_slo(array.slo));
}

DeploymentInputs deployment_of(const InferenceInputs& inputs) {
  return {inputs.hardware, inputs.collectives, inputs.constants, inputs.setup};
}

// --cluster: its accelerator priced at the cluster's own TCO per GPU-hour (plan's), when the cluster is
// priced completely; else "no price" for it, said in the basis (never a guessed price).
std::string price_cluster(const ServeOptions& options, const Catalog& catalog,
                          std::map<std::string, Money>& prices) {
  const std::string others = options.prices.empty() ? "" : "; others at " + options.prices;
  const auto design = designed_spec(options.deployment.cluster, catalog);
  if (!design) throw UsageFailure{"--cluster: " + options.deployment.cluster + " does not design"};
  const auto price = gpu_hour_price_of(design->cluster, catalog, options.deployment.cluster);
  if (!price.ok()) {
    const std::string basis = "the cluster's TCO is incomplete: " + price.errors().front().message;
    if (options.prices.empty()) return "no price for the cluster's GPUs (" + basis + ")";
    return "every GPU at " + options.prices + "'s price where it has one (" + basis + ")";
  }
  const GpuHourPrice& own = price.value();
  prices[own.accelerator] = own.price;
  return fmt::format("{} at {} per GPU-hour, the TCO of {} (a cluster of {} GPUs){}", own.accelerator,
                     format_money(own.price), options.deployment.cluster, design->cluster.gpus, others);
}

int run_search(const ServeOptions& options, const InferenceInputs& inputs,
               const ServingEngineDefaults& engine, double engine_efficiency, const ServeTraffic& traffic,
               const LatencyTargets& targets) {
  const auto catalog = load_catalog(options.deployment.catalog);
  if (!catalog) return kInputError;
  SearchSpec spec;
  std::string cost_basis;
  if (!options.prices.empty()) {
    auto prices = load_gpu_hour_prices(options.prices, *catalog);
    if (!prices.ok()) {
      std::cerr << prices.error_text();
      return kInputError;
    }
    spec.gpu_hour_prices = std::move(prices).value();
    cost_basis = "GPU-hour prices of " + options.prices;
  }
  if (!options.deployment.cluster.empty())
    cost_basis = price_cluster(options, *catalog, spec.gpu_hour_prices);
  auto density = load_rack_density(bundled_data_dir() + "/perf/sizing-racks.yaml", *catalog);
  if (!density.ok()) {
    std::cerr << density.error_text();
    return kInputError;
  }
  spec.rack_density = std::move(density).value();
  spec.fixed_limits = limit_overrides(options);
  for (const std::string& limits : options.batch_limits)
    spec.batch_limits.push_back(parse_batch_limits(limits));
  spec.max_domains = options.max_domains;
  CapacityInputs capacity = capacity_inputs(*catalog, deployment_of(inputs), engine, spec);
  capacity.engine_efficiency = engine_efficiency;
  capacity.disaggregation = !options.disaggregate.empty();
  capacity.concurrency = options.concurrency;
  // --cluster alone: its own node system (the candidates run on that system's hardware, as on --system).
  const std::string own =
      options.deployment.cluster.empty() ? options.deployment.system : inputs.hardware.system_id;
  const auto systems =
      searched_systems(*catalog, options.systems.empty() ? std::vector<std::string>{own} : options.systems);
  if (!systems.ok()) throw UsageFailure{"--systems: " + systems.errors().front().message};
  const auto candidates = candidates_on(capacity, systems.value());
  if (!candidates.ok()) throw UsageFailure{"--systems: " + candidates.errors().front().message};
  if (options.task >= 0) return run_search_task(options, capacity, candidates.value(), traffic, targets);
  if (!options.slurm_array.empty())
    return run_search_array(options, inputs.setup.model.name, candidates.value().size(), traffic);
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  CapacitySearch search =
      search_capacity(capacity, candidates.value(), traffic.requests, targets, options.max_gpus, threads);
  search.cost_basis = cost_basis;
  return print_search(options, search, inputs.setup.model.name, traffic.description, targets);
}

// The run's power and energy at the operating point (serve/serving_power.hpp).
PowerReport serving_power_report(const PowerContext& power, const ServingResult& result) {
  const ServingEnergy energy = serving_energy(result, power.point, power.node);
  PowerReport report;
  report.point = power.point;
  report.node = power.node;
  report.system_id = power.system_id;
  report.unit = PowerUnit::serving_run;
  report.energy = energy.energy;
  report.tokens_per_unit = energy.output_tokens;
  report.requests = energy.requests;
  report.busy_fraction = energy.busy_fraction;
  return report;
}

int write_report(const ServeOptions& options, const ServeReport& report);

// "prefill=1,decode=3": the instances of each pool.
std::pair<int, int> parse_pools(const std::string& text) {
  std::optional<int> prefill, decode;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    const auto equals = item.find('=');
    const std::string key = item.substr(0, equals);
    if (equals == std::string::npos || (key != "prefill" && key != "decode"))
      throw UsageFailure{"--disaggregate: '" + item + "' is not prefill=N or decode=N"};
    const std::string value = item.substr(equals + 1);
    std::size_t used = 0;
    int count = -1;
    try {
      count = std::stoi(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (value.empty() || used != value.size() || count < 0)
      throw UsageFailure{"--disaggregate: '" + item + "' needs a whole number of instances"};
    (key == "prefill" ? prefill : decode) = count;
  }
  if (!prefill || !decode)
    throw UsageFailure{std::string("--disaggregate: ") + (prefill ? "decode" : "prefill") +
                       "=N is missing (give both pools, e.g. prefill=1,decode=3)"};
  return {*prefill, *decode};
}

// The hardware the KV transfers cross: the cluster, or as many nodes of the system as the placed pools fill.
std::optional<PerfHardware> transfer_hardware(const ServeOptions& options, const InferenceInputs& inputs,
                                              const PoolPlacement& placement) {
  const int domain = inputs.hardware.gpus_per_domain();
  const int domains = domains_filled(placement);
  if (!options.deployment.cluster.empty()) {
    if (domains * domain > inputs.hardware.gpus())
      throw UsageFailure{fmt::format(
          "--disaggregate: the pools fill {} scale-up domains of {} GPUs ({} GPUs); the cluster has {}",
          domains, domain, domains * domain, inputs.hardware.gpus())};
    return inputs.hardware;
  }
  const auto catalog = load_catalog(options.deployment.catalog);
  if (!catalog) return std::nullopt;
  const std::string& system = system_choice(*catalog, options.deployment.system).node_id();
  auto hardware = system_transfer_hardware(*catalog, system, inputs.hardware, placement);
  if (!hardware.ok()) {
    std::cerr << hardware.error_text();
    return std::nullopt;
  }
  return std::move(hardware).value();
}

int run_disaggregated(const ServeOptions& options, const InferenceInputs& inputs,
                      const ServingEngineDefaults& defaults, const EngineChoice& engine,
                      const ServeTraffic& traffic, const PowerContext& power) {
  const auto [prefill_instances, decode_instances] = parse_pools(options.disaggregate);
  DisaggregatedSetup pools;
  const int ep = inputs.setup.ep, pp = inputs.setup.pp;
  pools.prefill = {
      prefill_instances, options.prefill_tp > 0 ? options.prefill_tp : inputs.setup.tp, {}, ep, pp};
  pools.decode = {decode_instances, options.decode_tp > 0 ? options.decode_tp : inputs.setup.tp, {}, ep, pp};
  pools.units = options.replicas;
  pools.engine_efficiency = engine.efficiency;
  pools.concurrency = options.concurrency;
  const int domain = inputs.hardware.gpus_per_domain();
  if (const auto error = pool_error(pools.prefill, "prefill", domain))
    throw UsageFailure{
        (options.prefill_tp > 0 && pools.prefill.instances > 0 ? "--prefill-tp: " : "--disaggregate: ") +
        *error};
  if (const auto error = pool_error(pools.decode, "decode", domain))
    throw UsageFailure{
        (options.decode_tp > 0 && pools.decode.instances > 0 ? "--decode-tp: " : "--disaggregate: ") +
        *error};
  pools.sample_every_s = options.sample_every_s;
  pools.targets = parse_slo(options.slo);
  auto run = make_disaggregated_run(deployment_of(inputs), pools, defaults, limit_overrides(options));
  if (!run.ok()) {
    std::cerr << run.error_text();
    return kInputError;
  }
  const DisaggregatedRun& disaggregated = run.value();
  const auto hardware = transfer_hardware(
      options, inputs,
      place_pools(domain, disaggregated.pools.prefill, disaggregated.pools.decode, pools.units));
  if (!hardware) return kInputError;
  const KvTransferModel transfer(*hardware, inputs.collectives, inputs.setup.model,
                                 inputs.setup.kv_bytes_per_element, pools.prefill.tp, pools.decode.tp, pp,
                                 pp);
  ServeReport report{inputs.hardware, inputs.setup, traffic.description, {}, {},
                     engine.text,     std::nullopt, std::nullopt};
  report.serving.targets = pools.targets;
  report.serving.engine_efficiency = engine.efficiency;
  report.disaggregated = simulate_disaggregated(disaggregated.prefill, disaggregated.decode, transfer,
                                                traffic.requests, disaggregated.pools);
  report.result = report.disaggregated->serving;
  report.power = serving_power_report(power, report.result);
  return write_report(options, report);
}

// --search on --systems without --system or --cluster: the deployment's own inputs are loaded on the first
// system searched (a rack-scale id resolved to its compute tray, "all" to the catalog's first GPU system).
bool choose_search_system(ServeOptions& options) {
  if (!options.search || !options.deployment.system.empty() || !options.deployment.cluster.empty())
    return true;
  const auto catalog = load_catalog(options.deployment.catalog);
  if (!catalog) return false;
  const auto systems = searched_systems(*catalog, options.systems);
  if (!systems.ok()) throw UsageFailure{"--systems: " + systems.errors().front().message};
  if (systems.value().empty()) throw UsageFailure{"--systems: no system with GPUs to search"};
  options.deployment.system = systems.value().front();
  return true;
}

int run_serve(ServeOptions options) {
  if (!choose_search_system(options)) return kInputError;
  const auto loaded = load_inference_inputs(options.deployment, "perf serve");
  if (!loaded) return kInputError;
  std::optional<PowerContext> power;
  if (!options.search) {
    power = load_power_context(options.power, loaded->hardware, options.deployment.catalog, "perf serve");
    if (!power) return kInputError;
  }
  // The iteration model sees the GPU as the cap leaves it (power_model.hpp: slower GEMMs and HBM).
  InferenceInputs capped = *loaded;
  if (power) capped.hardware = capped_hardware(loaded->hardware, power->point);
  const InferenceInputs* inputs = &capped;
  const auto defaults = load_serving_engine_defaults(bundled_data_dir() + "/perf/serving-engine.yaml");
  if (!defaults.ok()) {
    std::cerr << defaults.error_text();
    return kInputError;
  }
  const auto engine = engine_option(defaults.value(), options.engine_generation);
  if (!engine) return kInputError;
  const auto traffic = traffic_of(options);
  if (!traffic) return kInputError;
  if (traffic->requests.empty()) {
    std::cerr << "perf serve: no request arrives (rate x duration is below one request)\n";
    return kUsageError;
  }
  if (options.search)
    return run_search(options, *inputs, defaults.value(), engine->efficiency, *traffic,
                      parse_slo(options.slo));
  if (!options.disaggregate.empty())
    return run_disaggregated(options, *inputs, defaults.value(), *engine, *traffic, *power);
  auto model = IterationModel::make(inputs->hardware, inputs->collectives, inputs->constants, inputs->setup);
  if (!model.ok()) {
    std::cerr << model.error_text();
    return kInputError;
  }
  ServingSetup setup;
  setup.replicas = options.replicas;
  setup.gpus_per_replica = inputs->setup.tp * inputs->setup.ep;
  setup.limits = engine_limits_with(defaults.value(), inputs->hardware.accelerator,
                                    model.value().kv_capacity_tokens(), limit_overrides(options));
  setup.options.concurrency = options.concurrency;
  setup.options.sample_every_s = options.sample_every_s;
  setup.targets = parse_slo(options.slo);
  setup.engine_efficiency = engine->efficiency;
  const ServeReport report{
      inputs->hardware,
      inputs->setup,
      traffic->description,
      setup,
      simulate_serving(model.value(), traffic->requests, pipelined(setup, inputs->setup.pp)),
      engine->text,
      std::nullopt,
      std::nullopt};
  ServeReport with_power = report;
  with_power.power = serving_power_report(*power, report.result);
  return write_report(options, with_power);
}

int write_report(const ServeOptions& options, const ServeReport& report) {
  if (!options.timeline_csv.empty()) {
    std::ofstream out(options.timeline_csv);
    out << serve_timeline_csv(report);
    if (!out) {
      std::cerr << "perf serve: cannot write " << options.timeline_csv << "\n";
      return kInputError;
    }
  }
  std::cout << (options.json ? serve_json(report).dump(2) + "\n" : serve_text(report));
  return 0;
}

// Why these options cannot combine with --disaggregate (empty when they can), naming the option.
std::string disaggregation_refusal(const ServeOptions& options) {
  if (options.disaggregate.empty()) return "";
  if (options.search && options.disaggregate != "auto")
    return "--search chooses the instances and the prefill:decode split itself: give --disaggregate auto";
  if (!options.search && options.disaggregate == "auto")
    return "--disaggregate auto asks --search to choose the split; for one run give prefill=P,decode=D";
  if (options.search && (options.prefill_tp > 0 || options.decode_tp > 0))
    return "--search gives both pools each candidate's layout: --prefill-tp/--decode-tp fix one run's pools";
  return "";
}

}  // namespace

void add_perf_serve_command(CLI::App& perf, int& exit_code) {
  auto options = std::make_shared<ServeOptions>();
  auto* command = perf.add_subcommand(
      "serve", "simulate a serving deployment under traffic: latency percentiles, throughput, goodput");
  add_inference_model_options(*command, options->deployment);
  // perf serve's lengths may be distributions: its own --input-tokens / --output-tokens replace the counts.
  command->remove_option(command->get_option("--input-tokens"));
  command->remove_option(command->get_option("--output-tokens"));
  command->add_option(
      "--input-tokens", options->input_lengths,
      "prompt length: N, uniform:LO,HI or lognormal:MEAN,CV, drawn per request (default 128)");
  command->add_option("--output-tokens", options->output_lengths,
                      "generated tokens: N, uniform:LO,HI or lognormal:MEAN,CV (default 128)");
  command
      ->add_option("--replicas", options->replicas,
                   "engine replicas behind a round-robin balancer (default 1)")
      ->check(positive_number());
  auto* rate = command->add_option("--rate", options->rate, "open loop: mean arrivals per second")
                   ->check(positive_number());
  command->add_option("--duration", options->duration_s, "open loop: seconds of arrivals (default 60)")
      ->check(positive_number());
  command
      ->add_option("--cv", options->gap_cv, "open loop: coefficient of variation of the gaps (1 = Poisson)")
      ->check(positive_number());
  auto* trace = command
                    ->add_option("--trace", options->trace,
                                 "a request trace (Azure LLM inference CSV: TIMESTAMP,ContextTokens,"
                                 "GeneratedTokens)")
                    ->check(CLI::ExistingFile);
  auto* concurrency = command
                          ->add_option("--concurrency", options->concurrency,
                                       "closed loop: clients that each send the next request when "
                                       "the last is answered")
                          ->check(positive_number());
  rate->excludes(trace)->excludes(concurrency);
  trace->excludes(concurrency);
  command
      ->add_option("--requests", options->requests,
                   "closed loop: requests in all (default 10 per client); trace: the first N")
      ->check(positive_number());
  command->add_option("--slo", options->slo, "targets, e.g. ttft-p90=500ms,tpot-p90=50ms (one percentile)");
  command
      ->add_option("--max-batched-tokens", options->max_batched_tokens,
                   "tokens per engine iteration (default: the engine's, data/perf/serving-engine.yaml)")
      ->check(positive_number());
  command
      ->add_option("--max-sequences", options->max_sequences,
                   "running requests per replica (default: the engine's)")
      ->check(positive_number());
  command->add_option("--block-tokens", options->block_tokens, "KV-cache block size (default: the engine's)")
      ->check(positive_number());
  command->add_option("--seed", options->seed, "seed of the generated arrivals (default 1)");
  command
      ->add_option("--sample-every", options->sample_every_s, "seconds between timeline samples (default 1)")
      ->check(positive_number());
  command->add_option("--timeline-csv", options->timeline_csv, "write running, queue and KV use over time");
  command->add_option("--csv", options->search_csv, "--search: write the ranked table as CSV to FILE");
  command->add_flag(
      "--json", options->json,
      std::string("print JSON (schema ") + kServeSchema + "; with --search " + kServeCapacitySchema + ")");
  command->add_flag(
      "--search", options->search,
      "find the fewest GPUs (or the cheapest, with --prices) that meet --slo: every TP up to the "
      "scale-up domain (DP attention + EP for MoE, PP when one domain cannot hold the weights) on each "
      "of --systems, replicas by doubling and bisection, under each of --batch-limits");
  command
      ->add_option("--systems", options->systems,
                   "--search: catalog systems to try, rack-scale ids (gb200-nvl72) too, or all (default: "
                   "--system, the --cluster's node system, else all)")
      ->delimiter(',');
  command
      ->add_option("--max-gpus", options->max_gpus,
                   "--search: the most GPUs a deployment may use (default 4096)")
      ->check(positive_number());
  command->add_option("--prices", options->prices, "--search: GPU-hour prices (YAML, as perf size --prices)")
      ->check(CLI::ExistingFile);
  command->add_option(
      "--disaggregate", options->disaggregate,
      "separate prefill and decode pools, e.g. prefill=1,decode=3 instances (vLLM's disaggregated prefilling "
      "with the NixlConnector; the KV cache moves over NVLink or the NICs); with --replicas R, R such units; "
      "with --search, 'auto': also try every layout as pools, the instances and their split searched");
  command
      ->add_option("--prefill-tp", options->prefill_tp,
                   "--disaggregate: TP of a prefill instance (default --tp)")
      ->check(positive_number());
  command
      ->add_option("--decode-tp", options->decode_tp,
                   "--disaggregate: TP of a decode instance (default --tp)")
      ->check(positive_number());
  command->add_option(
      "--engine", options->engine_generation,
      "an engine generation of data/perf/serving-engine-generations.yaml whose fitted efficiency "
      "divides the perf model's iteration times (default: none, efficiency 1)");
  command
      ->add_option("--threads", options->threads,
                   "--search: candidates simulated at once (default: the hardware's concurrency); the "
                   "answer is the same for any count")
      ->check(positive_number());
  command
      ->add_option("--batch-limits", options->batch_limits,
                   "--search: engine limits to try, TOKENS/SEQUENCES (default: the engine's for the GPU, "
                   "then its other default pair)")
      ->delimiter(',');
  command
      ->add_option("--max-pp", options->max_domains,
                   "--search: the most scale-up domains (PP stages, or an EP group's domains) tried for "
                   "weights one domain cannot hold (default 4)")
      ->check(positive_number());
  command->add_option("--slurm-array", options->slurm_array,
                      "--search: write (and submit) a Slurm job array in DIR, one task per candidate");
  command->add_option("--sbatch-option", options->sbatch_options,
                      "with --slurm-array: an #SBATCH line, e.g. --partition=gpu (repeatable)");
  command->add_flag("--no-submit", options->no_submit, "with --slurm-array: write the script only");
  command->add_flag("--wait", options->wait, "with --slurm-array: wait until the array job ends");
  command
      ->add_option("--task", options->task,
                   "--search: run candidate I alone and write its row to --out (a Slurm array task)")
      ->check(non_negative_number());
  command->add_option("--out", options->out, "with --task: the result file");
  add_power_options(*command, options->power, false);
  command->callback([options, &exit_code] {
    const auto& d = options->deployment;
    if (options->search && options->slo.empty()) {
      std::cerr << "perf serve: --search needs targets (--slo ttft-p90=500ms,...)\n";
      exit_code = kUsageError;
      return;
    }
    if (options->search && d.system.empty() && d.cluster.empty() && options->systems.empty()) {
      options->systems = {"all"};
      std::cerr
          << "perf serve: no --system, --systems or --cluster: searching every GPU system of the catalog "
             "(--systems all; the deployment's own defaults from the catalog's first GPU system)\n";
    }
    if (d.cluster.empty() && d.system.empty() && !(options->search && !options->systems.empty())) {
      std::cerr << "perf serve: give --cluster SPEC or --system ID\n";
      exit_code = kUsageError;
      return;
    }
    if (const std::string refusal = disaggregation_refusal(*options); !refusal.empty()) {
      std::cerr << "perf serve: " << refusal << "\n";
      exit_code = kUsageError;
      return;
    }
    if (options->search && (!options->power.cap.empty() || !options->power.clock_limit.empty())) {
      const bool cap = !options->power.cap.empty();
      const std::string option = cap ? "--power-cap" : "--clock-limit";
      std::cerr << "perf serve: " << option
                << " is for one deployment: the search's candidates span systems whose "
                << (cap ? "caps" : "clock ranges") << " differ (run the answer again with " << option
                << ")\n";
      exit_code = kUsageError;
      return;
    }
    if (options->search && d.pp > 1) {
      std::cerr
          << "perf serve: --search chooses PP itself (when one scale-up domain cannot hold the weights; "
             "--max-pp caps it): give no --pp\n";
      exit_code = kUsageError;
      return;
    }
    if (options->disaggregate.empty() && (options->prefill_tp > 0 || options->decode_tp > 0)) {
      std::cerr << "perf serve: --prefill-tp and --decode-tp need --disaggregate\n";
      exit_code = kUsageError;
      return;
    }
    if (options->rate <= 0 && options->trace.empty() && options->concurrency <= 0) {
      std::cerr << "perf serve: give the traffic: --rate R/s, --trace FILE or --concurrency C\n";
      exit_code = kUsageError;
      return;
    }
    try {
      options->input_distribution = parse_lengths("--input-tokens", options->input_lengths);
      options->output_distribution = parse_lengths("--output-tokens", options->output_lengths);
      if (const auto refusal = traffic_refusal(traffic_spec(*options)))
        throw UsageFailure{refusal->field + ": " + refusal->message};
      // The deployment's own lengths (perf infer's fit check): the distributions' means.
      options->deployment.input_tokens =
          std::max(1, static_cast<int>(std::lround(options->input_distribution.mean())));
      options->deployment.output_tokens =
          std::max(1, static_cast<int>(std::lround(options->output_distribution.mean())));
      exit_code = run_serve(*options);
    } catch (const UsageFailure& failure) {
      std::cerr << "perf serve: " << failure.message << "\n";
      exit_code = kUsageError;
    }
  });
  auto merge_options = std::make_shared<ServeOptions>();
  auto* merge = perf.add_subcommand(
      "serve-merge", "rank the task results of a `perf serve --search --slurm-array DIR` into its answer");
  merge->add_option("DIR", merge_options->merge_array, "the array's directory")->required();
  merge->add_option("--csv", merge_options->search_csv, "write the ranked table as CSV to FILE");
  merge->add_flag("--json", merge_options->json,
                  std::string("print JSON (schema ") + kServeCapacitySchema + ")");
  merge->callback([merge_options, &exit_code] {
    try {
      exit_code = run_merge_array(*merge_options);
    } catch (const UsageFailure& failure) {
      std::cerr << "perf serve-merge: " << failure.message << "\n";
      exit_code = kUsageError;
    }
  });
}

std::optional<EngineChoice> engine_option(const ServingEngineDefaults& defaults,
                                          const std::string& generation) {
  auto choice = load_engine_choice(defaults, generation);
  if (!choice.ok()) {
    const InputError& error = choice.errors().front();
    if (error.where.file.empty()) throw UsageFailure{"--engine: " + error.message};  // an unknown id
    std::cerr << choice.error_text();
    return std::nullopt;
  }
  return std::move(choice).value();
}

}  // namespace gputwin::cli
