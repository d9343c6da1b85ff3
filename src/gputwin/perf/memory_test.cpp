#include "gputwin/perf/memory.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::megatron_gpt;
using testing::model_presets;
using testing::training_reference;

double rounded(double value, int decimals) {
  const double factor = std::pow(10.0, decimals);
  return std::round(value * factor) / factor;
}

TEST(Memory, ZeroPaperExampleExactlyAsPublished) {
  const YAML::Node example = training_reference()["zero_example"];
  const double parameters = example["parameters_billion"].as<double>() * 1e9;
  const int dp = example["data_parallel"].as<int>();
  const char* stages[] = {"zero_0", "zero_1", "zero_2", "zero_3"};
  for (int stage = 0; stage < 4; ++stage) {
    const std::string printed = example["gb"][stages[stage]].as<std::string>();
    const int decimals = printed.find('.') == std::string::npos ? 0 : 1;
    const double gb = model_state_bytes(stage, /*fp16 gradients*/ 2, dp).total() * parameters / 1e9;
    EXPECT_DOUBLE_EQ(rounded(gb, decimals), std::stod(printed)) << stages[stage];
  }
}

TEST(Memory, MegatronBytesPerParameter) {
  EXPECT_DOUBLE_EQ(model_state_bytes(0, 4, 1).total(), 18);
  for (int d : {1, 2, 8, 64}) EXPECT_DOUBLE_EQ(model_state_bytes(1, 4, d).total(), 6 + 12.0 / d) << d;
}

// Korthikanti et al. Table 2 for a GPT layer, written out as published.
TEST(Memory, ActivationsPerLayerFollowKorthikantiTable2) {
  const TransformerModel gpt = megatron_gpt(96, 12288, 96, 51200, 2048);
  const double s = 2048, b = 2, h = 12288, a = 96, t = 8;
  TrainingConfig c;
  c.sequence = 2048;
  c.micro_batch = 2;
  c.attention = Attention::unfused;
  auto with = [&](int tp, bool sp, Recompute recompute) {
    c.tp = tp;
    c.sequence_parallel = sp;
    c.recompute = recompute;
    return activation_bytes_per_layer(gpt, c);
  };
  EXPECT_DOUBLE_EQ(with(1, false, Recompute::none), s * b * h * (34 + 5 * a * s / h));
  EXPECT_DOUBLE_EQ(with(8, false, Recompute::none), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)));
  EXPECT_DOUBLE_EQ(with(8, true, Recompute::none), s * b * h / t * (34 + 5 * a * s / h));
  EXPECT_DOUBLE_EQ(with(8, false, Recompute::selective), s * b * h * (10 + 24 / t));
  EXPECT_DOUBLE_EQ(with(8, true, Recompute::selective), s * b * h * 34 / t);
  EXPECT_DOUBLE_EQ(with(8, false, Recompute::full), s * b * h * 2);
}

TEST(Memory, FlashAttentionDropsTheScoresAndGatedMlpGrowsTheMlpPart) {
  TransformerModel gpt = megatron_gpt(32, 4096, 32, 51200, 2048);
  TrainingConfig c;
  c.tp = 1;
  c.recompute = Recompute::none;
  c.attention = Attention::flash;
  const double sbh = 2048.0 * 1 * 4096;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(gpt, c), 34 * sbh);
  gpt.gated_mlp = true;
  // Gated: the fused SwiGLU's input (2 ffn) and output (1 ffn) at 2 bytes: 24 instead of 16 for ffn = 4h; a
  // Llama-style model trains without dropout: no 2 x 1-byte masks.
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(gpt, c), (34 - 16 + 24 - 2) * sbh);
}

// Calculon's targets for the 22B model of Korthikanti Table 5 (t = 8, b = 4, one pipeline stage).
TEST(Memory, ReproducesCalculon22BActivationTargets) {
  const YAML::Node targets = training_reference()["calculon_memory_targets"];
  const TransformerModel model = megatron_gpt(48, 6144, 64, 51200, 2048);
  TrainingConfig c;
  c.sequence = 2048;
  c.global_batch = 4;
  c.micro_batch = 4;
  c.tp = 8;
  c.dp = 1;
  c.attention = Attention::unfused;
  c.recompute = Recompute::none;
  c.sequence_parallel = false;
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(rounded(training_memory(model, c, gigabytes(80)).activations.base() / kGiB, 2),
                   targets["activations_gib_no_sp_no_selective"].as<double>());
  c.recompute = Recompute::selective;
  c.sequence_parallel = true;
  const MemoryFootprint m = training_memory(model, c, gigabytes(80));
  EXPECT_DOUBLE_EQ(rounded(m.activations.base() / kGiB, 2),
                   targets["activations_gib_with_sp_and_selective"].as<double>());
  // Model states at 18 bytes per parameter: Calculon counts the layers only; we add the embeddings (1.5 %).
  c.zero = 0;
  const double states_gib = (m.weights + m.gradients + m.optimizer_states).base() / kGiB;
  EXPECT_NEAR(states_gib / targets["parameters_and_optimizer_gib"].as<double>(), 1.0, 0.02);
}

