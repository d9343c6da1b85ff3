// `gputwin perf infer`: LLM serving on a designed cluster (or a catalog system): KV-cache capacity, TTFT,
// TPOT and output tokens per second by number of concurrent sequences, up to max load; refused (exit 1) when
// the weights leave no room for one sequence.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/perf/roofline.hpp"
#include "gputwin/report/inference_report.hpp"
#include "gputwin/report/power_report.hpp"
#include "gputwin/serve/serve_scenario.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin::cli {
namespace {

struct InferOptions {
  InferenceModelOptions deployment;
  std::vector<int> sequences{1, 8, 32, 128, 512};
  int load_rounds = 4;            // requests per client in the closed-loop simulation; 0 = none
  std::string engine_generation;  // --engine: an engine generation's fitted efficiency
  bool json = false;
  PowerOptions power;
};

// A cluster as given, or the nodes of a catalog system one replica fills: one node, or as many as its
// tp x ep x pp GPUs need (the trays of an NVL72's NVLink domain that TP 8 spans; whole racks when --system
// names a rack system). TP wider than a scale-up domain is refused.
std::optional<PerfHardware> hardware_for(const InferenceModelOptions& options) {
  if (!options.cluster.empty())
    return load_perf_hardware(options.cluster, options.catalog, options.node_type);
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return std::nullopt;
  const SystemChoice system = system_choice(*catalog, options.system);
  const int nodes = replica_nodes(system, options.tp, options.tp * options.ep * options.pp);
  auto hardware = perf_hardware_of_system(*catalog, system.node_id(), nodes);
  if (!hardware.ok()) {
    std::cerr << hardware.error_text();
    return std::nullopt;
  }
  return std::move(hardware).value();
}

}  // namespace

std::optional<InferenceInputs> load_inference_inputs(const InferenceModelOptions& options,
                                                     const std::string& command) {
  const auto hardware = hardware_for(options);
  if (!hardware) return std::nullopt;
  const std::string data = bundled_data_dir() + "/perf/";
  auto collectives = load_collective_model(data + "nccl-cost-model.yaml");
  auto constants = load_inference_constants(data + "inference.yaml");
  auto presets = load_model_presets(data + "models.yaml");
  for (const std::string& error : {collectives.error_text(), constants.error_text(), presets.error_text()}) {
    if (!error.empty()) {
      std::cerr << error;
      return std::nullopt;
    }
  }
  const TransformerModel* model = find_model(presets.value(), options.model);
  if (model == nullptr) {
    std::cerr << command << ": unknown model '" << options.model << "'; known:";
    for (const auto& preset : presets.value()) std::cerr << " " << preset.name;
    std::cerr << "\n";
    return std::nullopt;
  }
  InferenceSetup setup;
  setup.model = *model;
  setup.tp = options.tp;
  setup.ep = options.ep;
  setup.pp = options.pp;
  setup.precision = options.precision;
  const std::string kv = options.kv_precision.empty() ? options.precision : options.kv_precision;
  setup.kv_bytes_per_element = bytes_per_element(kv);
  setup.input_tokens = options.input_tokens;
  setup.output_tokens = options.output_tokens;
  return InferenceInputs{*hardware, std::move(collectives).value(), std::move(constants).value(), setup};
}

