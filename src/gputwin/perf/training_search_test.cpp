#include "gputwin/perf/training_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::model_presets;
using testing::source_path;

const testing::PerfSetup& setup() {
  return testing::perf_setup();
}

TrainingConfig base(int global_batch) {
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = global_batch;
  return c;
}

TEST(TrainingSearch, BestFitsAndNoOtherFittingSplitIsFaster) {
  const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 8).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  const auto search = search_training(hw, setup().collectives, setup().calibration, llama, base(64), 64);
  ASSERT_TRUE(search.best.has_value());
  EXPECT_TRUE(search.best->memory.fits());
  EXPECT_EQ(search.best->config.job_gpus(), 64);
  EXPECT_GT(search.candidates, search.fitting);  // some splits do not fit 70B in 80 GB
  // Spot-check against a hand-picked split that fits: the search must not be slower.
  TrainingConfig manual = base(64);
  manual.tp = 8;
  manual.pp = 4;
  manual.dp = 0;
  ASSERT_TRUE(check_training_config(llama, manual, 64).empty());
  ASSERT_TRUE(training_memory(llama, manual, hw.accelerator.memory).fits());
  const auto e = estimate_training(hw, setup().collectives, setup().calibration, llama, manual);
  EXPECT_LE(search.best->step_time_s, e.step_time_s);
}

// Without the explanation (sizing) the search keeps only the splits that may still tie with the fastest: the
// same winner, step time and counts as the search that keeps every split, on dense and MoE models, with and
// without pipelines and idle GPUs.
TEST(TrainingSearch, FastestOnlyFindsTheSameWinnerAsTheExplainedSearch) {
  struct Case {
    const char* model;
    const char* system;
    int nodes;
    int global_batch;
  };
  for (const Case& k : {Case{"llama3-70b", "dgx-h100", 8, 64}, Case{"llama3.1-405b", "dgx-h100", 23, 128},
                        Case{"mixtral-8x7b", "dgx-b200", 4, 256}, Case{"llama3-8b", "dgx-h100", 3, 96}}) {
    SCOPED_TRACE(std::string(k.model) + " on " + std::to_string(k.nodes) + " " + k.system);
    const auto hw = perf_hardware_of_system(setup().catalog, k.system, k.nodes).value();
    const TransformerModel& model = *find_model(model_presets(), k.model);
    const int gpus = k.nodes * hw.gpus_per_node;
    const auto explained =
        search_training(hw, setup().collectives, setup().calibration, model, base(k.global_batch), gpus);
    const auto fastest = search_training(hw, setup().collectives, setup().calibration, model,
                                         base(k.global_batch), gpus, fastest_only());
    ASSERT_TRUE(explained.best.has_value());
    ASSERT_TRUE(fastest.best.has_value());
    EXPECT_GT(explained.fitting, 1);  // several fitting splits, so the pruning had something to drop
    EXPECT_FALSE(simpler_split(explained.best->config, fastest.best->config));
    EXPECT_FALSE(simpler_split(fastest.best->config, explained.best->config));
    EXPECT_EQ(fastest.best->step_time_s, explained.best->step_time_s);
    EXPECT_EQ(fastest.best->config.dp, explained.best->config.dp);
    EXPECT_EQ(fastest.candidates, explained.candidates);
    EXPECT_EQ(fastest.fitting, explained.fitting);
    EXPECT_EQ(fastest.ties, explained.ties);
    EXPECT_TRUE(fastest.alternatives.empty());
  }
}

TEST(TrainingSearch, NothingFitsWhenTheModelCannotFit) {
  const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 1).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-405b");
  const auto search = search_training(hw, setup().collectives, setup().calibration, llama, base(8), 8);
  EXPECT_FALSE(search.best.has_value());  // 405B x 2 bytes of weights alone exceed 8 x 80 GB
  EXPECT_EQ(search.fitting, 0);
}

// Odd GPU counts: data parallelism leaves a remainder idle instead of forcing absurd pipeline splits, and the
// pipeline stays layer-balanced (126 layers: never pp 23 or 79).
TEST(TrainingSearch, RemainderGpusIdleAndPipelinesBalanced) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-405b");
  for (int nodes : {23, 79, 127}) {
    const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", nodes).value();
    const int gpus = nodes * 8;
    const auto search =
        search_training(hw, setup().collectives, setup().calibration, llama, base(1024), gpus);
    ASSERT_TRUE(search.best.has_value()) << nodes;
    const TrainingConfig& c = search.best->config;
    EXPECT_NE(layer_split(llama, c.pp, c.virtual_stages), LayerSplit::uneven) << "pp " << c.pp;
    EXPECT_EQ(c.gpus() + c.idle_gpus, gpus);
    EXPECT_LE(c.tp, hw.scale_up_domain);
    EXPECT_GT(search.unbalanced, 0);
    for (const TrainingEstimate& e : search.top) {
      EXPECT_NE(layer_split(llama, e.config.pp, e.config.virtual_stages), LayerSplit::uneven);
    }
  }
}

// Tensor parallelism never leaves the scale-up domain (8 GPUs of a DGX H100).
TEST(TrainingSearch, TensorParallelStaysInTheScaleUpDomain) {
  auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 4).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  hw.scale_up_domain = 4;
  const auto search = search_training(hw, setup().collectives, setup().calibration, llama, base(64), 32);
  ASSERT_TRUE(search.best.has_value());
  for (const TrainingEstimate& e : search.top) EXPECT_LE(e.config.tp, 4);
  for (const AxisAlternative& a : search.alternatives) EXPECT_NE(a.value, "tp 8");
}

