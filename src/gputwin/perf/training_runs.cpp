#include "gputwin/perf/training_runs.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/precision_recipe.hpp"

namespace gputwin {
namespace {

struct GpuSetup {
  std::string accelerator;
  int gpus_per_node = 8;
  int nics_per_node = 8;
  DataRate nic_speed;
  int scale_up_domain = 0;  // GPUs of one NVLink domain when it spans nodes (NVL72: 72); 0 = the node
  int domain_segment = 0;   // GPUs of each domain a job fills (Slurm --segment); 0 = the whole domain
};

struct SystemSetup {
  std::optional<ByteSize> memory;
  std::optional<DataRate> memory_bandwidth;
  // The GPUs' power limit where it is below the catalog TDP: the GEMM clock it leaves is the power model's
  // (data/power/power-model.yaml, perf/power_model.hpp), not a separate figure. Empty: the default limit.
  std::optional<Power> power_limit;
  SourceLocation power_limit_at;  // where the limit is written, for an error about it
  std::string power_limit_field;
};

struct SourceSetup {
  std::string set;
  bool selective_is_per_op = false;  // torchtitan: "selective" = per-op SAC (Recompute::op_sac)
  std::string fsdp = "megatron-group";
  bool tp_comm_overlap = false;
  std::string recompute_when_null = "none";
  int sequence_when_null = 0;
  int pipeline_micro_batch = 0;
  bool micro_batches_are_pipeline_degree = false;  // a pipeline splits the local batch into p micro-batches
  int virtual_stages_when_null = 0;
  int interleaved_virtual_stages = 0;  // v of a row naming an interleaved schedule without a vp (0: unset)
  std::string flop_convention;
  std::string attention_kernel;  // empty: the architecture's default kernel
  ContextExchange context_exchange = ContextExchange::ring;
  // torchtitan's tables name torch.compile per row: a row without it ran in eager mode (false: every row is
  // taken as compiled, the model's default)
  bool compile_from_techniques = false;
};

// (gpu, model, precision, release): a moe_recipes entry; release "" = every release
using MoeRecipeKey = std::tuple<std::string, std::string, std::string, std::string>;

// What one moe_recipes entry states; a setting it leaves out is not stated.
struct MoeRecipe {
  std::optional<bool> expert_comm_overlap;  // moe_a2a_overlap: the all-to-all beside the other micro-batch
  std::optional<bool> cuda_graphs;          // the MoE router and preprocessing captured in CUDA graphs
  std::optional<bool> flex_dispatcher;      // the flex token dispatcher (HybridEP / DeepEP)
};

struct Setup {
  std::optional<PowerModelData> power_model;  // loaded when a system states a power limit
  std::map<std::string, GpuSetup> gpus;
  std::map<std::string, SystemSetup> systems;
  std::map<std::string, std::optional<TransformerModel>> models;  // empty optional: preset missing
  std::map<std::string, SourceSetup> sources;
  std::vector<PrecisionRecipe> recipes;
  std::map<std::string, std::string> recipe_of_label;  // a row's precision_label -> recipe name
  // (gpu, model, precision, source) -> what NVIDIA's performance recipe for it states; source "" = every
  // release without an entry of its own
  std::map<MoeRecipeKey, MoeRecipe> moe_recipes;
};

// A row's MoE recipe, setting by setting: the entry of the row's own release (source) where it states the
// setting, else the entry for every release.
MoeRecipe moe_recipe_for(const std::map<MoeRecipeKey, MoeRecipe>& recipes, const ReferenceRun& run) {
  MoeRecipe chosen;
  for (const std::string& release : {std::string(), run.source}) {  // the row's own entry last: it wins
    const auto entry = recipes.find({run.gpu, run.model_id, run.precision, release});
    if (entry == recipes.end()) continue;
    const MoeRecipe& stated = entry->second;
    if (stated.expert_comm_overlap) chosen.expert_comm_overlap = stated.expert_comm_overlap;
    if (stated.cuda_graphs) chosen.cuda_graphs = stated.cuda_graphs;
    if (stated.flex_dispatcher) chosen.flex_dispatcher = stated.flex_dispatcher;
  }
  return chosen;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

TransformerModel shape_of(const std::string& id, const YamlField& f) {
  TransformerModel m;
  m.name = id;
  m.source = f.child("source").text();
  m.layers = static_cast<int>(f.child("layers").positive_integer());
  m.hidden = static_cast<int>(f.child("hidden").positive_integer());
  m.heads = static_cast<int>(f.child("heads").positive_integer());
  m.kv_heads = m.heads;
  m.ffn_hidden = static_cast<int>(f.child("ffn_hidden").positive_integer());
  m.vocab = static_cast<int>(f.child("vocab").positive_integer());
  m.tied_embeddings = true;
  m.gated_mlp = false;
  m.biases = false;
  m.position_embeddings = f.child("learned_positions").boolean() ? 1 : 0;  // set to the sequence per run
  return m;
}

Setup read_setup(const std::string& path, const std::vector<TransformerModel>& presets,
                 const std::map<std::string, std::string>& sets, const GemmModel& gemm) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"hardware", "systems", "models", "sources", "precision_recipes", "moe_recipes",
                    "power_model", "torch_compile"});
  Setup setup;
  const YamlField recipes = root.child("precision_recipes");
  recipes.expect_keys({"file", "labels"});
  const std::string folder = path.find('/') == std::string::npos ? "" : path.substr(0, path.rfind('/') + 1);
  const std::string file = recipes.child("file").text();
  auto loaded = load_precision_recipes(file.rfind('/', 0) == 0 ? file : folder + file);
  if (!loaded.ok()) throw InputFailure(loaded.errors().front());
  setup.recipes = std::move(loaded).value();
  for (const YamlField& row : recipes.child("labels").items()) {
    row.expect_keys({"label", "recipe", "source"});
    const std::string recipe = row.child("recipe").text();
    if (find_recipe(setup.recipes, recipe) == nullptr)
      row.child("recipe").fail("no recipe '" + recipe + "'; known: " + recipe_names(setup.recipes));
    setup.recipe_of_label[row.child("label").text()] = recipe;
  }
  if (const auto moe = root.optional_child("moe_recipes")) {
    for (const YamlField& row : moe->items()) {
      row.expect_keys({"gpu", "model", "precisions", "releases", "expert_comm_overlap", "moe_cuda_graphs",
                       "moe_dispatcher", "source"});
      (void)row.child("source").text_or_list();  // required: the recipe file it was read in
      const auto overlap = row.optional_child("expert_comm_overlap");
      const auto graphs = row.optional_child("moe_cuda_graphs");
      if (!overlap && !graphs) row.fail("states neither expert_comm_overlap nor moe_cuda_graphs");
      std::optional<bool> flex;
      if (const auto dispatcher = row.optional_child("moe_dispatcher")) {
        const std::string name = dispatcher->text();
        if (name != "alltoall" && name != "flex")
          dispatcher->fail("must be alltoall or flex, not '" + name + "'");
        flex = name == "flex";
      }
      // releases: the training-runs.yaml sources (table releases) the entry is scoped to, when the recipe
      // changed between releases; absent: every release without an entry of its own.
      std::vector<std::string> releases;
      if (const auto scoped = row.optional_child("releases")) {
        if (scoped->items().empty()) scoped->fail("lists no release (leave it out for every release)");
        for (const YamlField& release : scoped->items()) {
          if (sets.count(release.text()) == 0)
            release.fail("no source '" + release.text() + "' in training-runs.yaml");
          releases.push_back(release.text());
        }
      }
      if (releases.empty()) releases.emplace_back();
      for (const YamlField& precision : row.child("precisions").items()) {
        for (const std::string& release : releases) {
          const MoeRecipeKey key{row.child("gpu").text(), row.child("model").text(), lower(precision.text()),
                                 release};
          if (setup.moe_recipes.count(key) > 0) {
            precision.fail(
                "listed twice for " + std::get<0>(key) + " " + std::get<1>(key) +
                (release.empty() ? std::string(" (every release)") : " (release " + release + ")"));
          }
          setup.moe_recipes.emplace(
              key, MoeRecipe{overlap ? std::optional(overlap->boolean()) : std::nullopt,
                             graphs ? std::optional(graphs->boolean()) : std::nullopt, flex});
        }
      }
    }
  }
  for (const YamlField& row : root.child("hardware").items()) {
    row.expect_keys({"gpu", "accelerator", "gpus_per_node", "nics_per_node", "nic_speed", "scale_up_domain",
                     "domain_segment", "source"});
    GpuSetup gpu{row.child("accelerator").text(),
                 static_cast<int>(row.child("gpus_per_node").positive_integer()),
                 static_cast<int>(row.child("nics_per_node").positive_integer()),
                 row.child("nic_speed").positive_quantity<DataRate>()};
    if (const auto domain = row.optional_child("scale_up_domain")) {
      gpu.scale_up_domain = static_cast<int>(domain->positive_integer());
      if (gpu.scale_up_domain < gpu.gpus_per_node || gpu.scale_up_domain % gpu.gpus_per_node != 0)
        domain->fail("a scale-up domain must hold whole nodes of " + std::to_string(gpu.gpus_per_node) +
                     " GPUs");
    }
    if (const auto segment = row.optional_child("domain_segment")) {
      gpu.domain_segment = static_cast<int>(segment->positive_integer());
      if (gpu.domain_segment > gpu.scale_up_domain || gpu.domain_segment % gpu.gpus_per_node != 0)
        segment->fail("a domain segment must be whole nodes within the scale-up domain");
    }
    setup.gpus[row.child("gpu").text()] = gpu;
  }
  for (const YamlField& row : root.child("systems").items()) {
    row.expect_keys({"system", "memory", "memory_bandwidth", "power_limit", "source"});
    SystemSetup s;
    if (const auto m = row.optional_child("memory")) s.memory = m->positive_quantity<ByteSize>();
    if (const auto b = row.optional_child("memory_bandwidth"))
      s.memory_bandwidth = b->positive_quantity<DataRate>();
    if (const auto limit = row.optional_child("power_limit")) {
      if (!setup.power_model) {
        const YamlField file = root.child("power_model");
        const std::string name = file.text();
        auto power = load_power_model(name.rfind('/', 0) == 0 ? name : folder + name);
        if (!power.ok()) throw InputFailure(power.errors().front());
        setup.power_model = std::move(power).value();
      }
      s.power_limit = limit->positive_quantity<Power>();
      s.power_limit_at = limit->location();
      s.power_limit_field = limit->path();
    }
    setup.systems[row.child("system").text()] = s;
  }
  for (const auto& [id, field] : root.child("models").entries()) {
    if (const auto preset = field.optional_child("preset")) {
      field.expect_keys({"preset"});
      const TransformerModel* found = find_model(presets, preset->text());
      if (found == nullptr) preset->fail("no preset '" + preset->text() + "' in models.yaml");
      setup.models[id] = *found;
    } else {
      field.expect_keys({"layers", "hidden", "heads", "ffn_hidden", "vocab", "learned_positions", "source"});
      setup.models[id] = shape_of(id, field);
    }
  }
  for (const YamlField& row : root.child("sources").items()) {
    row.expect_keys({"source", "fsdp", "tp_comm_overlap", "recompute_when_null", "sequence_when_null",
                     "pipeline_micro_batch", "pipeline_micro_batches", "virtual_stages_when_null",
                     "interleaved_virtual_stages", "flop_convention", "selective_means", "attention_kernel",
                     "context_parallel"});
    const std::string id = row.child("source").text();
    const auto set = sets.find(id);
    if (set == sets.end()) row.child("source").fail("no source '" + id + "' in training-runs.yaml");
    SourceSetup s;
    s.set = set->second;
    s.fsdp =
        row.child("fsdp").one_of({"megatron-flag", "megatron-group", "degree", "full-shard", "no-reshard"});
    s.tp_comm_overlap = row.child("tp_comm_overlap").boolean();
    if (const auto r = row.optional_child("recompute_when_null")) s.recompute_when_null = r->text();
    if (const auto q = row.optional_child("sequence_when_null"))
      s.sequence_when_null = static_cast<int>(q->positive_integer());
    if (const auto b = row.optional_child("pipeline_micro_batch"))
      s.pipeline_micro_batch = static_cast<int>(b->positive_integer());
    if (const auto m = row.optional_child("pipeline_micro_batches"))
      s.micro_batches_are_pipeline_degree = m->one_of({"pipeline-degree"}) == "pipeline-degree";
    if (const auto v = row.optional_child("virtual_stages_when_null"))
      s.virtual_stages_when_null = static_cast<int>(v->positive_integer());
    if (const auto v = row.optional_child("interleaved_virtual_stages"))
      s.interleaved_virtual_stages = static_cast<int>(v->positive_integer());
    if (const auto c = row.optional_child("flop_convention"))
      s.flop_convention = c->one_of({"palm", "source-formula"});
    if (const auto sel = row.optional_child("selective_means"))
      s.selective_is_per_op = sel->one_of({"megatron", "op-sac"}) == "op-sac";
    if (const auto k = row.optional_child("attention_kernel")) {
      s.attention_kernel = k->text();
      if (!gemm.has_attention_kernel(s.attention_kernel)) {
        k->fail("expected a kernel of gemm-efficiency.yaml attention.kernels (" +
                gemm.attention_kernel_names() + "), got '" + s.attention_kernel + "'");
      }
    }
    if (const auto e = row.optional_child("context_parallel")) {
      const std::string exchange = e->one_of({"ring", "all-gather", "all-gather-blocks"});
      s.context_exchange = exchange == "ring"         ? ContextExchange::ring
                           : exchange == "all-gather" ? ContextExchange::all_gather
                                                      : ContextExchange::all_gather_blocks;
    }
    setup.sources[id] = s;
  }
  if (const auto compile = root.optional_child("torch_compile")) {
    compile->expect_keys({"from_techniques", "source"});
    (void)compile->child("source").text_or_list();  // required: where the tables say it
    for (const YamlField& id : compile->child("from_techniques").items()) {
      const auto found = setup.sources.find(id.text());
      if (found == setup.sources.end()) id.fail("no source '" + id.text() + "' under sources");
      found->second.compile_from_techniques = true;
    }
  }
  return setup;
}