void add_inference_model_options(CLI::App& command, InferenceModelOptions& options) {
  auto* cluster =
      command.add_option("--cluster", options.cluster, "cluster spec (YAML)")->check(CLI::ExistingFile);
  auto* system = command.add_option("--system", options.system,
                                    "a catalog system instead, e.g. dgx-h100, or a rack system (gb200-nvl72: "
                                    "its compute trays, whole racks)");
  cluster->excludes(system);
  add_node_type_option(command, options.node_type);
  command.add_option("--model", options.model, "model preset, e.g. llama3.1-70b")->required();
  command.add_option("--tp", options.tp, "tensor-parallel GPUs per replica (default 1)")
      ->check(positive_number());
  command
      .add_option("--ep", options.ep,
                  "MoE only: attention groups of --tp GPUs per replica, experts split over all EP x TP "
                  "GPUs (vLLM --data-parallel-size with --enable-expert-parallel; default 1)")
      ->check(positive_number());
  command
      .add_option(
          "--pp", options.pp,
          "pipeline-parallel stages of --tp GPUs per replica, each holding its share of the layers "
          "(vLLM --pipeline-parallel-size; default 1; on a --system, as many nodes as the stages need)")
      ->check(positive_number());
  command.add_option("--precision", options.precision, "weights and GEMMs: fp8 (default), bf16, fp16");
  command.add_option("--kv-precision", options.kv_precision,
                     "KV cache: fp8 or bf16 (default: as --precision)");
  command.add_option("--input-tokens", options.input_tokens, "prompt length (default 128)")
      ->check(positive_number());
  command.add_option("--output-tokens", options.output_tokens, "generated tokens (default 128)")
      ->check(positive_number());
  add_catalog_options(command, options.catalog);
}

namespace {

// Each concurrency of the report run as a benchmark runs it (serve/closed_loop_latency), so that TTFT shows
// the queueing and batched prefill a lone prompt's estimate leaves out.
bool simulate_under_load(const InferenceInputs& inputs, int rounds, double engine_efficiency,
                         InferenceReport& report) {
  const auto defaults = load_serving_engine_defaults(bundled_data_dir() + "/perf/serving-engine.yaml");
  auto model = IterationModel::make(inputs.hardware, inputs.collectives, inputs.constants, inputs.setup);
  for (const std::string& error : {defaults.error_text(), model.error_text()}) {
    if (!error.empty()) {
      std::cerr << error;
      return false;
    }
  }
  const EngineLimits limits =
      engine_limits_for(defaults.value(), inputs.hardware.accelerator, model.value().kv_capacity_tokens());
  std::vector<int> concurrencies;
  for (const auto& row : report.by_sequences) concurrencies.push_back(row.sequences);
  if (report.max_load.sequences > 0) concurrencies.push_back(report.max_load.sequences);
  for (const int concurrency : concurrencies) {
    const ClosedLoopLoad load{concurrency, inputs.setup.input_tokens, inputs.setup.output_tokens,
                              rounds,      inputs.setup.pp,           engine_efficiency};
    report.under_load.push_back(
        closed_loop_latency(model.value(), limits, load, inputs.setup.tp * inputs.setup.ep));
  }
  report.under_load_engine =
      fmt::format("{}'s scheduler ({} batched tokens, {} sequences)", defaults.value().engine,
                  limits.max_batched_tokens, limits.max_sequences);
  report.under_load_rounds = rounds;
  return true;
}

// The max-load batch's power and energy on one node filled with replicas (the node's non-GPU power shared by
// them); under a cap, the same batch's time at the default limit beside it.
PowerReport power_report_of(const PowerContext& power, const InferenceInputs& inputs,
                            const InferenceEstimate& max_load) {
  const int replica_gpus = inputs.setup.tp * inputs.setup.ep;
  const int replicas = std::max(1, power.node.gpus_per_node / replica_gpus);
  const int output_tokens = inputs.setup.output_tokens;
  PowerReport report;
  report.point = power.point;
  report.node = power.node;
  report.system_id = power.system_id;
  report.unit = PowerUnit::inference_batch;
  report.energy =
      energy_of(inference_phases(max_load, output_tokens), power.point, power.node, replicas * replica_gpus);
  report.tokens_per_unit = static_cast<double>(replicas) * max_load.sequences * output_tokens;
  if (power.point.capped) {
    const auto at_default = estimate_inference(inputs.hardware, inputs.collectives, inputs.constants,
                                               inputs.setup, max_load.sequences);
    if (at_default.ok()) {
      report.default_seconds =
          at_default.value().prefill.seconds() + output_tokens * at_default.value().decode.seconds();
    }
  }
  return report;
}

// The engine generation of --engine (its fitted efficiency), or the perf model's own timing.
std::optional<EngineChoice> engine_of(const InferOptions& options) {
  const auto defaults = load_serving_engine_defaults(bundled_data_dir() + "/perf/serving-engine.yaml");
  if (!defaults.ok()) {
    std::cerr << defaults.error_text();
    return std::nullopt;
  }
  return engine_option(defaults.value(), options.engine_generation);
}

int run_infer(const InferOptions& options) {
  const auto loaded = load_inference_inputs(options.deployment, "perf infer");
  if (!loaded) return kInputError;
  std::optional<PowerContext> power;
  try {
    power = load_power_context(options.power, loaded->hardware, options.deployment.catalog, "perf infer");
  } catch (const UsageFailure& failure) {
    std::cerr << "perf infer: " << failure.message << "\n";
    return kUsageError;
  }
  if (!power) return kInputError;
  // The performance models see the GPU as the cap leaves it (power_model.hpp: slower GEMMs and HBM).
  InferenceInputs capped = *loaded;
  capped.hardware = capped_hardware(loaded->hardware, power->point);
  const InferenceInputs* inputs = &capped;
  const auto engine = engine_of(options);
  if (!engine) return kInputError;
  const auto estimate = [&](int sequences) -> Result<InferenceEstimate> {
    auto e = estimate_inference(inputs->hardware, inputs->collectives, inputs->constants, inputs->setup,
                                sequences);
    if (!e.ok()) return e;
    return at_engine_efficiency(std::move(e).value(), engine->efficiency);
  };
  auto max_load = estimate(0);
  if (!max_load.ok()) {
    std::cerr << max_load.error_text();
    return kInputError;
  }
  InferenceReport report{loaded->hardware, inputs->setup, {}, std::move(max_load).value(), {}, {}, 0,
                         std::nullopt};
  if (!engine->generation.empty()) report.engine = *engine;
  if (!report.max_load.weights_fit) {
    std::cerr << inference_refusal_text(report);
    return kInputError;
  }
  for (const int sequences : options.sequences) report.by_sequences.push_back(estimate(sequences).value());
  if (options.load_rounds > 0 &&
      !simulate_under_load(*inputs, options.load_rounds, engine->efficiency, report))
    return kInputError;
  const PowerReport power_lines = power_report_of(*power, *loaded, report.max_load);
  if (options.json) {
    nlohmann::json document = inference_json(report);
    document["power"] = power_json(power_lines);
    std::cout << document.dump(2) << "\n";
  } else {
    std::cout << inference_text(report) << power_text(power_lines);
  }
  return 0;
}

}  // namespace