TEST(Memory, PipelineFirstStageHoldsPMicroBatchesAndInterleavingCostsMore) {
  const TransformerModel model = megatron_gpt(96, 12288, 96, 51200, 2048);
  TrainingConfig c;
  c.tp = 8;
  c.pp = 8;
  c.dp = 1;
  c.global_batch = 64;
  const double per_layer = activation_bytes_per_layer(model, c);
  EXPECT_DOUBLE_EQ(training_memory(model, c, gigabytes(80)).activations.base(), per_layer * 12 * 8);
  c.virtual_stages = 3;
  EXPECT_DOUBLE_EQ(training_memory(model, c, gigabytes(80)).activations.base(),
                   per_layer * 12 * 8 * (1 + 7.0 / 24));
  c.virtual_stages = 1;
  c.global_batch = 4;  // fewer micro-batches than stages: only those are in flight
  EXPECT_DOUBLE_EQ(training_memory(model, c, gigabytes(80)).activations.base(), per_layer * 12 * 4);
}

TEST(Memory, VerdictAndMarginAgainstTheAcceleratorMemory) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 8;
  c.tp = 1;
  c.dp = 8;
  c.zero = 0;
  const MemoryFootprint unsplit = training_memory(llama, c, gigabytes(80));
  EXPECT_FALSE(unsplit.fits());
  EXPECT_LT(unsplit.margin().base(), 0);
  EXPECT_GT(unsplit.weights.base(), 2 * 70e9);  // 70.6B bf16 weights alone exceed 80 GB
  c.tp = 8;
  c.pp = 8;
  c.dp = 8;
  c.zero = 1;
  c.global_batch = 64;
  const MemoryFootprint split = training_memory(llama, c, gigabytes(80));
  EXPECT_TRUE(split.fits());
  EXPECT_DOUBLE_EQ(split.margin().base(), gigabytes(80).base() - split.total().base());
}

TEST(Memory, KvCacheSplitsOverTensorParallelUpToTheKvHeads) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  const double one = kv_cache_per_gpu(llama, 4096, 1, 2, 1).base();
  EXPECT_DOUBLE_EQ(one, 320.0 * 1024 * 4096);
  EXPECT_DOUBLE_EQ(kv_cache_per_gpu(llama, 4096, 1, 2, 8).base(), one / 8);
  EXPECT_DOUBLE_EQ(kv_cache_per_gpu(llama, 4096, 1, 2, 16).base(), one / 8);  // 8 kv heads: replicated beyond
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

using testing::model_presets;
using testing::source_path;

MemoryReserve data_reserve() {
  return load_memory_reserve(source_path("data/perf/memory.yaml")).value();
}

// The reserve is part of the verdict: a split whose model memory alone fills the GPU does not fit.
TEST(MemoryReserve, AFullGpuNoLongerFits) {
  const MemoryReserve reserve = data_reserve();
  // 0.5 GiB context + 4 MiB x 32 channels x 2 peers x 4 communicators + 3 % of 80 GB.
  EXPECT_DOUBLE_EQ(reserve.per_gpu(gigabytes(80)).base(),
                   0.5 * 1073741824.0 + 4.0 * 1048576 * 32 * 2 * 4 + 0.03 * 80e9);
  const TransformerModel& llama = *find_model(model_presets(), "llama3-8b");
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 8;
  c.dp = 8;
  c.recompute = Recompute::none;
  const MemoryFootprint bare = training_memory(llama, c, gigabytes(80));
  // A GPU exactly as large as the model's memory: fits with no reserve, not with the data's.
  const ByteSize exact = bare.total();
  EXPECT_TRUE(training_memory(llama, c, exact).fits());
  c.memory_reserve = reserve.per_gpu(exact);
  const MemoryFootprint reserved = training_memory(llama, c, exact);
  EXPECT_FALSE(reserved.fits());
  EXPECT_DOUBLE_EQ(reserved.total().base(), exact.base() + c.memory_reserve.base());
}

