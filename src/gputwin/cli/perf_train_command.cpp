// `gputwin perf train`: step time, its breakdown, tokens/s, MFU/HFU and memory per GPU of one training
// configuration on a designed cluster (--cluster SPEC) or on N nodes of a catalog system (--system ID --nodes
// N, a non-blocking fabric assumed), or (--search) the fastest configuration that fits.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <variant>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/perf/training_search.hpp"
#include "gputwin/report/power_report.hpp"
#include "gputwin/report/training_report.hpp"

namespace gputwin::cli {
namespace {

struct TrainOptions {
  std::string cluster;
  std::string node_type;
  std::string system;
  int nodes = 1;
  std::string memory_reserve;  // empty: data/perf/memory.yaml's default
  std::string model;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0;
  bool gated_mlp = false;
  int sequence = 0, global_batch = 0, micro_batch = 1;
  int tp = 1, pp = 1, vp = 1, dp = 0, cp = 1, ep = 1, zero = 1;
  double expert_load_imbalance = 1.0;
  int first_stage_layers = 0, last_stage_layers = 0;
  int bf16_layers_start = -1, bf16_layers_end = -1;  // -1: the precision recipe's
  std::string recompute = "selective";
  std::string precision = "bf16";
  std::string attention = "flash";
  std::string attention_kernel;  // empty: the architecture's default (gemm-efficiency.yaml)
  std::string expert_comm_overlap = "off";
  std::string moe_cuda_graphs = "off";
  std::string torch_compile = "on";
  bool no_sequence_parallel = false;
  bool no_overlap = false;
  int gpus = 0;
  bool search = false, explain = false, json = false;
  CatalogOptions catalog;
  PowerOptions power;
};

// A GPT-style shape from flags (4h MLP unless --ffn, biases, learned positions, tied embeddings), as the
// Megatron papers' models.
TransformerModel custom_model(const TrainOptions& o) {
  if (o.layers <= 0 || o.hidden <= 0 || o.heads <= 0) {
    throw UsageFailure{
        "give --model NAME, or --layers, --hidden and --heads (with --vocab, optional --kv-heads, --ffn)"};
  }
  if (o.vocab <= 0) throw UsageFailure{"--vocab: a custom model needs its vocabulary size"};
  if (o.hidden % o.heads != 0) throw UsageFailure{"--heads: must divide --hidden"};
  TransformerModel m;
  m.name = "custom";
  m.source = "command-line flags";
  m.layers = o.layers;
  m.hidden = o.hidden;
  m.heads = o.heads;
  m.kv_heads = o.kv_heads > 0 ? o.kv_heads : o.heads;
  if (m.heads % m.kv_heads != 0) throw UsageFailure{"--kv-heads: must divide --heads"};
  m.ffn_hidden = o.ffn > 0 ? o.ffn : 4 * o.hidden;
  m.gated_mlp = o.gated_mlp;
  m.vocab = o.vocab;
  m.tied_embeddings = !o.gated_mlp;
  m.biases = !o.gated_mlp;
  m.position_embeddings = o.gated_mlp ? 0 : o.sequence;
  return m;
}

// The per-GPU reserve: --memory-reserve as given, else memory.yaml's parts for this GPU's memory.
ByteSize memory_reserve_of(const std::string& text, const MemoryReserve& data, const PerfHardware& hw) {
  if (text.empty()) return data.per_gpu(hw.accelerator.memory);
  const auto parsed = parse_quantity<ByteSize>(text);
  if (const auto* error = std::get_if<std::string>(&parsed))
    throw UsageFailure{"--memory-reserve: " + *error};
  const ByteSize reserve = std::get<ByteSize>(parsed);
  if (reserve.base() < 0 || reserve.base() >= hw.accelerator.memory.base()) {
    throw UsageFailure{"--memory-reserve: '" + text + "' must be at least 0 and less than the GPU's memory"};
  }
  return reserve;
}

// --attention-kernel: empty (the architecture's default) or a kernel the data defines.
std::string attention_kernel_of(const std::string& name, const GemmModel& gemm) {
  if (name.empty()) return name;  // not given: the architecture's default
  if (!gemm.has_attention_kernel(name)) {
    throw UsageFailure{"--attention-kernel: '" + name + "'; known: " + gemm.attention_kernel_names() +
                       " (data/perf/gemm-efficiency.yaml)"};
  }
  return name;
}

TrainingConfig config_of(const TrainOptions& o, const PerfHardware& hw, const TrainingInputs& inputs) {
  TrainingConfig c;
  c.sequence = o.sequence;
  c.global_batch = o.global_batch;
  c.micro_batch = o.micro_batch;
  c.tp = o.tp;
  c.pp = o.pp;
  c.virtual_stages = o.vp;
  c.dp = o.dp;
  c.cp = o.cp;
  c.ep = o.ep;
  c.expert_load_imbalance = o.expert_load_imbalance;
  c.zero = o.zero;
  const auto recompute = recompute_from_name(o.recompute);
  if (!recompute)
    throw UsageFailure{"--recompute: '" + o.recompute + "'; known: none, selective, full, op-sac"};
  c.recompute = *recompute;
  c.sequence_parallel = !o.no_sequence_parallel;
  c.overlap_data_parallel = !o.no_overlap;
  c.attention = o.attention == "unfused" ? Attention::unfused : Attention::flash;
  c.attention_kernel = attention_kernel_of(o.attention_kernel, inputs.calibration.gemm);
  c.expert_comm_overlap = o.expert_comm_overlap == "on";
  c.moe_cuda_graphs = o.moe_cuda_graphs == "on";
  c.compiled = o.torch_compile == "on";
  c.first_stage_layers = o.first_stage_layers;
  c.last_stage_layers = o.last_stage_layers;
  const PrecisionRecipe* recipe = find_recipe(inputs.recipes, o.precision);
  if (recipe == nullptr) {
    throw UsageFailure{"--precision: '" + o.precision + "'; known: " + recipe_names(inputs.recipes) +
                       " (data/perf/precision-recipes.yaml)"};
  }
  apply_recipe(*recipe, c);
  if (o.bf16_layers_start >= 0) c.bf16_layers_at_start = o.bf16_layers_start;
  if (o.bf16_layers_end >= 0) c.bf16_layers_at_end = o.bf16_layers_end;
  const GemmPrecision* gemm = inputs.calibration.gemm.precision(c.precision);
  const auto peak = hw.accelerator.dense_compute.find(gemm != nullptr ? gemm->peak_key : c.precision);
  if (peak == hw.accelerator.dense_compute.end() || !peak->second) {
    throw UsageFailure{"--precision: " + hw.accelerator.info.id + " has no dense " +
                       (gemm != nullptr ? gemm->peak_key : c.precision) + " rate for " + o.precision};
  }
  return c;
}

// --ep and --expert-load-imbalance against the model: ep splits the routed experts evenly (whether it also
// divides the GPUs of its group is check_training_config's, once dp is known).
void check_expert_options(const TrainOptions& o, const TransformerModel& model) {
  if (o.ep < 1) throw UsageFailure{"--ep: must be at least 1, got " + std::to_string(o.ep)};
  if (!model.is_moe() && o.ep != 1) {
    throw UsageFailure{"--ep: " + model.name +
                       " has no routed experts; the expert-parallel size must be 1, got " +
                       std::to_string(o.ep)};
  }
  if (model.is_moe() && model.moe.experts % o.ep != 0) {
    throw UsageFailure{"--ep: " + std::to_string(o.ep) + " does not divide the " +
                       std::to_string(model.moe.experts) + " routed experts of " + model.name};
  }
  if (!(o.expert_load_imbalance >= 1)) {
    throw UsageFailure{
        fmt::format("--expert-load-imbalance: must be at least 1 (1 = balanced routing), got {:g}",
                    o.expert_load_imbalance)};
  }
}

int gpus_of(const TrainOptions& o, const PerfHardware& hw) {
  if (o.gpus == 0) return hw.gpus();
  if (o.gpus > hw.gpus()) {
    throw UsageFailure{"--gpus: " + std::to_string(o.gpus) + " asked, the cluster has " +
                       std::to_string(hw.gpus())};
  }
  return o.gpus;
}

// The hardware view of the GPUs the job uses (whole nodes of the designed cluster).
PerfHardware job_hardware(PerfHardware hw, int gpus) {
  hw.nodes = (gpus + hw.gpus_per_node - 1) / hw.gpus_per_node;
  return hw;
}

std::optional<PerfHardware> hardware_of(const TrainOptions& o) {
  if (o.cluster.empty() == o.system.empty())
    throw UsageFailure{"give --cluster SPEC or --system ID (not both)"};
  if (!o.cluster.empty()) return load_perf_hardware(o.cluster, o.catalog, o.node_type);
  const auto catalog = load_catalog(o.catalog);
  if (!catalog) return std::nullopt;
  const SystemChoice system = system_choice(*catalog, o.system);
  auto hardware = perf_hardware_of_system(*catalog, system.node_id(), o.nodes * system.nodes_per_unit());
  if (!hardware.ok()) {
    std::cerr << hardware.error_text();
    return std::nullopt;
  }
  return std::move(hardware).value();
}

// The step's power and energy: its terms as phases at the operating point; under a cap, the same
// configuration's step time at the default limit beside it.
PowerReport power_report_of(const PowerContext& power, const TrainingEstimate& estimate,
                            std::optional<double> default_step_s) {
  PowerReport report;
  report.point = power.point;
  report.node = power.node;
  report.system_id = power.system_id;
  report.unit = PowerUnit::training_step;
  report.energy = energy_of(training_phases(estimate), power.point, power.node, estimate.config.gpus());
  report.tokens_per_unit = static_cast<double>(estimate.config.global_batch) * estimate.config.sequence;
  report.default_seconds = default_step_s;
  report.run_tokens = power.run_tokens;
  report.published_node = power.published;
  return report;
}

void print(const TrainOptions& o, const TrainingRunInfo& run, const TrainingEstimate& estimate,
           const PowerReport& power) {
  if (o.json) {
    nlohmann::json document = training_json(run, estimate);
    document["power"] = power_json(power);
    std::cout << document.dump(2) << "\n";
  } else {
    std::cout << training_text(run, estimate, o.explain) << power_text(power);
  }
}

int run_train(const TrainOptions& o) {
  try {
    if (o.sequence <= 0) throw UsageFailure{"--seq: the sequence length is required"};
    if (o.global_batch <= 0) throw UsageFailure{"--global-batch: the global batch (sequences) is required"};
    const auto inputs = load_training_inputs();
    if (!inputs) return kInputError;
    const TransformerModel* preset = nullptr;
    TransformerModel custom;
    if (!o.model.empty()) {
      preset = preset_or_complain(*inputs, o.model, "perf train");
      if (preset == nullptr) return kUsageError;
    } else {
      custom = custom_model(o);
    }
    const TransformerModel& model = preset != nullptr ? *preset : custom;
    check_expert_options(o, model);
    const auto cluster = hardware_of(o);
    if (!cluster) return kInputError;
    const int gpus = gpus_of(o, *cluster);
    const PerfHardware hw = job_hardware(*cluster, gpus);
    const auto power = load_power_context(o.power, hw, o.catalog, "perf train");
    if (!power) return kInputError;
    // The performance models see the GPU as the cap leaves it (power_model.hpp: slower GEMMs and HBM).
    const PerfHardware capped = capped_hardware(hw, power->point);
    TrainingConfig config = config_of(o, hw, *inputs);
    config.memory_reserve = memory_reserve_of(o.memory_reserve, inputs->memory_reserve, hw);
    config.fsdp_blocks = inputs->memory_reserve.fsdp_blocks;
    // An architecture with no fitted GEMM fraction (none in the bundled data; cdna3 before its fit rows) has
    // no step time: refused by name rather than printed as an infinite step.
    // A named attention kernel with no published speed on this architecture is refused the same way.
    if (const auto device =
            inputs->calibration.gemm.device(hw.accelerator, config.precision, config.attention_kernel);
        !device.ok()) {
      const InputError& error = device.errors().front();
      std::cerr << "perf train: " << error.message
                << (error.field == "architecture"
                        ? "; no published run of it is fitted (perf size --gemm-fraction ARCH=F assumes one)"
                        : "")
                << "\n";
      return kInputError;
    }
    TrainingRunInfo run{&model, &hw, &inputs->calibration, std::nullopt, o.precision};
    // MFU stays against the datasheet peak; under a cap, the step at the default limit is shown beside it.
    const auto estimate_capped = [&](const TrainingConfig& c) {
      return at_datasheet_peak(estimate_training(capped, inputs->collectives, inputs->calibration, model, c),
                               power->point);
    };
    const auto default_step = [&](const TrainingConfig& c) -> std::optional<double> {
      if (!power->point.capped) return std::nullopt;
      return estimate_training(hw, inputs->collectives, inputs->calibration, model, c).step_time_s;
    };
    if (o.search) {
      auto search = search_training(capped, inputs->collectives, inputs->calibration, model, config, gpus);
      if (!search.best) {
        std::cerr << "perf train --search: no split of " << model.name << " fits in memory on " << gpus
                  << " x " << hw.accelerator.info.id << " (" << search.candidates << " valid splits tried)\n";
        return kInputError;
      }
      search.best = at_datasheet_peak(*search.best, power->point);
      for (auto& top : search.top) top = at_datasheet_peak(top, power->point);
      for (auto& alternative : search.alternatives) {
        if (alternative.best) alternative.best = at_datasheet_peak(*alternative.best, power->point);
      }
      const TrainingEstimate best = *search.best;
      run.search = search;
      print(o, run, best, power_report_of(*power, best, default_step(best.config)));
      return 0;
    }
    const auto problems = check_training_config(model, config, gpus);
    if (!problems.empty()) {
      for (const auto& problem : problems) std::cerr << "perf train: " << problem << "\n";
      return kUsageError;
    }
    const TrainingEstimate estimate = estimate_capped(config);
    print(o, run, estimate, power_report_of(*power, estimate, default_step(config)));
    return 0;
  } catch (const UsageFailure& failure) {
    std::cerr << "perf train: " << failure.message << "\n";
    return kUsageError;
  }
}

}  // namespace

void add_perf_train_command(CLI::App& perf, int& exit_code) {
  auto o = std::make_shared<TrainOptions>();
  auto* command = perf.add_subcommand(
      "train", "training step time, MFU/HFU and memory per GPU; --search for the fastest split");
  auto* cluster = command->add_option("--cluster", o->cluster, "cluster spec (YAML)");
  auto* system =
      command->add_option("--system", o->system,
                          "a catalog system instead, e.g. dgx-h100 (with --nodes), or a rack system "
                          "(gb200-nvl72: its compute trays; --nodes counts racks)");
  cluster->excludes(system);
  add_node_type_option(*command, o->node_type);
  command
      ->add_option("--nodes", o->nodes,
                   "nodes of --system, racks of a rack system (default 1; a non-blocking fabric is assumed)")
      ->check(positive_number())
      ->needs(system);
  command->add_option("--memory-reserve", o->memory_reserve,
                      "per-GPU memory not available to the model, e.g. 4GiB (default: data/perf/memory.yaml: "
                      "CUDA context + NCCL buffers + 3 % fragmentation)");
  command->add_option("--model", o->model, "model preset (data/perf/models.yaml), e.g. llama3-70b");
  command->add_option("--layers", o->layers, "custom model: layers");
  command->add_option("--hidden", o->hidden, "custom model: hidden size h");
  command->add_option("--heads", o->heads, "custom model: attention heads");
  command->add_option("--kv-heads", o->kv_heads, "custom model: key/value heads (default: --heads)");
  command->add_option("--ffn", o->ffn, "custom model: MLP inner size (default 4h)");
  command->add_flag("--gated-mlp", o->gated_mlp,
                    "custom model: SwiGLU MLP, RoPE, no biases, untied (Llama-style)");
  command->add_option("--vocab", o->vocab, "custom model: vocabulary size");
  command->add_option("--seq", o->sequence, "sequence length (tokens)")->check(positive_number());
  command->add_option("--global-batch", o->global_batch, "sequences per step")->check(positive_number());
  command->add_option("--micro-batch", o->micro_batch, "sequences per micro-batch (default 1)");
  command->add_option("--tp", o->tp, "tensor-parallel size (default 1)");
  command->add_option("--pp", o->pp, "pipeline-parallel size (default 1)");
  command->add_option("--vp", o->vp, "virtual stages per pipeline rank, interleaved 1F1B (default 1)");
  command->add_option("--dp", o->dp, "data-parallel size (default: GPUs / (tp pp cp))");
  command->add_option("--cp", o->cp, "context-parallel size (default 1)");
  command->add_option("--ep", o->ep,
                      "expert-parallel size for a mixture of experts (default 1): divides the routed experts "
                      "and dp x cp (or tp x dp x cp)");
  command->add_option("--expert-load-imbalance", o->expert_load_imbalance,
                      "tokens on the busiest GPU's experts over the balanced share, at least 1 (default 1: "
                      "force-balanced routing, as NVIDIA's MoE tables)");
  command->add_option("--zero", o->zero,
                      "0 replicated optimizer, 1 sharded (distributed optimizer, default), 2, 3 (FSDP)");
  command->add_option(
      "--recompute", o->recompute,
      "none | selective (default) | full | op-sac (torchtitan's per-op selective checkpointing)");
  command
      ->add_option("--first-stage-layers", o->first_stage_layers,
                   "layers on the first pipeline stage (Megatron --decoder-first-pipeline-num-layers)")
      ->check(non_negative_number());
  command
      ->add_option("--last-stage-layers", o->last_stage_layers,
                   "layers on the last pipeline stage (Megatron --decoder-last-pipeline-num-layers)")
      ->check(non_negative_number());
  command->add_option(
      "--precision", o->precision,
      "bf16 (default) | fp8 | fp8-cs | mxfp8 | nvfp4: a recipe of data/perf/precision-recipes.yaml "
      "(GEMM precision and the layers kept in bf16)");
  command
      ->add_option("--bf16-layers-start", o->bf16_layers_start,
                   "first transformer layers kept in bf16 (default: the recipe's)")
      ->check(non_negative_number());
  command
      ->add_option("--bf16-layers-end", o->bf16_layers_end,
                   "last transformer layers kept in bf16 (default: the recipe's)")
      ->check(non_negative_number());
  command
      ->add_option("--attention", o->attention, "flash (default) | unfused (scores stored, as before 2022)")
      ->check(CLI::IsMember({"flash", "unfused"}));
  command
      ->add_option("--attention-kernel", o->attention_kernel,
                   "a flash-attention kernel of data/perf/gemm-efficiency.yaml (attention.kernels): its "
                   "published speed by sequence length (default: the architecture's, cudnn on hopper)")
      ->check(CLI::Validator(
          [](const std::string& text) { return text.empty() ? std::string{"a kernel name, not empty"} : ""; },
          "KERNEL"));
  command
      ->add_option("--expert-comm-overlap", o->expert_comm_overlap,
                   "on | off (default): MoE dispatch/combine overlapped with another micro-batch's compute "
                   "(Megatron overlap_moe_expert_parallel_comm, Bridge moe_a2a_overlap)")
      ->check(CLI::IsMember({"on", "off"}));
  command
      ->add_option(
          "--moe-cuda-graphs", o->moe_cuda_graphs,
          "on | off (default): the MoE router and dispatch preprocessing captured in CUDA graphs "
          "(Megatron cuda_graph_scope moe_router + moe_preprocess): the graphed host wait per MoE layer")
      ->check(CLI::IsMember({"on", "off"}));
  command
      ->add_option("--torch-compile", o->torch_compile,
                   "on (default) | off: a PyTorch framework's transformer blocks under torch.compile (fused "
                   "elementwise kernels) or in eager mode (each op its own kernel, fp32 upcasts included: "
                   "data/perf/pytorch-eager-ops.yaml); off is modelled for Llama-style dense blocks")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_flag("--no-sequence-parallel", o->no_sequence_parallel,
                    "keep norms and dropout unsplit over tp");
  command->add_flag("--no-overlap", o->no_overlap,
                    "data-parallel reduction not overlapped with the backward pass");
  command->add_option("--gpus", o->gpus, "GPUs of the job (default: all of the cluster)")
      ->check(positive_number());
  command->add_flag(
      "--search", o->search,
      "find the fastest split that fits (tp, pp, cp, ep, dp, vp, micro-batch, recompute, ZeRO)");
  command->add_flag("--explain", o->explain, "how each term was computed");
  command->add_flag("--json", o->json, std::string("print JSON (schema ") + kTrainingSchema + ")");
  add_power_options(*command, o->power, true);
  add_catalog_options(*command, o->catalog);
  command->callback([o, &exit_code] { exit_code = run_train(*o); });
}

}  // namespace gputwin::cli