void add_perf_infer_command(CLI::App& perf, int& exit_code) {
  auto options = std::make_shared<InferOptions>();
  auto* command =
      perf.add_subcommand("infer", "LLM serving: KV-cache capacity, TTFT, TPOT, tokens/s by batch");
  add_inference_model_options(*command, options->deployment);
  command
      ->add_option("--sequences", options->sequences, "concurrent sequences to show (default 1 8 32 128 512)")
      ->check(positive_number());
  command
      ->add_option("--load-rounds", options->load_rounds,
                   "requests each client sends when each concurrency is simulated as a benchmark runs it "
                   "(loaded TTFT/TPOT columns; 0 = skip; default 4)")
      ->check(non_negative_number());
  command->add_flag("--json", options->json, std::string("print JSON (schema ") + kInferenceSchema + ")");
  command->add_option(
      "--engine", options->engine_generation,
      "an engine generation of data/perf/serving-engine-generations.yaml whose fitted efficiency divides "
      "every time (and multiplies the throughput), as perf serve --engine (default: none, efficiency 1)");
  add_power_options(*command, options->power, false);
  command->callback([options, &exit_code] {
    if (options->deployment.cluster.empty() && options->deployment.system.empty()) {
      std::cerr << "perf infer: give --cluster SPEC or --system ID\n";
      exit_code = kUsageError;
      return;
    }
    try {
      exit_code = run_infer(*options);
    } catch (const UsageFailure& failure) {
      std::cerr << "perf infer: " << failure.message << "\n";
      exit_code = kUsageError;
    }
  });
}

}  // namespace gputwin::cli
