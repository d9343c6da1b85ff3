// Uneven pipeline stages (step time by the slowest stage, memory by the fullest), the context-parallel
// exchange of latent attention, low-precision recipes with BF16 layers and torchtitan's per-op selective
// checkpointing.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/perf/precision_recipe.hpp"
#include "gputwin/perf/pytorch_eager.hpp"
#include "gputwin/perf/training.hpp"

namespace gputwin {
namespace {

using testing::model_presets;
using testing::perf_setup;
using testing::source_path;

const TransformerModel& preset(const std::string& name) {
  const TransformerModel* m = find_model(model_presets(), name);
  EXPECT_NE(m, nullptr) << name;
  return *m;
}

// The seconds of the term or part named `name` (-1 when absent, which the tests' positive checks refuse).
double seconds_of(const std::vector<TimeTerm>& terms, const std::string& name) {
  for (const TimeTerm& t : terms)
    if (t.name == name) return t.seconds;
  return -1.0;
}

PerfHardware h100_nodes(int nodes) {
  return perf_hardware_of_system(perf_setup().catalog, "dgx-h100", nodes).value();
}

// Llama 3.1 405B as Meta split it: 16,384 H100, TP 8, PP 16, 16 sequences of 8K per data-parallel group.
TrainingConfig llama405b_pp16() {
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 16 * 128;
  c.micro_batch = 1;
  c.tp = 8;
  c.pp = 16;
  c.dp = 128;
  c.zero = 2;
  c.recompute = Recompute::none;
  c.tp_comm_overlap = true;
  return c;
}

double step_s(const TransformerModel& m, const TrainingConfig& c, const PerfHardware& hw) {
  const auto& s = perf_setup();
  return estimate_training(hw, s.collectives, s.calibration, m, c).step_time_s;
}

// Megatron's num_layers_in_first/last_pipeline_stage: the middle stages share the rest evenly, each stage's
// layers split over its v chunks; anything else is refused with the numbers that do not divide.
TEST(TrainingPipelineSplit, GivenFirstAndLastStageLayersFollowMegatronsRules) {
  const TransformerModel& m = preset("llama3.1-405b");
  TrainingConfig c = llama405b_pp16();
  c.first_stage_layers = 21;
  c.last_stage_layers = 7;
  EXPECT_TRUE(check_training_config(m, c, 16384).empty());
  EXPECT_EQ(layer_split(m, c), LayerSplit::given);
  EXPECT_EQ(layers_on_rank(m, c, 0), 21);
  EXPECT_EQ(layers_on_rank(m, c, 1), 7);
  EXPECT_EQ(layers_on_rank(m, c, 15), 7);
  int total = 0;
  for (int rank = 0; rank < c.pp; ++rank) total += layers_on_rank(m, c, rank);
  EXPECT_EQ(total, 126);

  c.first_stage_layers = 6;  // 126 - 6 - 7 = 113 layers on 14 middle stages: not whole
  auto problems = check_training_config(m, c, 16384);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("leave 113 of the 126 layers"), std::string::npos) << problems[0];

  c.first_stage_layers = 21;
  c.virtual_stages = 2;  // 21 and 7 layers do not split over 2 chunks
  c.global_batch = 16 * 128;
  problems = check_training_config(m, c, 16384);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("does not split over 2 virtual stages"), std::string::npos) << problems[0];

  TrainingConfig one = llama405b_pp16();
  one.pp = 1;
  one.dp = 0;
  one.last_stage_layers = 6;
  problems = check_training_config(m, one, 16384);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("at least 2 pipeline stages"), std::string::npos) << problems[0];
}