// Ties (within 1 %) go to the simpler split; the top list is ordered; every other axis value gets a reason.
TEST(TrainingSearch, TieBreakAndReasons) {
  const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 8).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  const auto search = search_training(hw, setup().collectives, setup().calibration, llama, base(64), 64);
  ASSERT_TRUE(search.best.has_value());
  ASSERT_GE(search.top.size(), 2u);
  const double fastest =
      std::min_element(search.top.begin(), search.top.end(), [](const auto& a, const auto& b) {
        return a.step_time_s < b.step_time_s;
      })->step_time_s;
  EXPECT_LE(search.best->step_time_s, fastest * (1 + search.tie_tolerance));
  EXPECT_GE(search.ties, 1);
  for (std::size_t i = 1; i < search.top.size(); ++i) {
    const bool both_tie = search.top[i].step_time_s <= fastest * (1 + search.tie_tolerance) &&
                          search.top[i - 1].step_time_s <= fastest * (1 + search.tie_tolerance);
    if (both_tie) {
      EXPECT_TRUE(simpler_split(search.top[i - 1].config, search.top[i].config));
    } else {
      EXPECT_LE(search.top[i - 1].step_time_s, search.top[i].step_time_s * (1 + search.tie_tolerance));
    }
  }
  ASSERT_FALSE(search.alternatives.empty());
  bool some_slower = false;
  for (const AxisAlternative& a : search.alternatives) {
    EXPECT_FALSE(a.reason.empty()) << a.value;
    if (a.best) {
      EXPECT_GE(a.best->step_time_s, search.best->step_time_s * (1 - search.tie_tolerance)) << a.value;
      some_slower = some_slower || a.reason.find("% step time") != std::string::npos;
    } else {
      EXPECT_NE(a.reason.find("does not fit"), std::string::npos) << a.value;
    }
  }
  EXPECT_TRUE(some_slower);
  // The order itself: less tp first, then pp, cp, recomputation, a bigger micro-batch.
  TrainingConfig a = base(64), b = base(64);
  a.tp = 2;
  b.tp = 4;
  EXPECT_TRUE(simpler_split(a, b));
  b.tp = 2;
  b.micro_batch = 2;
  EXPECT_TRUE(simpler_split(b, a));
  a.recompute = Recompute::none;
  b.recompute = Recompute::full;
  EXPECT_TRUE(simpler_split(a, b));
}

// The generator expands every named axis: the splits it yields are exactly the product of the axes' values.
TEST(TrainingSearch, GeneratorExpandsNamedAxes) {
  const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 2).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3-8b");
  SearchSpace space;
  space.micro_batches = {1, 2};
  const auto axes = search_axes(hw, llama, base(64), 16, space);
  std::vector<std::string> names;
  for (const SearchAxis& axis : axes) names.push_back(axis.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tp", "pp", "vp", "cp", "ep", "zero", "micro-batch", "recompute",
                                             "dp"}));
  int splits = 0;
  for_each_split(axes, base(64), [&](const TrainingConfig& c) {
    ++splits;
    EXPECT_LE(c.model_parallel() * c.dp, 16);
    EXPECT_EQ(64 % (c.micro_batch * c.dp), 0);
  });
  EXPECT_GT(splits, 100);
}

// The ZeRO axis: 1 (Megatron's distributed optimizer) always; 2 (gradients sharded too, weights whole) with
// any tp and pp wherever the GPUs leave more than one data-parallel rank; 3 (FSDP) only at tp = pp = 1. So
// Meta's Llama 3.1 405B split, TP 8 PP 16 at ZeRO 2 on 16,384 H100, is among the splits generated.
TEST(TrainingSearch, ZeroAxisOffersStageTwoWithTensorAndPipelineParallelism) {
  const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 2048).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-405b");
  const auto axes = search_axes(hw, llama, base(2048), 16384, SearchSpace{});
  const auto zero =
      std::find_if(axes.begin(), axes.end(), [](const SearchAxis& a) { return a.name == "zero"; });
  ASSERT_NE(zero, axes.end());
  TrainingConfig split = base(2048);
  split.tp = 8;
  split.pp = 16;
  EXPECT_EQ(zero->values(split), (std::vector<int>{1, 2}));
  split.tp = 1;
  split.pp = 1;
  EXPECT_EQ(zero->values(split), (std::vector<int>{1, 2, 3}));
  split.tp = 8;
  split.pp = 128;
  split.cp = 16;  // 8 x 128 x 16 = 16,384: no data-parallel rank to shard over
  EXPECT_EQ(zero->values(split), (std::vector<int>{1}));
  bool meta_split = false;
  SearchSpace narrow;
  narrow.micro_batches = {1};
  for_each_split(search_axes(hw, llama, base(2048), 16384, narrow), base(2048), [&](const TrainingConfig& c) {
    meta_split = meta_split || (c.tp == 8 && c.pp == 16 && c.cp == 1 && c.virtual_stages == 1 &&
                                c.zero == 2 && c.dp == 128 && c.recompute == Recompute::none);
  });
  EXPECT_TRUE(meta_split);
}

}  // namespace
}  // namespace gputwin