TEST(MemoryReserve, BadFileIsLocated) {
  const auto missing = load_memory_reserve(source_path("data/perf/models.yaml"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error_text().find("models.yaml"), std::string::npos);
}

// Llama 3.1 405B as Meta trained it (Dubey et al. 2024, 3.3.2 and Table 4): 16,384 H100 80GB, TP 8, PP 16, CP
// 1, DP 128, 8K sequences, 16M tokens (2048 sequences, 16 per DP group), no activation checkpointing, FSDP
// that shards optimizer states and gradients but keeps the stage's weights (ZeRO-2), one layer fewer on the
// first and the last stage, micro-batches of one sequence.
TrainingConfig meta_405b() {
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 2048;
  c.micro_batch = 1;
  c.tp = 8;
  c.pp = 16;
  c.cp = 1;
  c.dp = 128;
  c.zero = 2;
  c.recompute = Recompute::none;
  c.memory_reserve = data_reserve().per_gpu(gigabytes(80));
  return c;
}

TEST(MemoryOfPublishedRuns, Llama3405BFitsAsMetaRanIt) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-405b");
  TrainingConfig c = meta_405b();
  ASSERT_TRUE(check_training_config(llama, c, 16384).empty());
  ASSERT_EQ(c.micro_batches(), 16);
  ASSERT_EQ(layer_split(llama, 16, 1), LayerSplit::ends_lighter);
  const MemoryFootprint m = training_memory(llama, c, gigabytes(80));
  EXPECT_TRUE(m.fits()) << in_gigabytes(m.total()) << " GB";
  // The most loaded rank is the second: 8 layers and 15 micro-batches in flight (the first holds 16 of 7).
  EXPECT_EQ(m.pipeline_rank, 1);
  EXPECT_DOUBLE_EQ(activation_layers_in_flight(llama, c, 0), 16 * 7);
  EXPECT_DOUBLE_EQ(activation_layers_in_flight(llama, c, 1), 15 * 8);
  // What makes it fit: with every stage at 8 layers and fp32 gradients unsharded (Megatron's distributed
  // optimizer, ZeRO-1) it does not.
  TrainingConfig zero1 = c;
  zero1.zero = 1;
  EXPECT_FALSE(training_memory(llama, zero1, gigabytes(80)).fits());
}

// A config that really cannot fit is still refused: the same run on half the pipeline stages (16 layers per
// stage), at ZeRO-2 and at ZeRO-1. Megatron's interleaved schedule with v = 2 fits: with m = p = 16 every
// chunk of every micro-batch is in flight either way (2 x 16 chunks of 4 layers on rank 1, 128
// layer-micro-batches against 1F1B's 120).
TEST(MemoryOfPublishedRuns, ConfigsThatCannotFitAreRefused) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-405b");
  TrainingConfig half = meta_405b();
  half.pp = 8;
  half.dp = 256;
  half.global_batch = 2048;
  ASSERT_TRUE(check_training_config(llama, half, 16384).empty());
  EXPECT_FALSE(training_memory(llama, half, gigabytes(80)).fits());
  half.zero = 1;
  EXPECT_FALSE(training_memory(llama, half, gigabytes(80)).fits());
  TrainingConfig interleaved = meta_405b();
  interleaved.virtual_stages = 2;
  ASSERT_TRUE(check_training_config(llama, interleaved, 16384).empty());
  EXPECT_TRUE(training_memory(llama, interleaved, gigabytes(80)).fits());
  EXPECT_DOUBLE_EQ(activation_layers_in_flight(llama, interleaved, 1), 2 * 16 * 4);
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