// The pipeline runs at the pace of its slowest stage. 21 layers on the first stage take 21/8 of the time the
// 8-layer middle stages of Llama 3's split take (the output layer on its 7-layer last stage is lighter than a
// middle stage); putting the heavy stage last adds the output layer on top of it.
TEST(TrainingPipelineSplit, StepTimeIsSetByTheSlowestStage) {
  const TransformerModel& m = preset("llama3.1-405b");
  const PerfHardware hw = h100_nodes(2048);
  TrainingConfig lighter_ends = llama405b_pp16();  // 7, 8 x 14, 7
  TrainingConfig heavy_first = lighter_ends;
  heavy_first.first_stage_layers = 21;
  heavy_first.last_stage_layers = 7;
  TrainingConfig heavy_last = lighter_ends;
  heavy_last.first_stage_layers = 7;
  heavy_last.last_stage_layers = 21;
  for (TrainingConfig* c : {&lighter_ends, &heavy_first, &heavy_last}) {
    ASSERT_TRUE(check_training_config(m, *c, 16384).empty());
  }
  const double base = step_s(m, lighter_ends, hw);
  const double first = step_s(m, heavy_first, hw);
  const double last = step_s(m, heavy_last, hw);
  EXPECT_GT(first / base, 2.45);
  EXPECT_LT(first / base, 21.0 / 8.0 + 0.01);
  EXPECT_GT(last, first);
  // The output layer (2 h V per token, about 2/3 of a 405B layer's GEMMs) sits on the last stage: a 7-layer
  // last stage with it is lighter than an 8-layer middle stage, so the split is not slowed by its ends.
  TrainingConfig even_ends = lighter_ends;
  even_ends.first_stage_layers = 8;
  even_ends.last_stage_layers = 6;  // 112 on 14 middle stages: 8 each
  ASSERT_TRUE(check_training_config(m, even_ends, 16384).empty());
  // (the optimizer and data-parallel terms follow the fullest rank's parameters, which differ slightly)
  EXPECT_NEAR(step_s(m, even_ends, hw) / base, 1.0, 5e-3);
}

// Memory is that of the fullest stage: 21 layers on rank 0, each with 16 micro-batches in flight, do not fit
// in 80 GB where Llama 3's split does.
TEST(TrainingPipelineSplit, MemoryIsThatOfTheFullestStage) {
  const TransformerModel& m = preset("llama3.1-405b");
  TrainingConfig balanced = llama405b_pp16();
  TrainingConfig heavy_first = balanced;
  heavy_first.first_stage_layers = 21;
  heavy_first.last_stage_layers = 7;
  const ByteSize capacity = ByteSize::from_base(80e9);
  const auto a = training_memory(m, balanced, capacity);
  const auto b = training_memory(m, heavy_first, capacity);
  EXPECT_EQ(b.pipeline_rank, 0);
  // 21 layers x 16 micro-batches in flight against the balanced split's 8 x 15 (rank 1): 2.8 x.
  EXPECT_GT(b.activations.base(), 2.5 * a.activations.base());
  EXPECT_TRUE(a.fits());
  EXPECT_FALSE(b.fits());
}

// Context parallelism all-gathers what the core attention reads: for latent attention (DeepSeek-V3) the
// per-head up-projected keys (nope 128 + rope 64) and values (128) of 128 heads, not the 576-element latent
// and not kv_heads x hidden/heads.
TEST(TrainingContextParallel, LatentAttentionExchangesPerHeadKeysAndValues) {
  const TransformerModel& dsv3 = preset("deepseek-v3");
  EXPECT_DOUBLE_EQ(context_parallel_kv_elements_per_token(dsv3, 1), 128.0 * (192 + 128));
  EXPECT_DOUBLE_EQ(context_parallel_kv_elements_per_token(dsv3, 8), 16.0 * (192 + 128));
  // Grouped-query attention: kv_heads x 2 x head_dim over t, replicated once t exceeds the kv heads.
  const TransformerModel& llama = preset("llama3-70b");
  EXPECT_DOUBLE_EQ(context_parallel_kv_elements_per_token(llama, 1), 8.0 * 256);
  EXPECT_DOUBLE_EQ(context_parallel_kv_elements_per_token(llama, 8), 256.0);
  EXPECT_DOUBLE_EQ(context_parallel_kv_elements_per_token(llama, 16), 256.0);
}

// The exchange is timed on those bytes: DeepSeek-V3 at CP 2 across nodes exposes more context-parallel time
// than the same model would with the old kv_heads x head_dim count would allow (checked through the term's
// growth with the element count: twice the elements at least 1.6 x the time on a bandwidth-bound message).
TEST(TrainingContextParallel, DeepSeekV3ContextTermUsesThePerHeadSize) {
  const TransformerModel& dsv3 = preset("deepseek-v3");
  TrainingConfig c;
  c.sequence = 65536;
  c.global_batch = 64;
  c.tp = 1;
  c.pp = 16;
  c.cp = 8;
  c.ep = 8;
  c.dp = 0;
  c.recompute = Recompute::full;
  const PerfHardware hw = h100_nodes(128);
  ASSERT_TRUE(check_training_config(dsv3, c, 1024).empty());
  const auto e = estimate_training(hw, perf_setup().collectives, perf_setup().calibration, dsv3, c);
  double context = -1;
  for (const auto& t : e.terms) {
    if (t.name == "context-parallel communication") context = t.seconds;
  }
  EXPECT_GE(context, 0.0);
  // At 64K tokens the attention kernels hide the exchange; at 8K with CP 8 they do not.
  c.sequence = 8192;
  c.global_batch = 512;
  ASSERT_TRUE(check_training_config(dsv3, c, 1024).empty());
  const auto short_seq = estimate_training(hw, perf_setup().collectives, perf_setup().calibration, dsv3, c);
  double exposed = 0;
  for (const auto& t : short_seq.terms) {
    if (t.name == "context-parallel communication") exposed = t.seconds;
  }
  EXPECT_GT(exposed, 0.0);
}