std::optional<int> integer_field(const YamlField& row, const char* key) {
  const auto f = row.optional_child(key);
  if (!f || !f->is_scalar()) return std::nullopt;
  return static_cast<int>(f->positive_integer());
}

std::optional<double> number_field(const YamlField& row, const char* key) {
  const auto f = row.optional_child(key);
  if (!f) return std::nullopt;
  return f->positive_number();
}

struct SamplesPerSecond {
  double value = 0;
  bool derived = false;
};

// A row's samples per second of the whole job: as the source prints it (`samples_per_s`), else arithmetic on
// printed figures kept under `derived` (e.g. an MLPerf log's block samples over its block time).
std::optional<SamplesPerSecond> samples_per_second(const YamlField& row) {
  if (const auto printed = number_field(row, "samples_per_s")) return SamplesPerSecond{*printed, false};
  const auto derived = row.optional_child("derived");
  if (!derived || !derived->is_map()) return std::nullopt;
  if (const auto value = number_field(*derived, "samples_per_s")) return SamplesPerSecond{*value, true};
  return std::nullopt;
}

// Tokens per second per GPU derived from printed figures (e.g. a published TFLOP/s over the FLOPs per token
// of the source's own formula), kept under `derived` with its formula.
std::optional<double> derived_tokens_per_s_per_gpu(const YamlField& row) {
  const auto derived = row.optional_child("derived");
  if (!derived || !derived->is_map()) return std::nullopt;
  return number_field(*derived, "tokens_per_s_per_gpu");
}