// Mixture of experts: the routed experts' weights, gradients and optimizer states split over the expert-
// parallel group (and their optimizer shards over d c / ep); the rest of the model does not.
TEST(MemoryOfExperts, ExpertStatesSplitOverExpertParallelism) {
  const TransformerModel* qwen = find_model(testing::model_presets(), "qwen3-30b-a3b");
  ASSERT_NE(qwen, nullptr);
  ASSERT_TRUE(qwen->is_moe());
  TrainingConfig c;
  c.sequence = 4096;
  c.global_batch = 64;
  c.dp = 8;
  c.zero = 1;
  const double experts =
      static_cast<double>(qwen->moe_layer_count()) * qwen->moe.experts * qwen->expert_matrix_parameters();
  const double all = parameters_per_gpu(*qwen, c);
  c.ep = 8;
  const double split = parameters_per_gpu(*qwen, c);
  EXPECT_NEAR(all - split, experts * 7 / 8, 1e-6 * experts);
  const MemoryFootprint ep1 = [&] {
    TrainingConfig one = c;
    one.ep = 1;
    return training_memory(*qwen, one, gigabytes(80));
  }();
  const MemoryFootprint ep8 = training_memory(*qwen, c, gigabytes(80));
  EXPECT_NEAR((ep1.weights - ep8.weights).base(), 2 * experts * 7 / 8, 1e-6 * experts);
  // Optimizer: dense part over d c = 8; experts over d c / ep = 1 (each expert on one GPU of the group).
  EXPECT_NEAR(ep8.optimizer_states.base(), 12.0 / 8 * (split - experts / 8) + 12.0 * experts / 8,
              1e-6 * experts);
  EXPECT_EQ(ep8.activations.base(), ep1.activations.base());  // balanced routing: the same tokens per GPU
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

// ZeRO-3 / FSDP holds whole blocks beside its shards (memory.yaml fsdp: two gathered blocks alive in forward,
// one block's unsharded gradient before its reduce-scatter). By hand on a 4-layer GPT of h = 1024: a block is
// 12 h^2 + 13 h = 12,596,224 parameters (attention 4h^2 + 4h, MLP 8h^2 + 5h, two LayerNorms 4h), 6,298,112
// on each of t = 2 ranks: 2 x 2 bytes x 6,298,112 = 25,192,448 bytes of gathered weights and 4 bytes (fp32
// gradients) x 6,298,112 = 25,192,448 bytes of unsharded gradient.
TEST(MemoryOfFsdp, GatheredBlocksAndUnshardedGradientByHand) {
  const TransformerModel gpt = testing::megatron_gpt(4, 1024, 16, 1000, 512);
  TrainingConfig c;
  c.sequence = 512;
  c.global_batch = 8;
  c.tp = 2;
  c.dp = 4;
  c.zero = 3;
  c.gradient_bytes = 4;
  EXPECT_DOUBLE_EQ(largest_block_parameters_per_gpu(gpt, c), 6298112);
  const MemoryFootprint sharded_only = training_memory(gpt, c, gigabytes(80));
  EXPECT_EQ(sharded_only.gathered_weights.base(), 0);  // no blocks given: none counted
  c.fsdp_blocks = data_reserve().fsdp_blocks;
  ASSERT_EQ(c.fsdp_blocks.gathered_weights, 2);
  ASSERT_EQ(c.fsdp_blocks.unsharded_gradients, 1);
  const MemoryFootprint fsdp = training_memory(gpt, c, gigabytes(80));
  EXPECT_DOUBLE_EQ(fsdp.gathered_weights.base(), 25192448);
  EXPECT_DOUBLE_EQ(fsdp.unsharded_gradients.base(), 25192448);
  EXPECT_DOUBLE_EQ((fsdp.weights - sharded_only.weights).base(), 25192448);
  EXPECT_DOUBLE_EQ((fsdp.gradients - sharded_only.gradients).base(), 25192448);
  EXPECT_DOUBLE_EQ((fsdp.total() - sharded_only.total()).base(), 2 * 25192448.0);
  // Below ZeRO-3 the weights and gradients are whole already: nothing is added.
  c.zero = 2;
  EXPECT_EQ(training_memory(gpt, c, gigabytes(80)).gathered_weights.base(), 0);
}

// DeepSeek-V3 under FSDP with every expert on every GPU (ep 1): one MoE block's 256 routed experts are
// 256 x 3 x 7168 x 2048 = 11,274,289,152 parameters, 45.1 GB as two gathered bf16 blocks and 45.1 GB as one
// fp32 unsharded gradient: more than an 80 GB H100 whatever the shards. Split over ep 8 (expert tp 1) the
// routed part of a block is 1/8 of it.
TEST(MemoryOfFsdp, DeepSeekV3AtEp1CannotFitAnH100) {
  const TransformerModel& dsv3 = *find_model(model_presets(), "deepseek-v3");
  TrainingConfig c;
  c.sequence = 4096;
  c.global_batch = 15360;
  c.dp = 1920;
  c.zero = 3;
  c.recompute = Recompute::full;
  c.fsdp_blocks = data_reserve().fsdp_blocks;
  c.memory_reserve = data_reserve().per_gpu(gigabytes(80));
  const double routed = 256.0 * 3 * 7168 * 2048;
  ASSERT_DOUBLE_EQ(routed, 11274289152.0);
  const double block = largest_block_parameters_per_gpu(dsv3, c);
  EXPECT_GT(block, routed);
  EXPECT_LT(block, routed * 1.05);  // attention, shared expert, router and norms: under 5 % more
  const MemoryFootprint m = training_memory(dsv3, c, gigabytes(80));
  EXPECT_GT(m.gathered_weights.base(), 2 * 2 * routed);
  EXPECT_GT(m.unsharded_gradients.base(), 4 * routed);
  EXPECT_FALSE(m.fits()) << in_gigabytes(m.total()) << " GB";
  TrainingConfig ep8 = c;
  ep8.ep = 8;
  EXPECT_NEAR(largest_block_parameters_per_gpu(dsv3, ep8), block - routed * 7 / 8, 1.0);
}

}  // namespace
}  // namespace gputwin