double term_seconds(const TrainingEstimate& e, const std::string& name) {
  for (const auto& t : e.terms)
    if (t.name == name) return t.seconds;
  ADD_FAILURE() << "no term " << name;
  return 0;
}

// Context parallelism across nodes (TP 8 in each node, CP 8 over eight DGX H100, 16K tokens): Megatron's ring
// passes one chunk per step behind that block's attention; PyTorch's all-gather waits for the whole
// sequence's keys and values behind the local block only, so it exposes more; full recomputation runs the
// forward exchange again.
TEST(TrainingContextParallel, RingHidesWhatTheAllGatherExposes) {
  const TransformerModel& llama = preset("llama3.1-8b");
  TrainingConfig c;
  c.sequence = 16384;
  c.global_batch = 8;
  c.tp = 8;
  c.cp = 8;
  c.dp = 0;
  c.recompute = Recompute::none;
  c.attention_kernel = "fa2";
  const PerfHardware hw = h100_nodes(8);
  ASSERT_TRUE(check_training_config(llama, c, 64).empty());
  const auto& s = perf_setup();
  c.context_exchange = ContextExchange::ring;
  const auto ring = estimate_training(hw, s.collectives, s.calibration, llama, c);
  c.context_exchange = ContextExchange::all_gather;
  const auto gather = estimate_training(hw, s.collectives, s.calibration, llama, c);
  const double ring_s = term_seconds(ring, "context-parallel communication");
  const double gather_s = term_seconds(gather, "context-parallel communication");
  EXPECT_GE(ring_s, 0.0);
  EXPECT_GT(gather_s, ring_s);
  c.recompute = Recompute::full;
  const auto recomputed = estimate_training(hw, s.collectives, s.calibration, llama, c);
  EXPECT_GT(term_seconds(recomputed, "context-parallel communication"), gather_s);
  EXPECT_NE(gather.attention_rule.find("fa2"), std::string::npos) << gather.attention_rule;
}

// PyTorch's context_parallel (torchtitan) merges every block after the first into an fp32 output and
// accumulates the gradients in fp32: memory traffic the Llama 3 all-gather does not have, (c - 1) merges of
// s / c tokens each, so at one sequence CP 8 adds 7/8 / (1/2) = 1.75 x what CP 2 adds. Its backward passes
// the fp32 dK/dV on after each block and waits for the last one with nothing beside it: exposed even inside a
// node.
TEST(TrainingContextParallel, PyTorchBlocksMergeEachBlockInFp32) {
  const TransformerModel& llama = preset("llama3.1-8b");
  TrainingConfig c;
  c.sequence = 131072;
  c.global_batch = 1;
  c.dp = 0;
  c.zero = 3;
  c.recompute = Recompute::none;
  c.attention_kernel = "fa2";
  const PerfHardware hw = h100_nodes(1);
  const auto& s = perf_setup();
  auto added = [&](int cp) {
    c.cp = cp;
    c.dp = 8 / cp;
    c.global_batch = c.dp;  // one sequence per context-parallel group
    EXPECT_TRUE(check_training_config(llama, c, 8).empty());
    c.context_exchange = ContextExchange::all_gather;
    const auto gather = estimate_training(hw, s.collectives, s.calibration, llama, c);
    c.context_exchange = ContextExchange::all_gather_blocks;
    const auto blocks = estimate_training(hw, s.collectives, s.calibration, llama, c);
    EXPECT_GT(term_seconds(blocks, "context-parallel communication"),
              term_seconds(gather, "context-parallel communication"))
        << cp;
    EXPECT_NE(term_seconds(blocks, "context-parallel communication"), 0.0) << cp;
    return blocks.attention_s - gather.attention_s;
  };
  const double cp2 = added(2), cp8 = added(8);
  EXPECT_GT(cp2, 0.0);
  EXPECT_NEAR(cp8 / cp2, 1.75, 0.02);
}