std::string text_field(const YamlField& row, const char* key) {
  const auto f = row.optional_child(key);
  return f && f->is_scalar() ? f->text() : std::string();
}

// Model chunks per pipeline rank of a row that does not publish vp: the source's default for a row whose
// pp_schedule names an interleaved schedule (torchtitan: 2 stages per rank when no split points are given),
// else the source's default for every pipelined row, else 1.
int virtual_stages_when_null(const SourceSetup& s, const YamlField& row, int pp) {
  if (pp <= 1) return 1;
  const std::string schedule = text_field(row, "pp_schedule");
  const bool interleaved = lower(schedule).rfind("interleaved", 0) == 0;
  if (interleaved && s.interleaved_virtual_stages > 0) return s.interleaved_virtual_stages;
  return std::max(1, s.virtual_stages_when_null);
}

int zero_stage(const SourceSetup& s, const YamlField& row) {
  const std::string fsdp = text_field(row, "fsdp");
  if (s.fsdp == "full-shard" || s.fsdp == "degree") return 3;
  if (s.fsdp == "no-reshard") return 1;  // parameters gathered once per step: the traffic of ZeRO-1
  return fsdp.empty() || fsdp == "0" ? 1 : 3;
}

std::optional<Recompute> recompute_of(const std::string& text, const SourceSetup& s) {
  const std::string r = lower(text.empty() ? s.recompute_when_null : text);
  if (r == "on" || r.rfind("full", 0) == 0) return Recompute::full;  // llm-foundry "True": full checkpointing
  if (r.rfind("selective", 0) == 0) return s.selective_is_per_op ? Recompute::op_sac : Recompute::selective;
  if (r == "none") return Recompute::none;
  return std::nullopt;
}

