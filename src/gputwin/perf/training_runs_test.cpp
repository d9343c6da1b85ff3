#include "gputwin/perf/training_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/perf/power_model.hpp"

namespace gputwin {
namespace {

using testing::model_presets;
using testing::perf_setup;
using testing::source_path;

const std::vector<ReferenceRun>& runs() {
  static const std::vector<ReferenceRun> loaded =
      load_reference_runs(perf_setup().catalog, perf_setup().calibration.gemm, model_presets(),
                          source_path("data/reference/training-runs.yaml"),
                          source_path("data/reference/training-runs-setup.yaml"))
          .value();
  return loaded;
}

const std::vector<ReferencePrediction>& predictions() {
  static const std::vector<ReferencePrediction> rows =
      predict_reference_runs(perf_setup().collectives, perf_setup().calibration, runs());
  return rows;
}

// The MoE host-wait grid shared by the fit and the bench's diagnoses: 0 .. 20 ms in 0.05 ms steps, the first
// least error kept. A minimum at 9.37 ms lands on 9.35 ms (0.02 ms away; 9.40 ms is 0.03 ms away), a flat
// error keeps 0, and a minimum beyond the grid stops at its end, 20 ms.
TEST(TrainingRuns, TheMoeHostWaitGridIsZeroToTwentyMillisecondsInFiftyMicrosecondSteps) {
  EXPECT_NEAR(best_moe_host_wait([](double wait) { return std::abs(wait - 9.37e-3); }), 9.35e-3, 1e-12);
  EXPECT_EQ(best_moe_host_wait([](double) { return 1.0; }), 0.0);
  EXPECT_NEAR(best_moe_host_wait([](double wait) { return -wait; }), 20e-3, 1e-12);
  int calls = 0;
  (void)best_moe_host_wait([&](double) { return static_cast<double>(++calls); });
  EXPECT_EQ(calls, 401);
}

TEST(TrainingRuns, EveryRowIsInTheSetOfItsSource) {
  int fit = 0, evaluation = 0;
  for (const auto& run : runs()) {
    (run.set == "fit" ? fit : evaluation)++;
    if (run.source.rfind("mbridge", 0) == 0 || run.source == "nemo-24.07") {
      EXPECT_EQ(run.set, "fit") << run.id;
    }
    if (run.source == "llama3-paper" || run.source.rfind("torchtitan", 0) == 0 ||
        run.source == "primus-projection-mi325x-2026-01") {
      EXPECT_EQ(run.set, "evaluation") << run.id;
    }
  }
  EXPECT_EQ(fit, 130);  // 122 before the 8 cdna3 rows of amd-pytorch-training-v25.2
  EXPECT_EQ(evaluation, 69);  // 66 before the 3 cdna3 rows of primus-projection-mi325x-2026-01
}

TEST(TrainingRuns, RowsNotPredictedSayWhy) {
  for (const auto& run : runs()) {
    if (!run.predictable) {
      EXPECT_FALSE(run.why_not.empty()) << run.id;
    }
    if (run.id == "dsv3-h800-deepseek-v3-fp8-2048") {
      EXPECT_FALSE(run.predictable);
      EXPECT_NE(run.why_not.find("GPU-hours"), std::string::npos) << run.why_not;
    }
  }
}

TEST(TrainingRuns, MoeRowsArePredictedWithExpertParallelism) {
  int moe = 0;
  for (const auto& row : predictions()) {
    if (!row.run.predictable || !row.run.model.is_moe()) continue;
    ++moe;
    EXPECT_EQ(row.run.config.ep > 1 || row.run.gpus == 8, true) << row.run.id;
    double all_to_all = -1;
    for (const auto& t : row.estimate.terms) {
      if (t.name == "expert-parallel all-to-all") all_to_all = t.seconds;
    }
    if (row.run.config.ep > 1 && !row.run.config.expert_comm_overlap) {
      EXPECT_GT(all_to_all, 0) << row.run.id;
    }
    if (row.run.config.expert_comm_overlap) {  // the recipe overlaps it: hidden in part or whole
      ReferenceRun plain = row.run;
      plain.config.expert_comm_overlap = false;
      const auto e = predict_reference_runs(perf_setup().collectives, perf_setup().calibration, {plain});
      double whole = -1;
      for (const auto& t : e.front().estimate.terms) {
        if (t.name == "expert-parallel all-to-all") whole = t.seconds;
      }
      EXPECT_GT(whole, 0) << row.run.id;
      EXPECT_LT(all_to_all, whole) << row.run.id;
    }
  }
  EXPECT_GE(moe, 20);
  // The recipes that overlap the all-to-all at the release each row ran (training-runs-setup.yaml
  // moe_recipes): H100 Qwen3-235B (25.11, 26.02, 26.04), B200 Qwen3-235B in 25.11 and GB200 gpt-oss-120b in
  // 26.04 (its V2 preset after PR 2906). The DeepSeek-V3 MXFP8 and Kimi K2 recipes turned it on only after
  // 26.04 (Megatron-Bridge PRs 3983, 4226, 4458, 5168).
  int overlapped = 0;
  for (const auto& run : runs()) overlapped += run.predictable && run.config.expert_comm_overlap ? 1 : 0;
  EXPECT_EQ(overlapped, 5);
}

// Which rows' recipes capture the MoE router and preprocessing in CUDA graphs is read per (GPU, model,
// precision) in Megatron-Bridge's workload configs (training-runs-setup.yaml moe_recipes): the NVL72
// Qwen3-235B recipes do (HybridEP, TE graphs), the B200/B300 ones do not (all-to-all dispatcher, no graphs);
// dense rows never carry the flag.
TEST(TrainingRuns, MoeCudaGraphsFollowTheRecipes) {
  int graphed = 0, plain = 0;
  for (const auto& run : runs()) {
    if (!run.predictable) continue;
    if (!run.model.is_moe()) {
      EXPECT_FALSE(run.config.moe_cuda_graphs) << run.id;
      continue;
    }
    if (run.model_id == "qwen3-235b-a22b" && (run.gpu == "GB200" || run.gpu == "GB300")) {
      EXPECT_TRUE(run.config.moe_cuda_graphs) << run.id;
    }
    if (run.model_id == "qwen3-235b-a22b" && (run.gpu == "B200" || run.gpu == "B300" || run.gpu == "H100")) {
      EXPECT_FALSE(run.config.moe_cuda_graphs) << run.id;
    }
    (run.config.moe_cuda_graphs ? graphed : plain) += run.set == "fit" ? 1 : 0;
  }
  EXPECT_GE(graphed, 20);
  EXPECT_GE(plain, 15);
}

TEST(TrainingRuns, Llama3TableFourIsComparedOnItsOwnFlopConvention) {
  for (const auto& run : runs()) {
    if (run.id != "llama3-h100-405b-bf16-8192") continue;
    ASSERT_TRUE(run.predictable) << run.why_not;
    // 430 TFLOP/s per GPU / (6 N + 12 l h s) FLOPs per token (PaLM), N = 405.9e9 counted from the shape.
    const double per_token = 6 * run.model.parameters() + 12.0 * 126 * 16384 * 8192;
    EXPECT_NEAR(run.published_tokens_per_s_per_gpu, 430e12 / per_token, 1e-9);
    EXPECT_EQ(run.config.dp, 64);
    EXPECT_EQ(run.config.global_batch, 32 * 64);
  }
}

TEST(TrainingRuns, FitSetMeetsItsGoal) {
  const ValidationSummary fit = summarize_set(predictions(), "fit");
  for (const auto& row : predictions()) {
    if (row.run.predictable && row.run.set == "fit")
      std::cout << row.run.id << ": predicted " << row.predicted_tokens_per_s_per_gpu << ", published "
                << row.run.published_tokens_per_s_per_gpu << ", error " << 100 * row.error << " %\n";
  }
  std::cout << "fit set: " << fit.rows << " rows, mean |error| " << 100 * fit.mean_abs_error << " %, worst "
            << 100 * fit.max_abs_error << " %\n";
  // Dense and MoE rows apart: the GEMM fractions are fitted on the dense rows only.
  double dense_sum = 0, hopper_sum = 0, moe_sum = 0;
  int dense = 0, hopper = 0, moe = 0;
  for (const auto& row : predictions()) {
    if (!row.run.predictable || row.run.set != "fit") continue;
    if (row.run.model.is_moe()) {
      moe_sum += std::abs(row.error);
      ++moe;
      continue;
    }
    dense_sum += std::abs(row.error);
    ++dense;
    if (row.run.gpu == "H100") {
      hopper_sum += std::abs(row.error);
      ++hopper;
    }
  }
  std::cout << "dense " << dense << " rows, mean " << 100 * dense_sum / dense << " %; hopper " << hopper
            << " rows, mean " << 100 * hopper_sum / hopper << " %; MoE " << moe << " rows, mean "
            << 100 * moe_sum / moe << " %\n";
  EXPECT_GE(dense, 45);
  EXPECT_GE(moe, 50);
  // Goal (issue 14): mean <= 5 %. Reached on the 54 dense rows: 7.4 % (H100 4.6 %); the NVFP4 rows are 14-35
  // % optimistic (recipe pieces kept in BF16 are not modelled). The 55 MoE rows: 49.0 % mean, not fitted on
  // (small grouped expert GEMMs run slower than the GEMM model says; 40 % before the per-rank activation
  // accounting of the memory model also fed the elementwise term). What is reached is held here.
  // Since the slowest-stage pipeline timing and Megatron-Bridge's FP8-CS recipe (first and last layer in
  // BF16) and the refit (hopper 0.565, blackwell 0.495, blackwell-ultra 0.605): dense 7.1 % (H100 5.4 %; 7.4
  // % and 4.6 % before), MoE 51.7 % (49.0 % before: faster pipelines make the optimistic MoE rows more so).
  // MoE since the host wait per MoE layer and pass (moe_layer_host_s, fitted on these rows: 3.1 ms) and the
  // recipes' all-to-all overlap: 20.8 % (51.7 % before); dense untouched.
  // Attention by the published kernel speed (cuDNN's on the Megatron rows) and the hopper refit (0.590):
  // dense 6.93 % (H100 5.13 %).
  // Blackwell Ultra's precisions at their measured GEMM kernel rates (Transformer Engine's GEMM profiling
  // tutorial on one B300: NVFP4 1.90x MXFP8's speed, not the datasheet's 3.1x) and NVFP4's quantisation at
  // its measured cost, refit (blackwell-ultra 0.665 of the bf16 peak): dense 5.24 % (6.93 % before; GB300
  // NVFP4 rows +7..+40 % -> -13..+7 %).
  // FP8 current scaling's amax pass at its measured cost (7.69 bytes per element, Transformer Engine's GEMM
  // profiling tutorial on B300) on Megatron-Bridge's FP8 rows, the 26.02/26.04 "FP8" rows as the FP8_CS
  // presets they match (first and last layer in BF16), refit (blackwell-ultra 0.675, blackwell 0.500): dense
  // 5.79 % (H100 5.50 %), worse than 5.24 % (5.14 %) and kept because both are sourced: the same preset is
  // now predicted alike in 25.11 and 26.02/26.04 (H100 70B -11.5/-7.0/-7.7 -> -12.6/-12.6/-13.2 %), the
  // common pessimism of the FP8-CS pipelines is what is left (docs/accuracy.md). Those rows as
  // Megatron-Bridge's performance scripts run FP8_CS: every transformer layer in FP8 (get_precision_config
  // sets first_last_layers_bf16 = False), refit (blackwell-ultra 0.665, blackwell 0.495): dense 4.86 %
  // (H100 5.11 %; H100 70B tp 4 pp 8 vp 5 -12.6/-12.6/-13.2 -> -8.3/-8.3/-9.0 %).
  // Each tensor-parallel collective hidden only behind the GEMM Transformer Engine's userbuffers pair it with
  // (perf/tp_overlap.hpp; was the pass's collectives behind its GEMMs pooled), refit (blackwell-ultra 0.670):
  // dense 4.69 % (H100 5.02 %; H100 405B TP 8 +7.0/+4.8 -> +4.1/+1.8 %, 70B TP 4 -8.3 -> -9.5 %).
  // The 8 cdna3 fit rows (MI300X/MI325X, fitted alone to cdna3 0.415: 8.44 % among them): dense 63 rows
  // 5.16 % (4.69 % on the 55 before them), above the 5 % goal. With the MI325X at AMD's measured sustained
  // GEMM rate and cdna3 refit to 0.370 (6.15 % among them): dense 4.87 %, within the 5 % goal.
  EXPECT_LE(dense_sum / dense, 0.0488);
  EXPECT_LE(hopper_sum / hopper, 0.0503);
  // The routed experts' gradients reduced over the expert-data-parallel group (one rank per node where EP
  // fills a node: B200 gpt-oss-120b EP 8 +123.6 % -> +39.1 %) and the host wait refitted (3.05 ms): MoE
  // 18.43 % (20.79 % before), dense unchanged.
  // One host wait for the recipes that capture the MoE router and preprocessing in CUDA graphs (2.55 ms) and
  // one for those that do not (4.00 ms), which recipes do read in Megatron-Bridge's workload configs: MoE
  // 17.90 % (18.43 % with one wait for all), dense unchanged.
  // The flex (HybridEP) dispatcher's deduplication across nodes where the recipe uses it (H100 Qwen3-30B EP
  // 16 over two nodes -46.5 % -> -29.7 %): MoE 17.60 % (17.90 % before); a host wait hidden by the layer's
  // own work was tried and rejected (26.2 %, docs/accuracy.md).
  // The wait charged once per MoE layer and forward pass (Megatron's dispatcher syncs in the forward only;
  // the backward reuses the host split sizes), refitted 7.95 / 5.15 ms: MoE 17.38 % (17.60 % before); hiding
  // it behind the other micro-batch's expert backward on the all-to-all-overlap recipes was tried and
  // rejected (18.13 %), so was no wait on the full-iteration CUDA-graph recipes (23.07 %; docs/accuracy.md).
  // Blackwell Ultra's measured precision rates (above) run its bf16 GEMMs faster than its mxfp8 ones: the
  // already optimistic bf16 gpt-oss rows more so; graphed wait refitted 5.30 ms: MoE 17.88 % (17.38 %
  // before). The flex dispatcher sending a token once per destination rank inside an NVLink domain too
  // (DeepEP / HybridEP dispatch layout), with the measured rates above, both waits refitted 8.75 / 6.35 ms:
  // MoE 17.40 % (16.88 % with the per-rank dispatch alone, 17.88 % with the measured rates alone, 17.38 %
  // before both); the H100 Qwen3-235B recipe's tp_comm_overlap False was tried and left out
  // (docs/accuracy.md). FP8 current scaling's cost on the FP8 rows (above), waits refitted 8.85 / 6.40 ms:
  // MoE 17.48 %. Recipes scoped to the release a row was measured with, where a source says the recipe
  // changed between releases (moe_recipes releases): the 25.11 B200 Qwen3-235B row with the all-to-all
  // overlap Megatron-Bridge PR 1760 disabled after 25.11 (-16.7 % -> -9.1 % with the waits unchanged,
  // MoE 17.34 %; -12.5 % after the refit), the 26.02/26.04 B300 DeepSeek-V3 rows without the CUDA graphs
  // issue 3385 / PR 3549 added after them
  // (+23.0 / +17.2 % -> +4.9 / -0.1 %), waits refitted 9.45 / 6.35 ms: MoE 16.74 %. With the FP8-CS rows'
  // every layer in FP8 too (dense branch; blackwell 0.495, blackwell-ultra 0.665), waits 9.35 / 6.25 ms:
  // MoE 16.68 %.
  // The DeepSeek-V3 MXFP8 rows on GB300 / GB200 and Kimi K2 on GB300 with the recipes of their own releases
  // (Megatron-Bridge PRs 3983, 4226 and 5168 brought the full-iteration CUDA graphs and the all-to-all
  // overlap after 26.04: those rows ran without either, GB300 26.02/26.04 without graphs at all) and the B300
  // DeepSeek-V3 rows without the overlap PR 4458 added later, waits refitted 7.75 / 5.60 ms: MoE 17.18 %
  // (17.37 % with the 25.11 GB300 row ungraphed too), worse, kept because the recipes are read
  // (docs/accuracy.md). The gpt-oss-120b 26.04 rows with their release's V2 presets (B300 / B200 HybridEP,
  // GB200 HybridEP with the overlap: PRs 2906 / 2915), waits refitted to the same 7.75 / 5.60 ms: MoE
  // 17.42 %, worse (GB200 +14.7 -> +25.3 %), kept because the presets are read. Tensor-parallel overlap per
  // GEMM (the H100 Qwen3-235B TP 2 rows) and the refit (waits 7.85 / 5.60 ms): 17.44 %. gpt-oss's expert
  // output bias applied in eager PyTorch (Megatron's TEGroupedMLP._apply_bias, 28 bytes per routed element,
  // training-model.yaml moe_expert_output_bias), waits refitted to the same 7.85 / 5.60 ms: 16.93 %
  // (gpt-oss-120b GB300 26.04 +21.3 -> +17.3 %, B300 26.02 +66.9 -> +63.5 %).
  EXPECT_LE(moe_sum / moe, 0.1694);
  // All 110 rows: 10.77 % with both the release-scoped MoE recipes and the FP8-CS rows' every layer in FP8
  // (11.26 % / 11.13 % with each alone; 11.63 % before both; 11.32 % before current scaling's cost); 11.02 %
  // with the pre-full-iteration recipes above; 11.14 % with gpt-oss's 26.04 presets; 11.06 % with the
  // tensor-parallel overlap per GEMM; 10.88 % over 118 rows with the 8 cdna3 rows (8.44 % among them);
  // goal 5 %, not reached; 10.65 % with gpt-oss's expert output bias (above), and with the MI325X at AMD's
  // measured max-achievable rate over the MI300X's (cdna3 refit 0.415 -> 0.370): 10.49 %.
  EXPECT_LE(fit.mean_abs_error, 0.1050);
}

TEST(TrainingRuns, EvaluationSetErrorsAsReached) {
  const ValidationSummary evaluation = summarize_set(predictions(), "evaluation");
  for (const auto& row : predictions()) {
    if (row.run.predictable && row.run.set == "evaluation")
      std::cout << row.run.id << ": predicted " << row.predicted_tokens_per_s_per_gpu << ", published "
                << row.run.published_tokens_per_s_per_gpu << ", error " << 100 * row.error << " %\n";
  }
  std::cout << "evaluation set: " << evaluation.rows << " rows, mean |error| "
            << 100 * evaluation.mean_abs_error << " %, worst " << 100 * evaluation.max_abs_error << " %\n";
  EXPECT_GE(evaluation.rows, 50);
  // Goals (issue 14): mean <= 10 %, no row worse than 20 %. NOT reached: 51.3 % mean, worst 198 % at the
  // start of this pass, nearly all optimistic, from torchtitan (eager/compiled PyTorch, ring attention at
  // 32K-262K) and MosaicML's 2023 FSDP runs. These assertions hold what is reached so that a change is seen;
  // see docs/accuracy.md. Since: slowest-stage pipelines and the refit 49.3 % (worst 190 %); the torchtitan
  // Grand Teton rows on their published 96 GB HBM2e at 2.4 TB/s (the setup's system id now matches them) 45.0
  // % (worst 187 %); the 500 W bound of those rows' peak (torchtitan: between H100 NVL and SXM; the middle as
  // a stated default) 40.3 % (worst 165 %); torchtitan's "selective" as its per-op SAC 39.2 % (38.85 % with
  // the MI355X row). Attention timed by the published speed of the framework's kernel (FlashAttention-3
  // paper's H100 tables: FA2 for torchtitan and llm-foundry, cuDNN for Megatron), ring / all-gather CP
  // exchange, hopper refitted on the fit set: 24.49 %, worst 113.7 % (was 165.3 %).
  // The torchtitan "float8 rowwise" rows on the fp8-rowwise recipe, whose GEMM rate reproduces torchao's
  // published rowwise / tensorwise step ratio (not fitted on these rows): 23.37 %, worst +98.0 % (was +113.7
  // %). The Grand Teton rows' 500 W limit through the power model (GEMM clock 0.878 of the SXM's, inside
  // torchtitan's published NVL-SXM bound) instead of the bound's middle as a stated default: 21.42 %, worst
  // +91.4 % (26 rows above 20 %, were 29). The 405B rows of torchtitan's docs on the HBM2e lower-TDP SXM part
  // their footnote 1 names (94 GB, 2.4 TB/s, 500 W as the benchmark pages state for it): 20.64 %, worst +91.4
  // % (24 rows above 20 %). The Llama 3 paper's CP as the paper describes it (all-gather of K and V, Section
  // 3.3.2; was the ring default): 20.56 % (128K CP 16 row +35.3 -> +30.2 %). torchtitan's CP as PyTorch's
  // context_parallel runs it (one attention call and fp32 merge per block, fp32 dK/dV passed on after each
  // backward block, the last exposed): 20.25 % (8B CP 2/4/8 +9.7/+51.5/+61.3 -> +7.9/+47.5/+56.1 %); its
  // keys and values repeated to every query head as torchtitan hands them to SDPA: 19.73 % (405B CP 2/4/8
  // +36.3/+36.6/+57.6 -> +30.5/+29.9/+42.5 %). Its copies of the keys and values before every block but the
  // last, in both passes: 19.67 % (8B CP 2/4/8 +6.4/+45.0/+53.1 %, 405B +30.2/+29.3/+41.6 %). torchtitan's
  // pipelines as its code builds them (Interleaved 1F1B: 2 stages per rank without split points;
  // micro-batches = the pipeline degree): 19.90 % (Table 5 interleaved 405B -6.7 -> +21.4 %, its 1F1B twin
  // +19.4 %: the schedule's published 1.28x gain now predicted 1.30x, was 1.00x). The 500 W rows at
  // Hopper's cap exponent fitted on MLPerf Inference v4.0's MaxQ runs (2.57, was the generic 3; not fitted on
  // these rows): 18.96 %, worst +88.4 % (18.79 % with the exponent alone, before the pipeline defaults).
  // torchtitan's async-TP rows as PyTorch's micro-pipelined fused ops run (the fused reduce-scatters' partial
  // sums and the backward's unfused reduce-scatters exposed; was every collective the GEMMs cover hidden):
  // 17.46 %, worst +72.7 % (8B rowwise async TP, was +88.4 %). llm-foundry's MPT rows timed by
  // FlashAttention 1.x's published H100 speed (FlashAttention-2 paper, Figure 7) as the proxy of their Triton
  // kernel, instead of FlashAttention-2's (not fitted on these rows): 15.83 % (the 26 MPT rows 17.1 -> 13.2
  // %, now both ways: +58.2 % worst before, -24.0 % after). Each fused collective hidden only behind its own
  // matmul, one chunk's matmul unhidden (was the pass's collectives behind its GEMMs pooled): 16.75 % alone,
  // worst +61.3 % (the same row); with both 15.12 %, worst +61.3 %. torchtitan's two eager 8B rows in PyTorch
  // eager mode (each unfused op's traffic read in torchtitan's code; +16.4 / +20.2 -> -0.2 / +3.0 %): the
  // mean 14.59 %. With the 3 held-out cdna3 rows (MI325X, Primus; 15.99 % among them): 14.65 % over 66 rows.
  // The MI325X at AMD's measured max-achievable rate (cdna3 refit 0.370): 14.44 %.
  EXPECT_LE(evaluation.mean_abs_error, 0.1445);
  EXPECT_LE(evaluation.max_abs_error, 0.614);
  for (const auto& row : predictions()) {
    if (row.run.id == "llama3-h100-405b-bf16-8192" || row.run.id == "llama3-h100-405b-bf16-16384") {
      EXPECT_LE(std::abs(row.error), 0.10) << row.run.id;  // -6.2 % and -9.6 % (were -9.4 % and -12.7 %)
    }
  }
}

// torchtitan's Grand Teton H100s run at the default 500 W limit (both benchmark pages' Hardware sections):
// the GEMM clock is the power model's at 500 W (data/power/power-model.yaml), which lands inside the bound
// footnote 2 of the 2024-12 page gives ("between SXM and NVL"); the memory-bound draw (300 W) is under the
// limit, so the published 2.4 TB/s is kept. The 405B rows of torchtitan's docs/performance.md ran on the same
// part (its footnote 1: "HBM2e based lower TDP SXM H100(95GB)"), with the 94 GB its text states.
TEST(TrainingRuns, PowerLimitedRowsRunAtThePowerModelsClock) {
  const auto power = load_power_model(source_path("data/power/power-model.yaml"));
  ASSERT_TRUE(power.ok()) << power.error_text();
  const Accelerator* sxm = perf_setup().catalog.find<Accelerator>("h100-sxm");
  const Accelerator* nvl = perf_setup().catalog.find<Accelerator>("h100-nvl");
  ASSERT_NE(sxm, nullptr);
  ASSERT_NE(nvl, nullptr);
  const auto point = power_operating_point(power.value(), *sxm, Power::from_base(500));
  ASSERT_TRUE(point.ok()) << point.error_text();
  const double sxm_peak = sxm->dense_compute.at("bf16")->base();
  const double nvl_peak = nvl->dense_compute.at("bf16")->base();
  ASSERT_LT(point.value().compute_factor, 1.0);
  int limited = 0, docs = 0;
  auto peak_of = [](const ReferenceRun& run) {
    return run.hardware.accelerator.dense_compute.at("bf16")->base();
  };
  for (const auto& run : runs()) {
    const bool docs_row = run.id.rfind("ttdoc-", 0) == 0;
    if (run.id.rfind("tt2412-", 0) == 0 || run.id.rfind("ttasync-", 0) == 0 || docs_row) {
      const double peak = peak_of(run);
      ++limited;
      EXPECT_NEAR(peak, sxm_peak * point.value().compute_factor, 1e-6 * sxm_peak) << run.id;
      EXPECT_GT(peak, nvl_peak) << run.id;  // inside torchtitan's published bound
      EXPECT_LT(peak, sxm_peak) << run.id;
      EXPECT_NEAR(run.hardware.accelerator.memory_bandwidth.base(), 8 * 2.4e12, 1e6) << run.id;  // bits/s
      const double fp8 = run.hardware.accelerator.dense_compute.at("fp8")->base();
      EXPECT_NEAR(fp8, sxm->dense_compute.at("fp8")->base() * point.value().compute_factor, 1e-6 * fp8);
      if (docs_row) {
        ++docs;
        EXPECT_NEAR(run.hardware.accelerator.memory.base(), 94e9, 1e3) << run.id;
      }
    }
  }
  EXPECT_EQ(limited, 33);
  EXPECT_EQ(docs, 3);
}

// A power limit the power model refuses (below the H100's published 200 W minimum) is an error at the setup
// line that states it.
TEST(TrainingRuns, APowerLimitOutsideTheSettableRangeIsALocatedError) {
  std::ifstream in(source_path("data/reference/training-runs-setup.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("power_limit: 500 W", "power_limit: 100 W");
  replace("power_model: ../power/power-model.yaml",
          "power_model: " + source_path("data/power/power-model.yaml"));
  replace("file: ../perf/precision-recipes.yaml", "file: " + source_path("data/perf/precision-recipes.yaml"));
  int line = 1;
  for (std::size_t i = 0; i < text.find("power_limit: 100 W"); ++i) line += text[i] == '\n' ? 1 : 0;
  const std::string path = ::testing::TempDir() + "/setup-low-limit.yaml";
  std::ofstream(path) << text;
  const auto loaded =
      load_reference_runs(perf_setup().catalog, perf_setup().calibration.gemm, model_presets(),
                          source_path("data/reference/training-runs.yaml"), path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error_text().find("setup-low-limit.yaml:" + std::to_string(line)), std::string::npos)
      << loaded.error_text();
  EXPECT_NE(loaded.error_text().find("power_limit"), std::string::npos) << loaded.error_text();
  EXPECT_NE(loaded.error_text().find("h100-sxm"), std::string::npos) << loaded.error_text();
}

// The bundled setup with llm-foundry's kernel renamed `to`, at a temporary path (empty if the row is not
// found); `line` gets the line it is on.
std::string setup_with_foundry_kernel(const std::string& to, int& line) {
  std::ifstream in(source_path("data/reference/training-runs-setup.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto replace = [&](const std::string& from, const std::string& with) {
    const auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), with);
    return at;
  };
  replace("power_model: ../power/power-model.yaml",
          "power_model: " + source_path("data/power/power-model.yaml"));
  replace("file: ../perf/precision-recipes.yaml", "file: " + source_path("data/perf/precision-recipes.yaml"));
  const auto at = replace(
      "source: mosaic-llm-foundry, fsdp: full-shard, tp_comm_overlap: false, attention_kernel: fa1",
      "source: mosaic-llm-foundry, fsdp: full-shard, tp_comm_overlap: false, attention_kernel: " + to);
  if (at == std::string::npos) return "";
  line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  const std::string path = ::testing::TempDir() + "/setup-kernel-" + to + ".yaml";
  std::ofstream(path) << text;
  return path;
}

// A source's attention_kernel is one the GEMM model defines, not one of a list in code: a kernel only a
// test's model holds (FlashAttention 1.x's tables under another name) is accepted and times llm-foundry's
// rows as fa1 does; the bundled model refuses the name at its line.
TEST(TrainingRuns, ASourcesAttentionKernelIsOneTheGemmModelDefines) {
  int line = 0;
  const std::string path = setup_with_foundry_kernel("fa1-renamed", line);
  ASSERT_FALSE(path.empty()) << "llm-foundry's setup row with attention_kernel: fa1";
  const std::string runs_path = source_path("data/reference/training-runs.yaml");
  const auto refused = load_reference_runs(perf_setup().catalog, perf_setup().calibration.gemm,
                                           model_presets(), runs_path, path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error_text().find("setup-kernel-fa1-renamed.yaml:" + std::to_string(line)),
            std::string::npos)
      << refused.error_text();
  EXPECT_NE(refused.error_text().find("attention_kernel"), std::string::npos) << refused.error_text();
  EXPECT_NE(refused.error_text().find("'fa1-renamed'"), std::string::npos) << refused.error_text();

  TrainingCalibration calibration = perf_setup().calibration;
  std::vector<AttentionKernel> kernels = calibration.gemm.attention_kernels();
  for (const AttentionKernel& k : perf_setup().calibration.gemm.attention_kernels()) {
    if (k.name != "fa1") continue;
    kernels.push_back(k);
    kernels.back().name = "fa1-renamed";
  }
  calibration.gemm.set_attention_kernels(kernels);
  const auto loaded =
      load_reference_runs(perf_setup().catalog, calibration.gemm, model_presets(), runs_path, path);
  ASSERT_TRUE(loaded.ok()) << loaded.error_text();
  std::vector<ReferenceRun> renamed, bundled;
  for (const ReferenceRun& run : loaded.value()) {
    if (run.source == "mosaic-llm-foundry" && run.predictable) renamed.push_back(run);
  }
  for (const ReferenceRun& run : runs()) {
    if (run.source == "mosaic-llm-foundry" && run.predictable) bundled.push_back(run);
  }
  ASSERT_FALSE(renamed.empty());
  ASSERT_EQ(bundled.size(), renamed.size());
  const auto renamed_rows = predict_reference_runs(perf_setup().collectives, calibration, renamed);
  const auto bundled_rows =
      predict_reference_runs(perf_setup().collectives, perf_setup().calibration, bundled);
  for (std::size_t i = 0; i < renamed_rows.size(); ++i) {
    EXPECT_EQ(renamed_rows[i].run.config.attention_kernel, "fa1-renamed") << renamed_rows[i].run.id;
    EXPECT_NE(renamed_rows[i].estimate.attention_rule.find("fa1-renamed"), std::string::npos)
        << renamed_rows[i].estimate.attention_rule;
    EXPECT_DOUBLE_EQ(renamed_rows[i].estimate.step_time_s, bundled_rows[i].estimate.step_time_s)
        << renamed_rows[i].run.id;
  }
}

// The Llama 3 paper (Section 3.3.2) all-gathers keys and values for context parallelism; PyTorch's
// (torchtitan) all-gathers them too but runs one attention call and merge per block; Megatron's recipes pass
// them around a ring. The 128K CP 16 row then exposes its all-gather (the local block hides 1/16 of it at
// most).
TEST(TrainingRuns, ContextParallelExchangeFollowsEachSourcesDescription) {
  int llama3 = 0;
  for (const auto& row : predictions()) {
    if (!row.run.predictable) continue;
    const bool torchtitan = row.run.source.rfind("torchtitan", 0) == 0;
    EXPECT_EQ(row.run.config.context_exchange == ContextExchange::all_gather,
              row.run.source == "llama3-paper")
        << row.run.id;
    EXPECT_EQ(row.run.config.context_exchange == ContextExchange::all_gather_blocks, torchtitan)
        << row.run.id;
    if (row.run.id != "llama3-h100-405b-bf16-16384-cp16") continue;
    ++llama3;
    for (const auto& t : row.estimate.terms) {
      if (t.name == "context-parallel communication") {
        EXPECT_GT(t.seconds, 0.0);
        EXPECT_NE(t.rule.find("all-gather"), std::string::npos) << t.rule;
      }
    }
  }
  EXPECT_EQ(llama3, 1);
}

// torchtitan's pipelines as its code of the end of 2024 builds them (training-runs-setup.yaml): a multi-stage
// (interleaved) schedule without split points runs 2 stages per rank, and the local batch is split into as
// many micro-batches as the pipeline degree, 1F1B and interleaved alike (Table 5: local batch 32, PP 8: 8
// micro-batches of 4). The Llama 3 paper's interleaved rows keep their stated default, v = 4.
TEST(TrainingRuns, TorchtitanPipelinesFollowItsDefaultSplitAndMicroBatches) {
  int torchtitan = 0, llama3 = 0;
  for (const auto& run : runs()) {
    if (!run.predictable || run.config.pp == 1) continue;
    if (run.id == "tt2412-h100-llama3.1-405b-fp8-512" || run.id == "tt2412-h100-llama3.1-405b-fp8-512-2") {
      ++torchtitan;
      const bool interleaved = run.id == "tt2412-h100-llama3.1-405b-fp8-512-2";
      EXPECT_EQ(run.config.virtual_stages, interleaved ? 2 : 1) << run.id;
      EXPECT_EQ(run.config.micro_batch, 4) << run.id;
      EXPECT_EQ(run.config.micro_batches(), 8) << run.id;
      // 126 layers on 16 stages: 7, 8 x 14, 7; rank 0 holds stages 0 and 8, rank 7 stages 7 and 15.
      if (interleaved) {
        EXPECT_EQ(layers_on_rank(run.model, run.config, 0), 15) << run.id;
        EXPECT_EQ(layers_on_rank(run.model, run.config, 3), 16) << run.id;
        EXPECT_EQ(layers_on_rank(run.model, run.config, 7), 15) << run.id;
      }
    }
    if (run.source == "llama3-paper") {
      ++llama3;
      EXPECT_EQ(run.config.virtual_stages, 4) << run.id;
    }
  }
  EXPECT_EQ(torchtitan, 2);
  EXPECT_GE(llama3, 2);
}

// The attention kernel is a setup fact per source (training-runs-setup.yaml): llm-foundry's MPT rows take
// FlashAttention 1.x's H100 table as the proxy of their FA1-style Triton kernel, torchtitan's FA2, Megatron's
// the architecture's default (empty: cuDNN on hopper).
TEST(TrainingRuns, EachSourceRunsItsFrameworksAttentionKernel) {
  int foundry = 0;
  for (const auto& run : runs()) {
    if (run.source == "mosaic-llm-foundry") {
      ++foundry;
      EXPECT_EQ(run.config.attention_kernel, "fa1") << run.id;
    }
    if (run.source.rfind("torchtitan", 0) == 0 && run.predictable) {  // the H200 rows: no split published
      EXPECT_EQ(run.config.attention_kernel, "fa2") << run.id;
    }
    if (run.source.rfind("mbridge", 0) == 0) {
      EXPECT_EQ(run.config.attention_kernel, "") << run.id;
    }
  }
  EXPECT_EQ(foundry, 26);
}

// Issue 14 item 7: a row the model cannot explain stays with its error and a reason. Every evaluation row
// worse than 20 % must be named by an entry of data/reference/training-gaps.yaml (a diagnosis, never an
// input): a row that crosses 20 % after a change fails here until its reason is stated.
TEST(TrainingRuns, EveryEvaluationRowAboveTwentyPercentHasAStatedReason) {
  const auto gaps = load_known_gaps(source_path("data/reference/training-gaps.yaml"), runs());
  ASSERT_TRUE(gaps.ok()) << gaps.error_text();
  int above = 0;
  for (const auto& row : predictions()) {
    if (!row.run.predictable || row.run.set != "evaluation" || std::abs(row.error) <= 0.20) continue;
    ++above;
    const KnownGap* gap = known_gap_of(gaps.value(), row.run.id);
    EXPECT_NE(gap, nullptr) << row.run.id << " is " << 100 * row.error << " % off with no stated reason";
    if (gap != nullptr) {
      EXPECT_FALSE(gap->reason.empty()) << gap->id;
    }
  }
  // 29 before the power-limit pass's changes; 24 until torchtitan's interleaved 405B row ran its default 2
  // stages per rank (-6.7 -> +21.4 %, beside its 1F1B twin's +19.4 %): 25; 23 with Hopper's fitted cap
  // exponent on the 500 W rows; still 23 with PyTorch's async-TP structure (the four async-TP rows above 20 %
  // come closer but stay above it; the other rows it moves were under 20 % before). 19 with the MPT rows on
  // FlashAttention 1.x's H100 speed: seven MPT rows come under 20 %, three cross it the other way (-20.4 to
  // -24.0 %), three stay above it; 22 with each collective behind its own matmul alone (8B bf16 async TP
  // +21.4 -> +16.5 %); 18 with both. 17 with torchtitan's eager 8B row in PyTorch eager mode (+20.2 -> +3.0
  // %). 18 with the held-out cdna3 rows (MI325X 70B BF16, -27.0 %: training-gaps.yaml
  // cdna3-mi325x-70b-bf16).
  EXPECT_EQ(above, 18);
}

// A gap naming a row that is not in training-runs.yaml, or a row under two gaps, is refused at its line.
TEST(TrainingRuns, AKnownGapNamingAnUnknownOrRepeatedRowIsALocatedError) {
  const auto load = [](const std::string& path) { return load_known_gaps(path, runs()); };
  gputwin::testing::expect_located_error(
      load,
      "gaps:\n  - id: a\n    rows: [tt2412-h100-llama3.1-8b-bf16-8]\n    reason: "
      "x\n  - id: b\n    rows:\n      - no-such-row\n    reason: y\n",
      7, {"no-such-row"});
  gputwin::testing::expect_located_error(
      load,
      "gaps:\n  - id: a\n    rows: [tt2412-h100-llama3.1-8b-bf16-8]\n    reason: x\n"
      "  - id: b\n    rows:\n      - tt2412-h100-llama3.1-8b-bf16-8\n    reason: y\n",
      7, {"already under gap 'a'"});
}

// The GB200 Llama 3.1 405B runs split 126 layers over 16 x 8 one-layer chunks (the embedding and the loss
// take the first and the last chunk, Megatron's account_for_embedding/loss_in_pipeline_split): predicted, the
// MXFP8 rows within 1 %, the NVFP4 rows optimistic (the recipe's pieces kept in BF16 are not published).
TEST(TrainingRuns, Gb200405bRowsOnSixteenByEightChunksArePredicted) {
  int rows = 0;
  for (const auto& row : predictions()) {
    if (row.run.gpu != "GB200" || row.run.model_id != "llama3.1-405b" || row.run.config.virtual_stages != 8)
      continue;
    ++rows;
    ASSERT_TRUE(row.run.predictable) << row.run.id << ": " << row.run.why_not;
    EXPECT_EQ(layer_split(row.run.model, row.run.config), LayerSplit::ends_lighter) << row.run.id;
    EXPECT_EQ(layers_on_rank(row.run.model, row.run.config, 0), 7) << row.run.id;
    EXPECT_LE(std::abs(row.error), row.run.precision == "nvfp4" ? 0.14 : 0.02) << row.run.id;
  }
  EXPECT_EQ(rows, 4);
}

// The harness takes each row's recipe: Megatron-Bridge's FP8-CS / FP8 rows run current scaling with every
// transformer layer in FP8, as its performance scripts set the recipe (first_last_layers_bf16 = False); MXFP8
// and NVFP4 rows run at their own precision.
TEST(TrainingRuns, RowsRunTheirPrecisionRecipe) {
  int cs = 0, mx = 0, fp4 = 0;
  for (const auto& run : runs()) {
    if (!run.predictable) continue;
    // Megatron-Bridge's FP8 rows (25.11 "FP8-CS"; 26.02/26.04 "FP8", whose presets are FP8_CS): current
    // scaling, no layer in BF16 (the performance scripts' get_precision_config turns the library recipe's
    // BF16 first and last layers off). NeMo 24.07's FP8 (Transformer Engine's delayed scaling then): no
    // scaling entry, the cast rule.
    if (run.source.rfind("mbridge-", 0) == 0 && run.precision == "fp8") {
      ++cs;
      EXPECT_EQ(run.config.bf16_layers_at_start, 0) << run.id;
      EXPECT_EQ(run.config.bf16_layers_at_end, 0) << run.id;
      EXPECT_EQ(run.config.fp8_scaling, "current") << run.id;
    }
    if (run.source == "nemo-24.07" && run.precision == "fp8") {
      EXPECT_EQ(run.config.fp8_scaling, "") << run.id;
    }
    if (run.precision == "mxfp8") ++mx;
    if (run.precision == "nvfp4") ++fp4;
    if (run.precision == "mxfp8" || run.precision == "nvfp4") {
      EXPECT_EQ(run.config.precision, run.precision) << run.id;
      EXPECT_EQ(run.config.bf16_layers_at_start + run.config.bf16_layers_at_end, 0) << run.id;
    }
  }
  EXPECT_GE(cs, 20);
  EXPECT_GE(mx, 20);
  EXPECT_GE(fp4, 8);
}

TEST(TrainingCalibration, RecomputesTheStoredFit) {
  const auto& s = perf_setup();
  const auto a100 = load_published_runs(source_path("data/reference/training.yaml"));
  ASSERT_TRUE(a100.ok()) << a100.error_text();
  const auto fit = fit_gemm_calibration(s.catalog, s.collectives, s.calibration, runs(), a100.value());
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  EXPECT_NEAR(fit.value().moe_layer_host_s, s.calibration.moe_layer_host_s, 1e-9);
  EXPECT_GT(s.calibration.moe_layer_host_s, 0);
  EXPECT_NEAR(fit.value().moe_layer_host_graphed_s, s.calibration.moe_layer_host_graphed_s, 1e-9);
  const auto& stored = s.calibration.gemm.architectures();
  const auto& refitted = fit.value().gemm.architectures();
  ASSERT_EQ(stored.size(), refitted.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    ASSERT_EQ(stored[i].peak_fraction.has_value(), refitted[i].peak_fraction.has_value()) << stored[i].name;
    if (stored[i].peak_fraction) {
      EXPECT_NEAR(*refitted[i].peak_fraction, *stored[i].peak_fraction, 1e-9) << stored[i].name;
    }
  }
}

// fp8-rowwise's gemm_rate is the value that reproduces torchao's published rowwise / tensorwise step ratio
// on the benchmark's setup (fit_recipe_gemm_rate re-runs it), and the torchtitan rows labelled "float8
// rowwise" run that recipe.
TEST(TrainingCalibration, RowwiseGemmRateReproducesTorchaosBenchmark) {
  const auto& s = perf_setup();
  const auto recipes = load_precision_recipes(source_path("data/perf/precision-recipes.yaml"));
  ASSERT_TRUE(recipes.ok()) << recipes.error_text();
  const PrecisionRecipe* rowwise = find_recipe(recipes.value(), "fp8-rowwise");
  ASSERT_NE(rowwise, nullptr);
  const auto fit = fit_recipe_gemm_rate(s.collectives, s.calibration, runs(), model_presets(), *rowwise);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  EXPECT_NEAR(fit.value(), rowwise->gemm_rate, 1e-9);
  const auto ratio =
      recipe_step_ratio(s.collectives, s.calibration, runs(), model_presets(), *rowwise, rowwise->gemm_rate);
  ASSERT_TRUE(ratio.ok()) << ratio.error_text();
  EXPECT_NEAR(ratio.value(), rowwise->rate_benchmark->published_step_ratio, 0.01);
  int rows = 0;
  for (const auto& run : runs()) {
    if (run.id.find("rowwise") == std::string::npos) continue;
    ++rows;
    EXPECT_EQ(run.config.gemm_rate, rowwise->gemm_rate) << run.id;
  }
  EXPECT_EQ(rows, 4);
}

// Megatron reduces the routed experts' gradients over the expert-data-parallel group: gpt-oss-120b with
// expert parallelism 8 inside each 8-GPU B200 node reduces them over 8 ranks one per node (the NICs alone);
// with expert parallelism 64 every GPU holds its own experts and there is nothing to reduce for them.
TEST(TrainingRuns, ExpertGradientsAreReducedOverTheExpertDataParallelGroup) {
  const auto& s = perf_setup();
  const ReferenceRun* run = nullptr;
  for (const auto& r : runs())
    if (r.id == "mb2604-b200-gpt-oss-120b-bf16-64") run = &r;
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(run->config.ep, 8);
  auto data_parallel_s = [&](int ep, bool overlap) {
    TrainingConfig c = run->config;
    c.ep = ep;
    c.overlap_data_parallel = overlap;
    const auto e = estimate_training(run->hardware, s.collectives, s.calibration, run->model, c);
    for (const auto& t : e.terms)
      if (t.name == "data-parallel communication") return t.seconds;
    return -1.0;
  };
  const double ep8 = data_parallel_s(8, false), ep64 = data_parallel_s(64, false);
  EXPECT_GT(ep64, 0);  // the dense parameters still are reduced over all 64 ranks
  EXPECT_GT(ep8, 5 * ep64);
  EXPECT_GT(data_parallel_s(8, true), 0);  // more than one micro-batch's backward pass hides
}

TEST(TrainingRuns, FitNeverReadsEvaluationRows) {
  // Spoil every evaluation row's published figure: the fit must not move.
  std::vector<ReferenceRun> spoiled = runs();
  for (auto& run : spoiled) {
    if (run.set == "evaluation") run.published_tokens_per_s_per_gpu *= 3;
  }
  const auto& s = perf_setup();
  const auto a = fit_gemm_calibration(s.catalog, s.collectives, s.calibration, runs(), {});
  const auto b = fit_gemm_calibration(s.catalog, s.collectives, s.calibration, spoiled, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().moe_layer_host_s, b.value().moe_layer_host_s);
  for (std::size_t i = 0; i < a.value().gemm.architectures().size(); ++i)
    EXPECT_EQ(a.value().gemm.architectures()[i].peak_fraction,
              b.value().gemm.architectures()[i].peak_fraction);
}

// AMD's MLPerf Training Llama 3.1 8B runs on 8 x MI355X: v5.1 (FP8) is the cdna4 fit source, v6.0 (MXFP4,
// Primus) is held out. Their logs count samples (8,192-token sequences) per second of the whole job: v5.1
// prints it (tracked_stats), v6.0's is derived from one block's time and kept under `derived`.
TEST(TrainingRuns, AmdMlperfRowsAreSplitBySourceAndComparedOnTokensPerGpu) {
  int found = 0;
  for (const auto& run : runs()) {
    if (run.gpu != "MI355X") continue;
    ++found;
    ASSERT_TRUE(run.predictable) << run.id << ": " << run.why_not;
    EXPECT_EQ(run.config.dp, 8) << run.id;
    EXPECT_EQ(run.config.micro_batch, 2) << run.id;
    EXPECT_EQ(run.config.global_batch, 32) << run.id;
    EXPECT_EQ(run.hardware.accelerator.architecture, "cdna4") << run.id;
    if (run.source == "mlperf-training-v5.1-amd") {
      EXPECT_EQ(run.set, "fit");
      EXPECT_EQ(run.config.precision, "fp8");
      EXPECT_NEAR(run.published_tokens_per_s_per_gpu, 30.61911039028611 * 8192 / 8, 1e-6);
      EXPECT_EQ(run.compared_on, "samples/s x seq / GPUs");
    } else {
      EXPECT_EQ(run.source, "mlperf-training-v6.0-amd");
      EXPECT_EQ(run.set, "evaluation");
      EXPECT_EQ(run.config.precision, "mxfp4");  // the recipe of data/perf/precision-recipes.yaml
      EXPECT_NEAR(run.published_tokens_per_s_per_gpu, 36.6664 * 8192 / 8, 1e-6);
      EXPECT_NE(run.compared_on.find("derived"), std::string::npos) << run.compared_on;
    }
  }
  EXPECT_EQ(found, 2);
}

TEST(TrainingRuns, AmdErrorsAsReached) {
  const ValidationSummary fit = summarize_set(predictions(), "fit", "cdna4");
  const ValidationSummary evaluation = summarize_set(predictions(), "evaluation", "cdna4");
  for (const auto& row : predictions()) {
    if (row.run.gpu == "MI355X")
      std::cout << row.run.id << " (" << row.run.set << "): predicted " << row.predicted_tokens_per_s_per_gpu
                << ", published " << row.run.published_tokens_per_s_per_gpu << ", error " << 100 * row.error
                << " %\n";
  }
  ASSERT_EQ(fit.rows, 1);
  ASSERT_EQ(evaluation.rows, 1);
  // cdna4's one fraction fitted on its one fit row (0.505): the grid's 0.005 step leaves +0.26 %.
  EXPECT_LE(fit.mean_abs_error, 0.003);
  // The held-out MXFP4 row: +15.2 % (optimistic: MXFP4 GEMMs at the whole FP4 rate x the fraction fitted on
  // FP8; the recipe's Hadamard transform and scaling costs beyond the cast are not modelled).
  EXPECT_LE(evaluation.mean_abs_error, 0.155);
  EXPECT_GT(evaluation.mean_abs_error, 0.0);
}

// cdna3 (MI300X, MI325X): AMD's ROCm PyTorch training container reference (amd-pytorch-training-v25.2), 8 fit
// rows; the held-out rows are another source (Cdna3EvaluationRowsAsReached). Measured with the stored 0.415:
// mean |error| 8.44 %, worst
// 15.40 % (MI325X BF16 4K, -15.4 %: the catalog gives MI325X MI300X's peak, the published BF16 rows run 18 %
// faster; MI300X FP8 +15.3 / +14.4 %: delayed-scaling FP8 in eager mode is slower than the FP8 peak x the
// fraction fitted with the BF16 rows).
TEST(TrainingRuns, Cdna3FitRowsAsReached) {
  const ValidationSummary fit = summarize_set(predictions(), "fit", "cdna3");
  ASSERT_EQ(fit.rows, 8);
  // The MI325X at AMD's measured max-achievable rate over the MI300X's (gemm-efficiency.yaml
  // sustained_rates), refit 0.370: 6.15 %, worst 10.60 % (BF16 -8.6 to -10.6 %, FP8 +1.0 to +4.4 %).
  EXPECT_LE(fit.mean_abs_error, 0.0616);
  EXPECT_LE(fit.max_abs_error, 0.107);
}

// cdna3 held out: AMD's Primus (Megatron backend) runs on MI325X as AMD's Primus projection document quotes
// them from the ROCm Performance Results page (rocm/primus:v26.1): Llama 3.1 8B FP8 on 8 nodes (DP 64,
// distributed optimizer), Llama 3.1 70B FP8 and BF16 on 8 nodes (PyTorch FSDP2 over 64 GPUs, full
// recomputation from the configs). Never fitted on. Measured with cdna3's 0.415: -8.5, -12.4 and -27.0 %,
// mean |error| 15.99 %: all pessimistic, the MI325X sustaining a higher GEMM clock than the MI300X that
// shares the fitted fraction (AMD's Max-Achievable FLOPs: 843 vs 708 TFLOP/s BF16; training-gaps.yaml).
TEST(TrainingRuns, Cdna3EvaluationRowsAsReached) {
  int read = 0;
  for (const auto& row : predictions()) {
    if (row.run.source != "primus-projection-mi325x-2026-01") continue;
    ++read;
    ASSERT_TRUE(row.run.predictable) << row.run.id << ": " << row.run.why_not;
    EXPECT_EQ(row.run.set, "evaluation");
    EXPECT_EQ(row.run.hardware.accelerator.architecture, "cdna3") << row.run.id;
    EXPECT_LT(row.error, 0.0) << row.run.id;  // every one pessimistic
    const bool fsdp = row.run.model_id == "llama3.1-70b";
    EXPECT_EQ(row.run.config.zero, fsdp ? 3 : 1) << row.run.id;
    EXPECT_EQ(row.run.config.dp, row.run.gpus) << row.run.id;
    EXPECT_EQ(row.run.config.global_batch, row.run.config.micro_batch * row.run.gpus) << row.run.id;
  }
  EXPECT_EQ(read, 3);
  const ValidationSummary evaluation = summarize_set(predictions(), "evaluation", "cdna3");
  ASSERT_EQ(evaluation.rows, 3);
  // With the MI325X at AMD's measured max-achievable rate (cdna3 refit 0.370): -3.6, -7.3, -22.8 %, 11.23 %.
  EXPECT_LE(evaluation.mean_abs_error, 0.1124);
  EXPECT_LE(evaluation.max_abs_error, 0.228);
}

// The rows publish TFLOP/s by the benchmark's own formula (llama.py estimate_flops_per_token); the tokens/s
// they are compared on is that over its FLOPs per token, by hand for Llama 3.1 8B at 8,192 tokens: weights 32
// x (6 x 4096 x 14336 + 2 x 4096 x 48 x 128 + 2 x 4096 x 4096) + 2 x 4096 x 128256 = 15,009,316,864, x 3 =
// 45,027,950,592; attention 3 x 32 x 4 x 8192 x 4096 = 12,884,901,888; 57,912,852,480 in all.
TEST(TrainingRuns, Cdna3RowsAreComparedOnTheSourcesFlopFormula) {
  for (const auto& row : predictions()) {
    if (row.run.id != "amdpt252-mi300x-llama3.1-8b-bf16-8k-8") continue;
    EXPECT_NEAR(row.run.published_tokens_per_s_per_gpu, 542.94e12 / 57912852480.0, 0.1);
    EXPECT_EQ(row.run.config.zero, 3);
    EXPECT_EQ(row.run.config.global_batch, 3 * 8 * 8);
    return;
  }
  FAIL() << "row amdpt252-mi300x-llama3.1-8b-bf16-8k-8 not read";
}

TEST(TrainingRuns, ANegativeSamplesPerSecondIsALocatedError) {
  std::ifstream in(source_path("data/reference/training-runs.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const int line = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 2;
  text +=
      "\n  - {id: bad, source: mlperf-training-v5.1-amd, gpu: MI355X, model: llama3.1-8b, gpus: 8, tp: 1, "
      "pp: 1, mbs: 2, gbs: 32, seq: 8192, precision: FP8, samples_per_s: -30.6}\n";
  const std::string path = ::testing::TempDir() + "/runs-bad-samples.yaml";
  std::ofstream(path) << text;
  const auto loaded =
      load_reference_runs(perf_setup().catalog, perf_setup().calibration.gemm, model_presets(), path,
                          source_path("data/reference/training-runs-setup.yaml"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error_text().find("runs-bad-samples.yaml:" + std::to_string(line)), std::string::npos)
      << loaded.error_text();
  EXPECT_NE(loaded.error_text().find("samples_per_s"), std::string::npos) << loaded.error_text();
}

TEST(TrainingRuns, UnknownSourceInTheSetupIsALocatedError) {
  gputwin::testing::expect_located_error(
      [](const std::string& path) {
        return load_reference_runs(perf_setup().catalog, perf_setup().calibration.gemm, model_presets(),
                                   source_path("data/reference/training-runs.yaml"), path);
      },
      "hardware: []\nsystems: []\nmodels: {}\nsources:\n"
      "  - {source: no-such-source, fsdp: degree, tp_comm_overlap: false}\n"
      "precision_recipes: {file: " +
          source_path("data/perf/precision-recipes.yaml") + ", labels: []}\n",
      5, {"no-such-source"});
}

// The error of loading the bundled runs with a setup file `name` whose moe_recipes list holds `recipe_rows`
// (lines 7 onwards) and nothing else; empty when it loads.
std::string moe_recipes_error(const std::string& name, const std::string& recipe_rows) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << "hardware: []\nsystems: []\nmodels: {}\nsources: []\n"
                         "precision_recipes: {file: " +
                             source_path("data/perf/precision-recipes.yaml") + ", labels: []}\n" +
                             "moe_recipes:\n" + recipe_rows;
  const auto loaded =
      load_reference_runs(perf_setup().catalog, perf_setup().calibration.gemm, model_presets(),
                          source_path("data/reference/training-runs.yaml"), path);
  return loaded.ok() ? std::string() : loaded.error_text();
}

// A (GPU, model, precision) given two MoE recipe settings is refused at its line.
TEST(TrainingRuns, MoeRecipeListedTwiceIsALocatedError) {
  const std::string error = moe_recipes_error(
      "setup-moe-twice.yaml",
      "  - {gpu: H100, model: qwen3-30b-a3b, precisions: [FP8], expert_comm_overlap: true, source: a}\n"
      "  - {gpu: H100, model: qwen3-30b-a3b, precisions: [BF16, FP8], expert_comm_overlap: false, source: "
      "b}\n");
  EXPECT_NE(error.find("setup-moe-twice.yaml:8"), std::string::npos) << error;
  EXPECT_NE(error.find("listed twice"), std::string::npos) << error;
}

// A MoE recipe row that states neither setting is refused at its line.
TEST(TrainingRuns, MoeRecipeWithNoSettingIsALocatedError) {
  const std::string error = moe_recipes_error(
      "setup-moe-empty.yaml", "  - {gpu: H100, model: qwen3-30b-a3b, precisions: [FP8], source: a}\n");
  EXPECT_NE(error.find("setup-moe-empty.yaml:7"), std::string::npos) << error;
  EXPECT_NE(error.find("neither"), std::string::npos) << error;
}

// A recipe that changed between releases: the entry scoped to a row's own release (moe_recipes releases)
// wins over the entry for every release. Megatron-Bridge PR 1760 (after 25.11) disabled the B200
// Qwen3-235B recipe's moe_a2a_overlap: the 25.11 row ran with it, the 26.02 row without.
TEST(TrainingRuns, MoeRecipeOfTheRowsOwnReleaseWins) {
  int checked = 0;
  for (const auto& run : runs()) {
    if (!run.predictable || run.gpu != "B200" || run.model_id != "qwen3-235b-a22b") continue;
    if (run.source == "mbridge-25.11") {
      EXPECT_TRUE(run.config.expert_comm_overlap) << run.id;
    }
    if (run.source == "mbridge-26.02") {
      EXPECT_FALSE(run.config.expert_comm_overlap) << run.id;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  // Setting by setting: the B300 DeepSeek-V3 26.02/26.04 entry states that those releases ran without CUDA
  // graphs (issue 3385) and without the all-to-all overlap (PR 4458 added it later); their dispatcher (flex)
  // comes from the entry for every release, which names none of these releases.
  int b300 = 0;
  for (const auto& run : runs()) {
    if (!run.predictable || run.gpu != "B300" || run.model_id != "deepseek-v3") continue;
    ++b300;
    EXPECT_FALSE(run.config.moe_cuda_graphs) << run.id;
    EXPECT_FALSE(run.config.expert_comm_overlap) << run.id;
    EXPECT_TRUE(run.config.expert_dispatch_dedup) << run.id;
  }
  EXPECT_GE(b300, 2);
}

// gpt-oss-120b's V2 presets (GBS 1280, the 26.02 / 26.04 rows' batch) changed between the two releases:
// before Megatron-Bridge PRs 2906 / 2915 (2026-03-19/20) every V2 preset was its V1 preset with GBS 1280;
// after them B300 and B200 run EP 8 with the HybridEP (flex) dispatcher and GB200 HybridEP with the
// all-to-all overlap. The 26.04 rows take the later presets, the 26.02 rows the earlier, setting by setting;
// B300 keeps its CUDA graphs in both.
TEST(TrainingRuns, GptOssRowsRunTheirReleasesV2Presets) {
  int checked = 0;
  for (const auto& run : runs()) {
    if (!run.predictable || run.model_id != "gpt-oss-120b") continue;
    if (run.gpu != "B300" && run.gpu != "B200" && run.gpu != "GB200") continue;
    if (run.source != "mbridge-26.02" && run.source != "mbridge-26.04") continue;
    ++checked;
    const bool later = run.source == "mbridge-26.04";
    EXPECT_EQ(run.config.expert_dispatch_dedup, later) << run.id;
    EXPECT_EQ(run.config.expert_comm_overlap, later && run.gpu == "GB200") << run.id;
    EXPECT_EQ(run.config.moe_cuda_graphs, run.gpu == "B300") << run.id;
    if (run.gpu != "GB200") {
      EXPECT_EQ(run.config.ep, later ? 8 : 64) << run.id;  // the published split agrees with the preset read
    }
  }
  EXPECT_EQ(checked, 6);
}

// No fit row ran a full-iteration CUDA graph: Megatron-Bridge brought it, with the all-to-all overlap, to the
// DeepSeek-V3 MXFP8 recipes on GB300 (PR 3983) and GB200 (PR 4226) and to Kimi K2 on GB300 (PR 5168), all
// after the 26.04 release. Those rows run their releases' presets: GB300 26.02/26.04 and Kimi K2 without
// graphs (the shared base sets no cuda_graph_impl; the recipe's default is none), GB200 with the router
// graphed (it aliased the BF16 preset), GB300 25.11 with it too (the 25.11-era preset aliases the graphed
// GB300 base; PR 2152 moved it to "MBS2 no CG" on 2026-01-30, PR 2285 calls the earlier one "MBS1+CG"), none
// with the overlap, every one with the flex (HybridEP) dispatcher.
TEST(TrainingRuns, NoFitRowRanAFullIterationGraphBeforeItsRecipeHadOne) {
  int checked = 0;
  for (const auto& run : runs()) {
    if (!run.predictable || run.set != "fit" || run.precision != "mxfp8") continue;
    const bool deepseek_nvl72 = run.model_id == "deepseek-v3" && (run.gpu == "GB300" || run.gpu == "GB200");
    const bool kimi = run.model_id == "kimi-k2" && run.gpu == "GB300";
    if (!deepseek_nvl72 && !kimi) continue;
    ++checked;
    EXPECT_FALSE(run.config.expert_comm_overlap) << run.id;
    const bool graphed = run.gpu == "GB200" || (!kimi && run.source == "mbridge-25.11");
    EXPECT_EQ(run.config.moe_cuda_graphs, graphed) << run.id;
    EXPECT_TRUE(run.config.expert_dispatch_dedup) << run.id;
  }
  EXPECT_EQ(checked, 7);  // DeepSeek-V3 GB300 and GB200 25.11 / 26.02 / 26.04, Kimi K2 26.04
  // No fit row at all sets both the CUDA graphs and the overlap: the full-iteration recipes' mark in the setup.
  for (const auto& run : runs()) {
    if (!run.predictable || run.set != "fit" || !run.model.is_moe()) continue;
    EXPECT_FALSE(run.config.moe_cuda_graphs && run.config.expert_comm_overlap) << run.id;
  }
}

// A MoE recipe scoped to a release that training-runs.yaml does not have is refused at that release's line.
TEST(TrainingRuns, MoeRecipeOfAnUnknownReleaseIsALocatedError) {
  const std::string error =
      moe_recipes_error("setup-moe-release.yaml",
                        "  - {gpu: H100, model: qwen3-30b-a3b, precisions: [FP8],\n"
                        "     releases: [mbridge-99.01], moe_cuda_graphs: false, source: a}\n");
  EXPECT_NE(error.find("setup-moe-release.yaml:8"), std::string::npos) << error;
  EXPECT_NE(error.find("mbridge-99.01"), std::string::npos) << error;
  // An empty list would scope the entry to every release; it is refused, not read as "all".
  const std::string empty =
      moe_recipes_error("setup-moe-no-release.yaml",
                        "  - {gpu: H100, model: qwen3-30b-a3b, precisions: [FP8],\n"
                        "     releases: [], moe_cuda_graphs: false, source: a}\n");
  EXPECT_NE(empty.find("setup-moe-no-release.yaml:8:"), std::string::npos) << empty;
  EXPECT_NE(empty.find("lists no release"), std::string::npos) << empty;
}

// A MoE recipe's dispatcher is alltoall or flex; anything else is refused at its line and field.
TEST(TrainingRuns, MoeDispatcherOtherThanAlltoallOrFlexIsALocatedError) {
  const std::string error = moe_recipes_error("setup-moe-dispatcher.yaml",
                                              "  - {gpu: H100, model: qwen3-30b-a3b, precisions: [FP8], "
                                              "moe_dispatcher: deepep, moe_cuda_graphs: false, source: a}\n");
  EXPECT_NE(error.find("setup-moe-dispatcher.yaml:7"), std::string::npos) << error;
  EXPECT_NE(error.find("moe_dispatcher"), std::string::npos) << error;
}

// PyTorch's micro-pipelined async TP is the rule of every row whose published techniques name async TP
// (torchtitan's 2024-12 Float8 rows, its performance page's 405B row and the six async rows of its 2025-06
// page, all TP 8); Megatron's rows overlap with userbuffers (their source's own tp_comm_overlap); vanilla-TP
// rows overlap nothing.
TEST(TrainingRuns, AsyncTpRowsRunPyTorchsMicroPipelinedOps) {
  int async_rows = 0, async_page = 0, userbuffers = 0;
  for (const auto& run : runs()) {
    if (!run.predictable) continue;
    const bool vanilla_row = run.id.rfind("ttasync-", 0) == 0 && run.id.find("-vanilla") != std::string::npos;
    if (names_async_tp(run)) {
      EXPECT_TRUE(run.config.tp_comm_overlap) << run.id;
      EXPECT_TRUE(run.config.tp_comm_micro_pipelined) << run.id;
      ++async_rows;
      if (run.id.rfind("ttasync-", 0) == 0) ++async_page;
    }
    if (vanilla_row) {
      EXPECT_FALSE(names_async_tp(run)) << run.id;
      EXPECT_FALSE(run.config.tp_comm_overlap) << run.id;
    }
    if (run.source.rfind("mbridge-", 0) == 0 && run.config.tp > 1) {
      EXPECT_TRUE(run.config.tp_comm_overlap) << run.id;
      EXPECT_FALSE(run.config.tp_comm_micro_pipelined) << run.id;
      ++userbuffers;
    }
  }
  EXPECT_EQ(async_page, 6);
  EXPECT_EQ(async_rows, 14);
  EXPECT_GT(userbuffers, 10);
}

// The recipes read as HybridEP (flex) dispatch with deduplication; the all-to-all ones do not.
TEST(TrainingRuns, FlexDispatcherFollowsTheRecipes) {
  int flex = 0;
  for (const auto& run : runs()) {
    if (!run.predictable || !run.model.is_moe()) continue;
    if (run.model_id == "qwen3-235b-a22b" && (run.gpu == "H100" || run.gpu == "B200" || run.gpu == "B300")) {
      EXPECT_FALSE(run.config.expert_dispatch_dedup) << run.id;
    }
    if (run.model_id == "qwen3-30b-a3b") {
      EXPECT_TRUE(run.config.expert_dispatch_dedup) << run.id;
    }
    flex += run.config.expert_dispatch_dedup ? 1 : 0;
  }
  EXPECT_GE(flex, 20);
}

// torchtitan's 2024-12 tables name torch.compile on the rows that ran it: the same 8B split without it ran in
// eager mode (training-runs-setup.yaml torch_compile). Every other row stays compiled, the model's default.
TEST(TrainingRuns, TorchtitanRowsTakeTorchCompileFromTheirTechniques) {
  int eager = 0;
  for (const auto& run : runs()) {
    if (run.id == "tt2412-h100-llama3.1-8b-bf16-8" || run.id == "tt2412-h100-llama3.1-8b-bf16-128") {
      ++eager;
      EXPECT_FALSE(run.config.compiled) << run.id;
    } else {
      EXPECT_TRUE(run.config.compiled) << run.id;
    }
  }
  EXPECT_EQ(eager, 2);
}

// A source the torch_compile block names must be one of the setup's sources.
TEST(TrainingRuns, TorchCompileNamingAnUnknownSourceIsALocatedError) {
  gputwin::testing::expect_located_error(
      [](const std::string& path) {
        return load_reference_runs(perf_setup().catalog, perf_setup().calibration.gemm, model_presets(),
                                   source_path("data/reference/training-runs.yaml"), path);
      },
      "hardware: []\nsystems: []\nmodels: {}\nsources: []\n"
      "precision_recipes: {file: " +
          source_path("data/perf/precision-recipes.yaml") +
          ", labels: []}\n"
          "torch_compile:\n  from_techniques: [no-such-source]\n  source: test\n",
      7, {"no-such-source"});
}

}  // namespace
}  // namespace gputwin