// What PyTorch's context_parallel adds to one layer beside the kernels, by hand for Llama 3.1 8B at 128K over
// CP 2 (65,536 tokens per rank, 32 heads of 128, keys and values repeated to every head: 32 x 256 elements per
// token): forward, one merge of 38 bytes per output element and one bf16 copy of the keys and values (read 2,
// write 2); backward, 10 bytes per query element, 21 per key/value element for the dK/dV accumulation and the
// same 4-byte copy of the keys and values. No recomputation, one micro-batch, one pipeline stage of 32 layers.
TEST(TrainingContextParallel, PyTorchBlocksAddMergesAndKeyValueCopiesByHand) {
  const TransformerModel& llama = preset("llama3.1-8b");
  TrainingConfig c;
  c.sequence = 131072;
  c.global_batch = 4;
  c.cp = 2;
  c.dp = 4;
  c.zero = 3;
  c.recompute = Recompute::none;
  c.attention_kernel = "fa2";
  const PerfHardware hw = h100_nodes(1);
  ASSERT_TRUE(check_training_config(llama, c, 8).empty());
  const auto& s = perf_setup();
  c.context_exchange = ContextExchange::all_gather;
  const double gather = estimate_training(hw, s.collectives, s.calibration, llama, c).attention_s;
  c.context_exchange = ContextExchange::all_gather_blocks;
  const double blocks = estimate_training(hw, s.collectives, s.calibration, llama, c).attention_s;
  const double outputs = 65536.0 * 32 * 128, key_values = 65536.0 * 32 * 256;
  const double forward = 38 * outputs + 4 * key_values, backward = 10 * outputs + (21 + 4) * key_values;
  const double bytes_per_s = in_gigabytes_per_second(hw.accelerator.memory_bandwidth) * 1e9;
  EXPECT_NEAR(blocks - gather, 32 * (forward + backward) / bytes_per_s, 1e-6 * blocks);
}

// torchtitan repeats the keys and values to every query head before SDPA, so PyTorch's context_parallel
// moves as many bytes for grouped-query Llama 3 405B as for the same model with one kv head per query head;
// the Llama 3 paper's all-gather moves the kv heads' only (fewer bytes, less exposed across nodes).
TEST(TrainingContextParallel, TorchtitanExchangesKeysAndValuesRepeatedToEveryHead) {
  const TransformerModel& grouped = preset("llama3.1-405b");
  TransformerModel full = grouped;
  full.kv_heads = full.heads;
  TrainingConfig c;
  c.sequence = 131072;
  c.global_batch = 4;
  c.tp = 8;
  c.cp = 4;
  c.dp = 1;
  c.pp = 8;
  c.zero = 1;
  c.recompute = Recompute::full;
  c.attention_kernel = "fa2";
  const PerfHardware hw = h100_nodes(32);
  ASSERT_TRUE(check_training_config(grouped, c, 256).empty());
  const auto& s = perf_setup();
  auto comm = [&](const TransformerModel& m, ContextExchange exchange) {
    c.context_exchange = exchange;
    return term_seconds(estimate_training(hw, s.collectives, s.calibration, m, c),
                        "context-parallel communication");
  };
  const double blocks = comm(grouped, ContextExchange::all_gather_blocks);
  EXPECT_GT(blocks, 0.0);
  EXPECT_NEAR(blocks, comm(full, ContextExchange::all_gather_blocks), 1e-9 * blocks);
  EXPECT_LT(comm(grouped, ContextExchange::all_gather), comm(full, ContextExchange::all_gather));
}

// The attention kernels are most of a 128K step over CP 8 in one node, a small share of an 8K one.
TEST(TrainingContextParallel, AttentionShareGrowsWithTheSequence) {
  const TransformerModel& llama = preset("llama3.1-8b");
  TrainingConfig c;
  c.sequence = 131072;
  c.global_batch = 1;
  c.cp = 8;
  c.dp = 0;
  c.zero = 3;
  c.recompute = Recompute::full;
  c.attention_kernel = "fa2";
  const PerfHardware hw = h100_nodes(1);
  ASSERT_TRUE(check_training_config(llama, c, 8).empty());
  const auto& s = perf_setup();
  const auto long_seq = estimate_training(hw, s.collectives, s.calibration, llama, c);
  EXPECT_GT(long_seq.attention_s / long_seq.step_time_s, 0.5);
  c.sequence = 8192;
  c.cp = 1;
  c.global_batch = 8;
  c.dp = 0;
  ASSERT_TRUE(check_training_config(llama, c, 8).empty());
  const auto short_seq = estimate_training(hw, s.collectives, s.calibration, llama, c);
  EXPECT_LT(short_seq.attention_s / short_seq.step_time_s, 0.25);
  EXPECT_GT(short_seq.attention_s, 0.0);
}