// PaLM's model FLOPs per token (Chowdhery et al., Appendix B): 6 N + 12 l h s.
double palm_flops_per_token(const TransformerModel& m, int sequence) {
  return 6 * m.parameters() + 12.0 * m.layers * m.hidden * sequence;
}

PerfHardware hardware_of(const Catalog& catalog, const GpuSetup& g, const std::optional<SystemSetup>& system,
                         const std::optional<PowerModelData>& power_model, int gpus) {
  auto base = perf_hardware_of_accelerator(catalog, g.accelerator, g.gpus_per_node);
  if (!base.ok()) throw InputFailure(base.errors().front());
  PerfHardware hw = base.value();
  hw.nodes = std::max(1, (gpus + g.gpus_per_node - 1) / g.gpus_per_node);
  if (g.scale_up_domain > 0) hw.scale_up_domain = g.scale_up_domain;  // NVLink across trays (NVL72)
  hw.domain_segment = g.domain_segment;
  hw.nics_per_node = g.nics_per_node;
  hw.nic_speed = g.nic_speed;
  hw.fabric_tiers = hw.nodes > 1 ? 2 : 0;  // a non-blocking two-tier fat tree (assumed, as perf size does)
  hw.oversubscription = 1;
  if (system && system->memory) hw.accelerator.memory = *system->memory;
  if (system && system->memory_bandwidth) hw.accelerator.memory_bandwidth = *system->memory_bandwidth;
  if (system && system->power_limit) {
    // The power model's operating point under the limit: GEMM-bound phases lose clock (the dense peaks
    // scale), memory-bound ones keep theirs while their draw stays under the limit.
    auto point = power_operating_point(power_model.value(), hw.accelerator, *system->power_limit);
    if (!point.ok())
      throw InputFailure(InputError{system->power_limit_at, system->power_limit_field, point.error_text()});
    hw = capped_hardware(hw, point.value());
  }
  return hw;
}

}  // namespace

