// The memory model against published runs (data/reference/training-runs.yaml): every fit-set run that ran is
// judged to fit, and every published per-GPU memory figure is printed with the model's error; a row more than
// 10 % off must carry a stated reason why the model cannot explain it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::model_presets;
using testing::source_path;

const YAML::Node& runs() {
  static const YAML::Node file = YAML::LoadFile(source_path("data/reference/training-runs.yaml"));
  return file;
}

std::map<std::string, std::string> source_sets() {
  std::map<std::string, std::string> sets;
  for (const auto& source : runs()["sources"])
    sets[source["id"].as<std::string>()] = source["set"].as<std::string>();
  return sets;
}

int field(const YAML::Node& row, const char* name, int otherwise) {
  return row[name] && !row[name].IsNull() && row[name].IsScalar() ? row[name].as<int>() : otherwise;
}

// FSDP as a degree (Megatron-Bridge: `fsdp: 256`; any degree shards parameters) or as PyTorch's sharding
// (AMD's rows: "FULL_SHARD"; parameters kept gathered after forward hold weights whole: ZeRO-2's memory).
int zero_stage_of(const YAML::Node& row) {
  const YAML::Node fsdp = row["fsdp"];
  if (!fsdp || fsdp.IsNull() || !fsdp.IsScalar()) return 1;
  const std::string text = fsdp.as<std::string>();
  if (text == "FULL_SHARD") return 3;
  if (text.find("not resharded") != std::string::npos) return 2;
  return field(row, "fsdp", 0) > 0 ? 3 : 1;
}

// The catalog accelerator of a row's GPU; empty when the catalog has none.
std::string accelerator_of(const std::string& gpu) {
  static const std::map<std::string, std::string> ids{
      {"H100", "h100-sxm"}, {"H200", "h200-sxm"}, {"B200", "b200"},     {"GB200", "gb200"},  {"B300", "b300"},
      {"GB300", "gb300"},   {"MI300X", "mi300x"}, {"MI325X", "mi325x"}, {"MI355X", "mi355x"}};
  const auto it = ids.find(gpu);
  return it == ids.end() ? "" : it->second;
}

// Megatron-Bridge / NeMo rows: dp = gpus / (t p c), the distributed optimizer (ZeRO-1) or Megatron FSDP
// (ZeRO-3), bf16 gradient buffers (the performance recipes set grad_reduce_in_fp32 = False). The sources do
// not publish recomputation: the row's run fits when one of none, selective, full does (the recipe chose
// one); the table prints the least that fits.
TrainingConfig megatron_config(const YAML::Node& row, const MemoryReserve& data, ByteSize capacity) {
  TrainingConfig c;
  c.tp = field(row, "tp", 1);
  c.pp = field(row, "pp", 1);
  c.cp = field(row, "cp", 1);
  c.virtual_stages = field(row, "vp", 1);
  c.micro_batch = field(row, "mbs", 1);
  c.global_batch = field(row, "gbs", 0);
  c.sequence = field(row, "seq", 0);
  c.dp = field(row, "gpus", 0) / c.model_parallel();
  c.zero = zero_stage_of(row);
  c.gradient_bytes = 2;
  c.memory_reserve = data.per_gpu(capacity);
  c.fsdp_blocks = data.fsdp_blocks;
  return c;
}

TEST(MemoryOfPublishedRuns, EveryFitSetDenseRunFits) {
  const auto sets = source_sets();
  const MemoryReserve reserve = load_memory_reserve(source_path("data/perf/memory.yaml")).value();
  const Catalog& catalog = testing::perf_setup().catalog;
  int checked = 0, moe_rows = 0, moe_fitting = 0;
  std::printf("%-44s %8s %8s  %s\n", "fit-set run", "GB", "of GB", "verdict");
  for (const auto& row : runs()["runs"]) {
    if (sets.at(row["source"].as<std::string>()) != "fit") continue;
    const std::string id = row["id"].as<std::string>();
    const TransformerModel* model = find_model(model_presets(), row["model"].as<std::string>());
    const std::string gpu = accelerator_of(row["gpu"].as<std::string>());
    if (model == nullptr || gpu.empty()) {
      std::printf("%-44s %8s %8s  skipped: %s\n", id.c_str(), "-", "-",
                  model == nullptr ? "no preset shape" : "GPU not in the catalog");
      continue;
    }
    const ByteSize capacity = catalog.get<Accelerator>(gpu).memory;
    TrainingConfig c = megatron_config(row, reserve, capacity);
    c.ep = field(row, "ep", 1);
    const auto problems = check_training_config(*model, c, field(row, "gpus", 0));
    ASSERT_TRUE(problems.empty()) << id << ": " << problems.front();
    std::vector<Recompute> choices{Recompute::none, Recompute::selective, Recompute::full};
    if (!row["recompute"].IsNull()) choices = {*recompute_from_name(row["recompute"].as<std::string>())};
    MemoryFootprint m;
    for (Recompute choice : choices) {
      c.recompute = choice;
      m = training_memory(*model, c, capacity);
      if (m.fits()) break;
    }
    std::printf("%-44s %8.1f %8.1f  %s\n", id.c_str(), in_gigabytes(m.total()), in_gigabytes(capacity),
                m.fits() ? ("fits with recompute " + std::string(recompute_name(c.recompute))).c_str()
                         : "OUT OF MEMORY");
    if (model->is_moe()) {
      // MoE rows: latent attention's own activation count, expert load imbalance and the dispatch buffers
      // are not modelled; the rows fit nonetheless and are held to it.
      ++moe_rows;
      moe_fitting += m.fits() ? 1 : 0;
    }
    EXPECT_TRUE(m.fits()) << id << ": " << in_gigabytes(m.total()) << " of " << in_gigabytes(capacity)
                          << " GB";
    ++checked;
  }
  std::printf("rows asserted: %d, of which MoE: %d (judged to fit: %d)\n", checked, moe_rows, moe_fitting);
  EXPECT_GE(checked, 118) << "every fit row with a preset and a catalog GPU, B300, GB300 and AMD among them";
}