// The kernel a framework ran is a setup fact: FlashAttention-2 makes a long-sequence step slower than cuDNN's
// fused attention (Megatron's default on Hopper), a short one barely.
TEST(TrainingContextParallel, TheFrameworksAttentionKernelSetsTheLongSequenceStep) {
  const TransformerModel& llama = preset("llama3.1-8b");
  TrainingConfig c;
  c.sequence = 32768;
  c.global_batch = 8;
  c.dp = 0;
  c.zero = 3;
  c.recompute = Recompute::full;
  const PerfHardware hw = h100_nodes(1);
  ASSERT_TRUE(check_training_config(llama, c, 8).empty());
  const auto& s = perf_setup();
  const auto cudnn = estimate_training(hw, s.collectives, s.calibration, llama, c);
  c.attention_kernel = "fa2";
  const auto fa2 = estimate_training(hw, s.collectives, s.calibration, llama, c);
  EXPECT_GT(fa2.step_time_s, 1.2 * cudnn.step_time_s);
  EXPECT_NE(cudnn.attention_rule.find("cudnn"), std::string::npos) << cudnn.attention_rule;
}

TEST(TrainingPrecisionRecipes, BundledRecipesCarryMegatronBridgesBf16Layers) {
  const auto recipes = load_precision_recipes(source_path("data/perf/precision-recipes.yaml"));
  ASSERT_TRUE(recipes.ok()) << recipes.error_text();
  const PrecisionRecipe* cs = find_recipe(recipes.value(), "fp8-cs");
  ASSERT_NE(cs, nullptr);
  EXPECT_EQ(cs->gemm, "fp8");
  EXPECT_EQ(cs->bf16_layers_at_start, 1);
  EXPECT_EQ(cs->bf16_layers_at_end, 1);
  EXPECT_NE(cs->source.find("bf16_with_fp8_current_scaling_mixed"), std::string::npos);
  // The same scaling as Megatron-Bridge's performance scripts run it: no layer kept in BF16.
  const PrecisionRecipe* all_layers = find_recipe(recipes.value(), "fp8-cs-all-layers");
  ASSERT_NE(all_layers, nullptr);
  EXPECT_EQ(all_layers->gemm, "fp8");
  EXPECT_EQ(all_layers->scaling, cs->scaling);
  EXPECT_EQ(all_layers->bf16_layers_at_start + all_layers->bf16_layers_at_end, 0);
  EXPECT_NE(all_layers->source.find("first_last_layers_bf16 = False"), std::string::npos);
  for (const char* name : {"bf16", "fp8", "mxfp8", "nvfp4"}) {
    const PrecisionRecipe* r = find_recipe(recipes.value(), name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_EQ(r->gemm, name);
    EXPECT_EQ(r->bf16_layers_at_start + r->bf16_layers_at_end, 0) << name;
  }
  EXPECT_EQ(find_recipe(recipes.value(), "fp6"), nullptr);
}

TEST(TrainingPrecisionRecipes, ABadRecipeIsALocatedError) {
  testing::expect_located_error(
      load_precision_recipes,
      "recipes:\n"
      "  - {name: a, gemm: bf16, bf16_layers_at_start: 0, bf16_layers_at_end: 0, source: x}\n"
      "  - {name: b, gemm: fp6, bf16_layers_at_start: 0, bf16_layers_at_end: 0, source: x}\n",
      3, {"gemm"});
}

// A gemm_rate must be a slowdown of a quantised recipe, with the benchmark it comes from: a rate above 1 is a
// located error.
TEST(TrainingPrecisionRecipes, AGemmRateAboveOneIsALocatedError) {
  testing::expect_located_error(
      load_precision_recipes,
      "recipes:\n"
      "  - name: r\n"
      "    gemm: fp8\n"
      "    bf16_layers_at_start: 0\n"
      "    bf16_layers_at_end: 0\n"
      "    gemm_rate:\n"
      "      value: 1.2\n"
      "      published_step_ratio: 1.1\n"
      "      benchmark: {model: m, gpu: H100, gpus: 8, micro_batch: 1, sequence: 8192, zero: "
      "3, recompute: op-sac}\n"
      "      source: x\n"
      "    source: x\n",
      7, {"value"});
}

// The recipe's gemm_rate slows its quantised GEMMs only: a row-wise FP8 step lies between the per-tensor FP8
// step and the BF16 one, and the rate is carried by apply_recipe.
TEST(TrainingPrecisionRecipes, RowwiseFp8IsSlowerThanTensorwiseAndFasterThanBf16) {
  const auto recipes = load_precision_recipes(source_path("data/perf/precision-recipes.yaml"));
  ASSERT_TRUE(recipes.ok()) << recipes.error_text();
  const PrecisionRecipe* rowwise = find_recipe(recipes.value(), "fp8-rowwise");
  ASSERT_NE(rowwise, nullptr);
  ASSERT_TRUE(rowwise->rate_benchmark.has_value());
  EXPECT_LT(rowwise->gemm_rate, 1.0);
  const TransformerModel& m = preset("llama3-8b");
  const PerfHardware hw = h100_nodes(1);
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 8;
  c.micro_batch = 1;
  c.dp = 8;
  c.recompute = Recompute::none;
  apply_recipe(*find_recipe(recipes.value(), "fp8"), c);
  const double tensorwise = step_s(m, c, hw);
  apply_recipe(*rowwise, c);
  EXPECT_EQ(c.gemm_rate, rowwise->gemm_rate);
  const double row = step_s(m, c, hw);
  apply_recipe(*find_recipe(recipes.value(), "bf16"), c);
  EXPECT_EQ(c.gemm_rate, 1.0);
  const double bf16 = step_s(m, c, hw);
  EXPECT_GT(row, 1.05 * tensorwise);
  EXPECT_LT(row, bf16);
}

// Keeping the first and last layer in BF16 costs those two layers' GEMMs at the BF16 rate: on one GPU
// (no pipeline) Llama 3 8B's 32 layers under FP8-CS are slower than under FP8, by less than two layers'
// worth of their BF16 GEMM time; with a pipeline only the first and last stage carry them.
TEST(TrainingPrecisionRecipes, Bf16LayersCostTheirGemmsAtTheBf16Rate) {
  const TransformerModel& m = preset("llama3-8b");
  const PerfHardware hw = h100_nodes(1);
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 8;
  c.micro_batch = 1;
  c.dp = 8;
  c.recompute = Recompute::none;
  c.precision = "fp8";
  const double fp8 = step_s(m, c, hw);
  c.bf16_layers_at_start = c.bf16_layers_at_end = 1;
  const double cs = step_s(m, c, hw);
  c.bf16_layers_at_start = c.bf16_layers_at_end = 0;
  c.precision = "bf16";
  const double bf16 = step_s(m, c, hw);
  EXPECT_GT(cs, fp8);
  // Two of 32 layers move from the FP8 to the BF16 time: at most 2/32 of the gap (the output layer, attention
  // and the optimizer are the same in both).
  EXPECT_LT(cs - fp8, 2.0 / 32 * (bf16 - fp8) + 1e-12);
  EXPECT_GT(cs - fp8, 0.5 * 2.0 / 32 * (bf16 - fp8));
}

// A recipe's current scaling charges its measured quantisation cost (quantisation.by_scaling) where the same
// GEMMs with delayed scaling (no entry: the 6-byte rule) do not: only the casts change, by 7.69 / 6.
TEST(TrainingPrecisionRecipes, CurrentScalingCastsCostMoreThanDelayed) {
  const TransformerModel& m = preset("llama3-8b");
  const PerfHardware hw = h100_nodes(1);
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 16;
  c.dp = 8;
  c.recompute = Recompute::none;
  c.precision = "fp8";
  auto casts_s = [&](const std::string& scaling) {
    c.fp8_scaling = scaling;
    return seconds_of(
        estimate_training(hw, perf_setup().collectives, perf_setup().calibration, m, c).compute_parts, "casts");
  };
  const double rule = casts_s(""), delayed = casts_s("delayed"), current = casts_s("current");
  ASSERT_GT(rule, 0.0);
  EXPECT_DOUBLE_EQ(delayed, rule);
  EXPECT_NEAR(current / delayed, 7.69 / 6.0, 1e-9);
}

TEST(TrainingPrecisionRecipes, NvFp4AndMxFp8RunOnBlackwell) {
  const TransformerModel& m = preset("llama3-70b");
  const PerfHardware hw = perf_hardware_of_system(perf_setup().catalog, "dgx-b200", 8).value();
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 128;
  c.tp = 2;
  c.pp = 4;
  c.dp = 0;
  c.recompute = Recompute::none;
  ASSERT_TRUE(check_training_config(m, c, 64).empty());
  double previous = 0;
  for (const char* p : {"bf16", "mxfp8", "nvfp4"}) {
    c.precision = p;
    const double s = step_s(m, c, hw);
    ASSERT_TRUE(std::isfinite(s)) << p;
    if (previous > 0) {
      EXPECT_LT(s, previous) << p;
    }
    previous = s;
  }
}

// torchtitan's per-op SAC recomputes every second matrix multiplication of a block (for Llama: wk, wo and
// w3): more than none, less than full recomputation, and on Llama 3 8B about 36 % of the forward GEMM time.
TEST(TrainingOpSac, RecomputesEverySecondMatrixMultiplication) {
  const TransformerModel& m = preset("llama3-8b");
  const PerfHardware hw = h100_nodes(1);
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 8;
  c.dp = 8;
  auto recompute_s = [&](Recompute r) {
    c.recompute = r;
    const auto e = estimate_training(hw, perf_setup().collectives, perf_setup().calibration, m, c);
    for (const auto& t : e.terms) {
      if (t.name == "recompute") return t.seconds;
    }
    return -1.0;
  };
  const double none = recompute_s(Recompute::none), op = recompute_s(Recompute::op_sac);
  const double full = recompute_s(Recompute::full);
  EXPECT_EQ(none, 0.0);
  EXPECT_GT(op, 0.0);
  EXPECT_LT(op, full);
  // wk (1024 wide), wo (4096) and w3 (14336) of wq + wk + wv + wo (6144) and the MLP (3 x 14336): 36.5 % of
  // the layer's forward matrix FLOPs; the GEMM model times them by shape, so within a few percent of that
  // share of the full recompute's GEMM part (full also repeats attention and elementwise work: a lower
  // bound).
  EXPECT_GT(op / full, 0.20);
  EXPECT_LT(op / full, 0.365);
  EXPECT_EQ(recompute_name(Recompute::op_sac), "op-sac");
  EXPECT_EQ(recompute_from_name("op-sac"), Recompute::op_sac);
}

// PyTorch's async TP (torchtitan under torch.compile) against Megatron's userbuffers overlap, Llama 3.1 8B on
// one TP-8 node, 8K tokens per micro-batch, each collective paired with its own GEMM (perf/tp_overlap.hpp).
// Userbuffers in BF16 reduce-scatter the forward outputs in 4 pipeline splits, the last split's share exposed
// at least; PyTorch's fused matmul + reduce-scatter sums the 8 stacked partial outputs in a kernel of its own
// (reads the 8K x 4096 partials, writes 1/8 of them: 2 x 1.125 x 64 MiB per pass at HBM bandwidth), its fused
// all-gathers copy the local shard first (2 x 2/8 x 64 MiB per pass), and the backward's two reduce-scatters
// of the block input gradients (sums of several dgrads) are not fused and stay whole.
TEST(TrainingTensorParallel, PyTorchAsyncTpExposesPartialSumsAndUnfusedBackwardScatters) {
  const auto& s = perf_setup();
  const TransformerModel& m = preset("llama3.1-8b");
  const PerfHardware hw = h100_nodes(8);
  TrainingConfig c;
  c.sequence = 8192;
  c.micro_batch = 1;
  c.tp = 8;
  c.dp = 8;
  c.global_batch = 64;  // 8 micro-batches per step
  c.zero = 1;
  c.recompute = Recompute::none;
  c.sequence_parallel = true;
  ASSERT_TRUE(check_training_config(m, c, 64).empty());
  auto tensor_term = [&](const TrainingConfig& config) {
    const TrainingEstimate e = estimate_training(hw, s.collectives, s.calibration, m, config);
    for (const TimeTerm& t : e.terms)
      if (t.name == "tensor-parallel communication") return t.seconds;
    ADD_FAILURE() << "no tensor-parallel term";
    return 0.0;
  };
  const double none = tensor_term(c);
  const double bytes = 8192.0 * 4096 * 2;  // one layer's output, bf16
  const double scatter =
      estimate_collective(hw, s.collectives, CollectiveOp::reduce_scatter, ByteSize::from_base(bytes),
                          consecutive_group(hw, 8))
          .time_us *
      1e-6;
  c.tp_comm_overlap = true;
  const double userbuffers = tensor_term(c);
  // 32 layers x 8 micro-batches, two forward reduce-scatters of which a quarter each is exposed at least.
  EXPECT_GE(userbuffers, 32 * 8 * 2 * scatter / 4 - 1e-12);
  EXPECT_LT(userbuffers, 0.5 * none);
  c.tp_comm_micro_pipelined = true;
  const double bandwidth = in_gigabytes_per_second(hw.accelerator.memory_bandwidth) * 1e9;
  const double partial_sums = 2 * (1 + 1.0 / 8) * bytes / bandwidth;
  const double shard_copies = 2 * 2 * (2.0 / 8) * bytes / bandwidth;  // forward and backward
  // 64 MiB at 3.35 TB/s: 45 us of partial sums per layer and micro-batch.
  EXPECT_NEAR(partial_sums, 45.1e-6, 0.2e-6);
  const double micro_pipelined = tensor_term(c);
  EXPECT_GE(micro_pipelined, 32 * 8 * (partial_sums + shard_copies + 2 * scatter) - 1e-12);
  EXPECT_GT(micro_pipelined, userbuffers);  // the unfused backward reduce-scatters
  EXPECT_LT(micro_pipelined, none);
}

// PyTorch eager mode against torch.compile, Llama 3.1 8B on one H100, one 8K sequence, no recomputation
// (data/perf/pytorch-eager-ops.yaml). Per token and layer, h = 4096, query 4096, key/value 1024, ffn 14336,
// the eager ops move beyond the fused regions: forward 66 h (two RMSNorms 2 x 36 h and two residual adds 2 x
// 6 h against 18 h fused) + 16 (query + key/value) (rotary 20 against 4 per element) + 4 ffn (SwiGLU 10
// against 6) = 409,600 bytes; backward 162 h (norms 2 x 84 h and the adds 2 x 6 h against 18 h) + 16 (query +
// key/value)
// + 8 ffn (18 against 10) = 860,160 bytes. 32 layers x 8192 tokens x 1,269,760 bytes at 3.35 TB/s.
TEST(TrainingEagerMode, UnfusedElementwiseOpsAddTheirTrafficByHand) {
  const TransformerModel& llama = preset("llama3.1-8b");
  const PerfHardware hw = h100_nodes(1);
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 1;
  c.dp = 1;
  c.recompute = Recompute::none;
  ASSERT_TRUE(check_training_config(llama, c, 1).empty());
  const auto& s = perf_setup();
  auto elementwise_s = [](const TrainingEstimate& e) {
    return seconds_of(e.compute_parts, "elementwise traffic");
  };
  const TrainingEstimate compiled = estimate_training(hw, s.collectives, s.calibration, llama, c);
  c.compiled = false;
  ASSERT_TRUE(check_training_config(llama, c, 1).empty());
  const TrainingEstimate eager = estimate_training(hw, s.collectives, s.calibration, llama, c);
  const double bytes_per_s = in_gigabytes_per_second(hw.accelerator.memory_bandwidth) * 1e9;
  const double by_hand = 32 * 8192 * (409600.0 + 860160.0) / bytes_per_s;
  EXPECT_NEAR(elementwise_s(eager) - elementwise_s(compiled), by_hand, 1e-9 * by_hand);
  EXPECT_NEAR(eager.step_time_s - compiled.step_time_s, by_hand, 1e-9 * by_hand);
  // Per-op SAC recomputes every elementwise op in the backward: eager runs their whole forward again (84 h +
  // 20 (query + key/value) + 10 ffn = 589,824 bytes per token and layer), compiled folds it into its kernels.
  auto recompute_s = [&](bool compiled_blocks) {
    c.compiled = compiled_blocks;
    c.recompute = Recompute::op_sac;
    return seconds_of(estimate_training(hw, s.collectives, s.calibration, llama, c).terms, "recompute");
  };
  const double recomputed = 32 * 8192 * 589824.0 / bytes_per_s;
  EXPECT_NEAR(recompute_s(false) - recompute_s(true), recomputed, 1e-9 * recomputed);
}

// The op table is torchtitan's Llama block: eager mode for a GPT block (LayerNorm, GELU, biases) or a MoE is
// refused, not answered with the wrong ops.
TEST(TrainingEagerMode, ABlockOtherThanLlamasIsRefused) {
  TrainingConfig c;
  c.sequence = 2048;
  c.global_batch = 8;
  c.compiled = false;
  TransformerModel gpt = testing::megatron_gpt(24, 2048, 16, 51200, 2048);
  const std::vector<std::string> problems = check_training_config(gpt, c, 8);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems.front().find("Llama-style dense block"), std::string::npos) << problems.front();
  c.compiled = true;
  EXPECT_TRUE(check_training_config(gpt, c, 8).empty());
}

// A bad op table is refused at its line: a byte count that is no dtype's.
TEST(TrainingEagerMode, ABadOpTableIsALocatedError) {
  gputwin::testing::expect_located_error(
      [](const std::string& path) { return load_eager_op_table(path); },
      "source: test\n"
      "eager_ops:\n"
      "  - {op: a, width: hidden, per_layer: 1, forward: {read: [2], write: [4]}, backward: {read: [3], "
      "write: "
      "[2]}, source: s}\n"
      "fused_regions:\n"
      "  - {region: b, width: hidden, per_layer: 1, forward: {read: [2], write: [2]}, backward: {read: [2], "
      "write: [2]}, source: s}\n",
      3, {"1, 2 or 4"});
}

}  // namespace
}  // namespace gputwin