bool names_async_tp(const ReferenceRun& run) {
  return lower(run.techniques).find("async") != std::string::npos;
}

namespace {

ReferenceRun read_run(const YamlField& row, const Setup& setup, const Catalog& catalog) {
  ReferenceRun run;
  run.id = row.child("id").text();
  run.source = row.child("source").text();
  const auto source = setup.sources.find(run.source);
  if (source == setup.sources.end())
    row.child("source").fail("source '" + run.source + "' has no setup entry");
  const SourceSetup& s = source->second;
  run.set = s.set;
  run.gpu = row.child("gpu").text();
  run.model_id = row.child("model").text();
  run.gpus = static_cast<int>(row.child("gpus").positive_integer());
  run.precision = lower(row.child("precision").text());
  run.techniques = text_field(row, "techniques");
  auto fail = [&](std::string why) {
    run.why_not = std::move(why);
    return run;
  };
  if (const auto t = number_field(row, "tokens_per_s_per_gpu")) {
    run.published_tokens_per_s_per_gpu = *t;
    run.compared_on = "tokens/s/GPU";
  }
  const auto model = setup.models.find(run.model_id);
  if (model == setup.models.end()) return fail("no shape for '" + run.model_id + "' (no preset)");
  run.model = *model->second;
  const auto gpu = setup.gpus.find(run.gpu);
  if (gpu == setup.gpus.end()) return fail("no hardware setup for " + run.gpu);
  const auto system = setup.systems.find(text_field(row, "system"));
  run.hardware = hardware_of(catalog, gpu->second,
                             system == setup.systems.end() ? std::nullopt : std::optional(system->second),
                             setup.power_model, run.gpus);
  TrainingConfig& c = run.config;
  const auto tp = integer_field(row, "tp"), pp = integer_field(row, "pp");
  if (!tp || !pp) return fail("parallel split not published");
  c.tp = *tp;
  c.pp = *pp;
  c.cp = integer_field(row, "cp").value_or(1);
  c.ep = integer_field(row, "ep").value_or(1);
  const int sequence = integer_field(row, "seq").value_or(s.sequence_when_null);
  if (sequence <= 0) return fail("sequence length not published");
  c.sequence = sequence;
  if (run.model.position_embeddings > 0) run.model.position_embeddings = sequence;
  c.dp = run.gpus / (c.tp * c.pp * c.cp);
  const auto mbs = integer_field(row, "mbs");
  const auto gbs = integer_field(row, "gbs");
  const auto per_dp = integer_field(row, "batch_per_dp");
  const int local_batch = mbs.value_or(per_dp.value_or(0));
  if (gbs) {
    c.global_batch = *gbs;
  } else if (per_dp) {
    c.global_batch = *per_dp * c.dp;
  } else if (mbs) {
    c.global_batch = *mbs * c.dp;
  } else {
    return fail("batch not published");
  }
  c.micro_batch =
      s.pipeline_micro_batch > 0 && (c.pp > 1 || !mbs) ? s.pipeline_micro_batch : std::max(1, local_batch);
  c.virtual_stages = integer_field(row, "vp").value_or(virtual_stages_when_null(s, row, c.pp));
  if (c.pp == 1) c.virtual_stages = 1;
  if (s.micro_batches_are_pipeline_degree && c.pp > 1 && local_batch > 0)
    c.micro_batch = std::max(1, local_batch / c.pp);
  c.zero = zero_stage(s, row);
  if (c.zero == 3 && (c.pp > 1)) c.zero = 1;  // FSDP with pipelines keeps parameters gathered (torchtitan)
  const auto recompute = recompute_of(text_field(row, "recompute"), s);
  if (!recompute) return fail("recomputation '" + text_field(row, "recompute") + "' not understood");
  c.recompute = *recompute;
  c.sequence_parallel = c.tp > 1;
  c.attention = Attention::flash;
  c.attention_kernel = s.attention_kernel;
  c.context_exchange = s.context_exchange;
  const auto label = setup.recipe_of_label.find(text_field(row, "precision_label"));
  const std::string recipe_name = label != setup.recipe_of_label.end() ? label->second : run.precision;
  const PrecisionRecipe* recipe = find_recipe(setup.recipes, recipe_name);
  if (recipe == nullptr) return fail("no precision recipe '" + recipe_name + "'");
  apply_recipe(*recipe, c);
  // A source's own overlap (Megatron's userbuffers) or the row's "async TP" (torchtitan: PyTorch's
  // micro-pipelined fused ops under torch.compile).
  const bool async_tp = names_async_tp(run);
  c.tp_comm_overlap = c.tp > 1 && (s.tp_comm_overlap || async_tp);
  c.tp_comm_micro_pipelined = c.tp_comm_overlap && !s.tp_comm_overlap;
  c.overlap_data_parallel = true;
  c.compiled = !s.compile_from_techniques || lower(run.techniques).find("torch.compile") != std::string::npos;
  const MoeRecipe moe = moe_recipe_for(setup.moe_recipes, run);
  if (moe.expert_comm_overlap) c.expert_comm_overlap = c.ep > 1 && *moe.expert_comm_overlap;
  if (moe.cuda_graphs) c.moe_cuda_graphs = run.model.is_moe() && *moe.cuda_graphs;
  if (moe.flex_dispatcher) c.expert_dispatch_dedup = run.model.is_moe() && *moe.flex_dispatcher;
  if (c.ep > 1 && (!run.model.is_moe() || run.model.moe.experts % c.ep != 0))
    return fail("expert parallelism " + std::to_string(c.ep) + " does not divide the experts");
  const std::vector<std::string> problems = check_training_config(run.model, c, run.gpus);
  if (!problems.empty()) return fail("split not valid: " + problems.front());
  if (run.published_tokens_per_s_per_gpu <= 0) {
    if (const auto samples = samples_per_second(row)) {
      // MLPerf logs count samples (sequences of c.sequence tokens) per second of the whole job.
      run.published_tokens_per_s_per_gpu = samples->value * c.sequence / run.gpus;
      run.compared_on = samples->derived ? "samples/s (derived from the log's block times) x seq / GPUs"
                                         : "samples/s x seq / GPUs";
    }
  }
  if (run.published_tokens_per_s_per_gpu <= 0 && s.flop_convention == "source-formula") {
    // The source's own FLOPs-per-token formula, applied in the data (derived, with its formula).
    const auto tokens = derived_tokens_per_s_per_gpu(row);
    if (!tokens) return fail("flop_convention source-formula but no derived tokens_per_s_per_gpu");
    run.published_tokens_per_s_per_gpu = *tokens;
    run.compared_on = "TFLOP/s/GPU over the source's FLOPs per token (derived)";
  }
  if (run.published_tokens_per_s_per_gpu <= 0) {
    const auto tflops = number_field(row, "model_tflops_per_gpu");
    if (!tflops || s.flop_convention != "palm")
      return fail("no tokens/s and no convertible TFLOP/s (e.g. whole-run GPU-hours only)");
    run.published_tokens_per_s_per_gpu = *tflops * 1e12 / palm_flops_per_token(run.model, c.sequence);
    run.compared_on = "TFLOP/s/GPU (PaLM convention)";
  }
  run.predictable = true;
  return run;
}

std::vector<ReferenceRun> read_runs(const Catalog& catalog, const GemmModel& gemm,
                                    const std::vector<TransformerModel>& presets,
                                    const std::string& runs_path, const std::string& setup_path) {
  const YamlField root = YamlDocument::load(runs_path).root();
  std::map<std::string, std::string> sets;
  for (const YamlField& source : root.child("sources").items())
    sets[source.child("id").text()] = source.child("set").one_of({"fit", "evaluation"});
  const Setup setup = read_setup(setup_path, presets, sets, gemm);
  std::vector<ReferenceRun> runs;
  for (const YamlField& row : root.child("runs").items()) runs.push_back(read_run(row, setup, catalog));
  return runs;
}

double mean_abs_error(const std::vector<ReferencePrediction>& rows) {
  double sum = 0;
  for (const auto& r : rows) sum += std::abs(r.error);
  return rows.empty() ? 0 : sum / rows.size();
}

// The grid the stored fractions come from: 0.300 .. 1.000, step 0.005.
template <class Error>
double best_fraction(Error error_at) {
  double best = 0, best_error = std::numeric_limits<double>::infinity();
  for (int i = 60; i <= 200; ++i) {
    const double fraction = i * 0.005;
    const double e = error_at(fraction);
    if (e < best_error - 1e-12) {
      best_error = e;
      best = fraction;
    }
  }
  return best;
}

}  // namespace