// torchtitan's published peak memory per GPU (GiB, the caching allocator's peak reserved memory: no CUDA
// context or NCCL buffers, so the model's memory without the reserve is compared). FSDP (ZeRO-3, fp32
// gradients), the local batch as micro-batch (pipelined rows: torchtitan's default of as many pipeline
// micro-batches as stages), sequence 8192 where the page prints none (torchtitan's Llama 3 train configs'
// seq_len; stated, not read in the row).
TEST(MemoryOfPublishedRuns, PublishedPerGpuMemoryWithErrors) {
  const FsdpLiveBlocks fsdp_blocks =
      load_memory_reserve(source_path("data/perf/memory.yaml")).value().fsdp_blocks;
  int within = 0, explained_otherwise = 0;
  std::printf("%-44s %9s %9s %7s  %s\n", "published run", "GiB pub", "GiB model", "error",
              "why not explained");
  for (const auto& row : runs()["runs"]) {
    if (!row["memory_gib_per_gpu"]) continue;
    const std::string id = row["id"].as<std::string>();
    const TransformerModel* model = find_model(model_presets(), row["model"].as<std::string>());
    ASSERT_NE(model, nullptr) << id;
    TrainingConfig c;
    c.tp = field(row, "tp", 1);
    c.pp = field(row, "pp", 1);
    c.cp = field(row, "cp", 1);
    const int gpus = field(row, "gpus", 0);
    c.dp = field(row, "fsdp", gpus / c.model_parallel());
    const int local_batch = field(row, "mbs", 1);
    c.micro_batch = c.pp > 1 ? std::max(1, local_batch / c.pp) : local_batch;
    c.global_batch = local_batch * c.dp;
    c.sequence = field(row, "seq", 8192);
    c.zero = 3;
    c.fsdp_blocks = fsdp_blocks;
    c.gradient_bytes = 4;
    const std::string recompute = row["recompute"].IsNull() ? "none" : row["recompute"].as<std::string>();
    c.recompute = recompute_from_name(recompute).value_or(Recompute::selective);
    const double published = row["memory_gib_per_gpu"].as<double>();
    const double modelled = training_memory(*model, c, gigabytes(96)).total().base() / (1024.0 * 1024 * 1024);
    const double error = modelled / published - 1;
    // Why a row may be beyond the model (rules on the row's published fields, not on its error).
    std::string reason;
    const std::string techniques = row["techniques"] ? row["techniques"].as<std::string>() : "";
    if (row["tp"].IsNull()) {
      reason = "split not published (train config file not read)";
    } else if (recompute == "selective") {
      reason =
          "torchtitan's op-level selective AC keeps a subset of matmul outputs; not Korthikanti's selective";
    } else if (c.pp > 1) {
      reason = "pipeline micro-batch size and schedule memory not published";
    } else if (published > 0.85 * 89.4) {
      reason = "peak reserved near the 96 GB GPU's capacity: the caching allocator grows into free memory";
    } else if (techniques.find("torch.compile") != std::string::npos && error > 0) {
      reason = "torch.compile fuses and frees activations the eager count keeps";
    } else if (error < 0) {
      // Said as what it is: no mechanism on the row's fields explains a model below the published peak.
      reason = "NOT EXPLAINED: the model counts less than the published peak reserved memory";
    }
    std::printf("%-44s %9.1f %9.1f %+6.1f%%  %s\n", id.c_str(), published, modelled, 100 * error,
                std::abs(error) <= 0.10 ? "" : reason.c_str());
    if (std::abs(error) <= 0.10) {
      ++within;
    } else {
      EXPECT_FALSE(reason.empty()) << id << ": " << 100 * error << " % and no stated reason";
      ++explained_otherwise;
    }
  }
  std::printf("within 10 %%: %d rows; beyond, with a stated reason: %d rows\n", within, explained_otherwise);
  EXPECT_GT(within + explained_otherwise, 15);
}

}  // namespace
}  // namespace gputwin