double best_moe_host_wait(const std::function<double(double)>& error_at) {
  double best = 0, best_error = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= kMoeHostWaitSteps; ++i) {
    const double wait = i * kMoeHostWaitStep_s;
    const double e = error_at(wait);
    if (e < best_error - 1e-12) {
      best_error = e;
      best = wait;
    }
  }
  return best;
}

Result<std::vector<ReferenceRun>> load_reference_runs(const Catalog& catalog, const GemmModel& gemm,
                                                      const std::vector<TransformerModel>& presets,
                                                      const std::string& runs_path,
                                                      const std::string& setup_path) {
  return result_of<std::vector<ReferenceRun>>(
      [&] { return read_runs(catalog, gemm, presets, runs_path, setup_path); });
}

Result<std::vector<KnownGap>> load_known_gaps(const std::string& path,
                                              const std::vector<ReferenceRun>& runs) {
  return result_of<std::vector<KnownGap>>([&] {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"gaps"});
    std::vector<KnownGap> gaps;
    std::map<std::string, std::string> gap_of_row;
    for (const YamlField& entry : root.child("gaps").items()) {
      entry.expect_keys({"id", "rows", "reason"});
      KnownGap gap{entry.child("id").text(), {}, entry.child("reason").text()};
      for (const YamlField& row : entry.child("rows").items()) {
        const std::string id = row.text();
        const bool known = std::any_of(runs.begin(), runs.end(), [&](const auto& r) { return r.id == id; });
        if (!known) row.fail("no row '" + id + "' in the training runs");
        if (const auto twice = gap_of_row.find(id); twice != gap_of_row.end())
          row.fail("row '" + id + "' is already under gap '" + twice->second + "'");
        gap_of_row[id] = gap.id;
        gap.rows.push_back(id);
      }
      if (gap.rows.empty()) entry.child("rows").fail("names no row");
      gaps.push_back(std::move(gap));
    }
    return gaps;
  });
}

const KnownGap* known_gap_of(const std::vector<KnownGap>& gaps, const std::string& run_id) {
  for (const KnownGap& gap : gaps) {
    if (std::find(gap.rows.begin(), gap.rows.end(), run_id) != gap.rows.end()) return &gap;
  }
  return nullptr;
}

std::vector<ReferencePrediction> predict_reference_runs(const CollectiveModel& collectives,
                                                        const TrainingCalibration& calibration,
                                                        const std::vector<ReferenceRun>& runs) {
  std::vector<ReferencePrediction> rows;
  for (const ReferenceRun& run : runs) {
    ReferencePrediction row{run, {}, 0, 0};
    if (run.predictable) {
      row.estimate = estimate_training(run.hardware, collectives, calibration, run.model, run.config);
      row.predicted_tokens_per_s_per_gpu = row.estimate.tokens_per_second / run.gpus;
      row.error = row.predicted_tokens_per_s_per_gpu / run.published_tokens_per_s_per_gpu - 1;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string gemm_architecture_of(const TrainingCalibration& calibration, const ReferenceRun& run) {
  const GemmArchitecture* a = calibration.gemm.architecture_of(run.hardware.accelerator);
  return a == nullptr ? std::string() : a->name;
}

ValidationSummary summarize_set(const std::vector<ReferencePrediction>& rows, const std::string& set,
                                const std::string& architecture) {
  ValidationSummary summary;
  for (const auto& row : rows) {
    if (!row.run.predictable || row.run.set != set) continue;
    if (!architecture.empty() && row.estimate.efficiency_rule.rfind(architecture + " (", 0) != 0) continue;
    ++summary.rows;
    summary.mean_abs_error += std::abs(row.error);
    summary.max_abs_error = std::max(summary.max_abs_error, std::abs(row.error));
  }
  if (summary.rows > 0) summary.mean_abs_error /= summary.rows;
  return summary;
}

Result<TrainingCalibration> fit_gemm_calibration(const Catalog& catalog, const CollectiveModel& collectives,
                                                 const TrainingCalibration& calibration,
                                                 const std::vector<ReferenceRun>& runs,
                                                 const std::vector<PublishedRun>& a100) {
  TrainingCalibration fitted = calibration;
  std::string failure;
  const double ampere = best_fraction([&](double fraction) {
    TrainingCalibration trial = calibration;
    trial.gemm.set_peak_fraction("ampere", fraction);
    const auto rows = predict_runs(catalog, collectives, trial, a100);
    if (!rows.ok()) {
      failure = rows.error_text();
      return std::numeric_limits<double>::infinity();
    }
    double sum = 0;
    for (const auto& r : rows.value()) sum += std::abs(r.error);
    return sum / static_cast<double>(rows.value().size());
  });
  if (!failure.empty()) return InputErrors{InputError{{}, "a100", failure}};
  if (!a100.empty()) fitted.gemm.set_peak_fraction("ampere", ampere);
  for (const GemmArchitecture& a : calibration.gemm.architectures()) {
    if (a.name == "ampere") continue;
    std::vector<ReferenceRun> points;
    for (const ReferenceRun& run : runs) {
      // Dense rows only: the MoE rows are predicted and reported, not fitted on (their grouped GEMMs of small
      // experts are slower than the GEMM model says; one fraction cannot serve both).
      if (run.predictable && run.set == "fit" && !run.model.is_moe() &&
          gemm_architecture_of(calibration, run) == a.name)
        points.push_back(run);
    }
    if (points.empty()) continue;
    const double best = best_fraction([&](double fraction) {
      TrainingCalibration trial = calibration;
      trial.gemm.set_peak_fraction(a.name, fraction);
      return mean_abs_error(predict_reference_runs(collectives, trial, points));
    });
    fitted.gemm.set_peak_fraction(a.name, best);
  }
  // Then the host time per MoE layer and forward pass, on the MoE fit rows with the fractions just fitted
  // (the dense rows do not read it), on the host-wait grid (best_moe_host_wait); one value for the recipes
  // that launch the layer kernel by kernel, one for those that capture the router and preprocessing in CUDA
  // graphs, each on its own rows (a row reads only one of them).
  auto fit_host_wait = [&](bool graphed, double TrainingCalibration::*wait) {
    std::vector<ReferenceRun> points;
    for (const ReferenceRun& run : runs) {
      if (run.predictable && run.set == "fit" && run.model.is_moe() && run.config.moe_cuda_graphs == graphed)
        points.push_back(run);
    }
    if (points.empty()) return;
    fitted.*wait = best_moe_host_wait([&](double value) {
      TrainingCalibration trial = fitted;
      trial.*wait = value;
      return mean_abs_error(predict_reference_runs(collectives, trial, points));
    });
  };
  fit_host_wait(false, &TrainingCalibration::moe_layer_host_s);
  fit_host_wait(true, &TrainingCalibration::moe_layer_host_graphed_s);
  fitted.source = "fit_gemm_calibration on the fit set (training-runs.yaml set: fit) and the A100 tables";
  return fitted;
}

namespace {

// The benchmark's setup on the fit set's hardware of that GPU and GPU count; `recipe_rate` the recipe's GEMM
// rate (1 = the per-tensor recipe of the same precision).
Result<double> benchmark_step_s(const CollectiveModel& collectives, const TrainingCalibration& calibration,
                                const std::vector<ReferenceRun>& runs,
                                const std::vector<TransformerModel>& presets, const PrecisionRecipe& recipe,
                                double recipe_rate) {
  const auto& b = *recipe.rate_benchmark;
  const ReferenceRun* host = nullptr;
  for (const ReferenceRun& run : runs) {
    if (run.predictable && run.set == "fit" && run.gpu == b.gpu && run.gpus == b.gpus) {
      host = &run;
      break;
    }
  }
  if (host == nullptr)
    return InputErrors{
        InputError{{}, "benchmark", "no fit row on " + std::to_string(b.gpus) + " x " + b.gpu}};
  const auto model = std::find_if(presets.begin(), presets.end(),
                                  [&](const TransformerModel& m) { return m.name == b.model; });
  if (model == presets.end()) return InputErrors{InputError{{}, "benchmark", "no model preset " + b.model}};
  TrainingConfig c;
  c.tp = c.pp = c.cp = c.ep = 1;
  c.dp = b.gpus;
  c.micro_batch = b.micro_batch;
  c.global_batch = b.micro_batch * b.gpus;
  c.sequence = b.sequence;
  c.zero = b.zero;
  c.recompute = *recompute_from_name(b.recompute);
  c.attention_kernel = b.attention_kernel;
  c.precision = recipe.gemm;
  c.gemm_rate = recipe_rate;
  const TrainingEstimate e = estimate_training(host->hardware, collectives, calibration, *model, c);
  if (!std::isfinite(e.step_time_s)) return InputErrors{InputError{{}, "benchmark", e.efficiency_rule}};
  return e.step_time_s;
}

}  // namespace

Result<double> recipe_step_ratio(const CollectiveModel& collectives, const TrainingCalibration& calibration,
                                 const std::vector<ReferenceRun>& runs,
                                 const std::vector<TransformerModel>& presets, const PrecisionRecipe& recipe,
                                 double gemm_rate) {
  if (!recipe.rate_benchmark)
    return InputErrors{InputError{{}, "gemm_rate", "recipe " + recipe.name + " has no benchmark"}};
  const auto per_tensor = benchmark_step_s(collectives, calibration, runs, presets, recipe, 1.0);
  const auto with_recipe = benchmark_step_s(collectives, calibration, runs, presets, recipe, gemm_rate);
  if (!per_tensor.ok()) return per_tensor;
  if (!with_recipe.ok()) return with_recipe;
  return with_recipe.value() / per_tensor.value();
}

Result<double> fit_recipe_gemm_rate(const CollectiveModel& collectives,
                                    const TrainingCalibration& calibration,
                                    const std::vector<ReferenceRun>& runs,
                                    const std::vector<TransformerModel>& presets,
                                    const PrecisionRecipe& recipe) {
  if (!recipe.rate_benchmark)
    return InputErrors{InputError{{}, "gemm_rate", "recipe " + recipe.name + " has no benchmark"}};
  double best = 1, best_error = std::numeric_limits<double>::infinity();
  for (int i = 60; i <= 200; ++i) {
    const auto ratio = recipe_step_ratio(collectives, calibration, runs, presets, recipe, i * 0.005);
    if (!ratio.ok()) return ratio;
    const double e = std::abs(ratio.value() - recipe.rate_benchmark->published_step_ratio);
    if (e < best_error - 1e-12) {
      best_error = e;
      best = i * 0.005;
    }
  }
  return best;
}

}  // namespace gputwin
