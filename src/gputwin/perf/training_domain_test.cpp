// Training and serving on a scale-up domain larger than a node (GB200 NVL72: 4-GPU trays, 72-GPU NVLink
// domain): tensor, context and expert parallelism are placed in the domain, not the tray. The trays are built
// by hand from the gb200 accelerator until the catalog carries them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gputwin/design/design_test_support.hpp"
#include "gputwin/perf/collective_sweep.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/perf/training_config.hpp"
#include "gputwin/perf/training_search.hpp"

namespace gputwin {
namespace {

using testing::model_presets;

const testing::PerfSetup& setup() {
  return testing::perf_setup();
}

PerfHardware gb200_trays(int trays, int domain) {
  PerfHardware hw = perf_hardware_of_accelerator(setup().catalog, "gb200", 4).value();
  hw.nodes = trays;
  hw.scale_up_domain = domain;
  hw.nics_per_node = 4;
  hw.nic_speed = gigabits_per_second(400);
  hw.fabric_tiers = 2;
  return checked_domain(hw).value();
}

double term_s(const TrainingEstimate& e, const std::string& name) {
  for (const TimeTerm& t : e.terms)
    if (t.name == name) return t.seconds;
  return -1;
}

TrainingConfig llama_split(int tp, int cp, int gpus, const TransformerModel& model) {
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 64;
  c.tp = tp;
  c.cp = cp;
  c.pp = 1;
  c.dp = 0;
  EXPECT_TRUE(check_training_config(model, c, gpus).empty());
  return c;
}

// TP 8 spans two trays (64 of the 72 GPUs); in one NVL72 domain its all-reduces run on NVLink, with
// tray-sized domains on NICs.
TEST(TrainingDomain, TensorParallelAcrossTraysOfOneDomainIsOnNvlink) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  const TrainingConfig c = llama_split(8, 1, 64, llama);
  const PerfHardware nvl72 = gb200_trays(18, 72);
  PerfHardware trays_alone = nvl72;
  trays_alone.scale_up_domain = 4;
  const auto& s = setup();
  const auto in_domain = estimate_training(nvl72, s.collectives, s.calibration, llama, c);
  const auto over_nics = estimate_training(trays_alone, s.collectives, s.calibration, llama, c);
  const double tp_domain = term_s(in_domain, "tensor-parallel communication");
  const double tp_nics = term_s(over_nics, "tensor-parallel communication");
  ASSERT_GT(tp_domain, 0);
  EXPECT_LT(tp_domain * 2, tp_nics);
  EXPECT_LT(in_domain.step_time_s, over_nics.step_time_s);
}

// Context parallelism follows the tensor-parallel ranks; with TP 4 and CP 4 the group of 16 GPUs sits in the
// domain.
TEST(TrainingDomain, ContextParallelAcrossTraysOfOneDomainIsOnNvlink) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  const TrainingConfig c = llama_split(4, 4, 64, llama);
  const PerfHardware nvl64 = gb200_trays(16, 64);
  PerfHardware trays_alone = nvl64;
  trays_alone.scale_up_domain = 4;
  const auto& s = setup();
  const double in_domain = term_s(estimate_training(nvl64, s.collectives, s.calibration, llama, c),
                                  "context-parallel communication");
  const double over_nics = term_s(estimate_training(trays_alone, s.collectives, s.calibration, llama, c),
                                  "context-parallel communication");
  // On NVLink the key/value exchange hides behind attention (ring attention); over the NICs it does not.
  ASSERT_GT(over_nics, 0);
  EXPECT_LT(in_domain, over_nics);
}

// An expert-parallel group of 64 tiles 64 GPUs, not 72: in whole 72-GPU domains some groups straddle two
// racks (placed on the NICs); a job on 16 of each rack's 18 trays (domain_segment 64) keeps each group on
// NVLink.
TEST(TrainingDomain, ExpertParallelOf64FollowsTheDomainSegment) {
  const TransformerModel& moe = *find_model(model_presets(), "qwen3-30b-a3b");
  TrainingConfig c;
  c.sequence = 4096;
  c.global_batch = 128;
  c.ep = 64;
  ASSERT_TRUE(check_training_config(moe, c, 128).empty());
  PerfHardware whole = gb200_trays(36, 72);
  PerfHardware segmented = whole;
  segmented.domain_segment = 64;
  ASSERT_TRUE(checked_domain(segmented).ok());
  const auto& s = setup();
  const double straddling =
      term_s(estimate_training(whole, s.collectives, s.calibration, moe, c), "expert-parallel all-to-all");
  const double in_segment = term_s(estimate_training(segmented, s.collectives, s.calibration, moe, c),
                                   "expert-parallel all-to-all");
  ASSERT_GT(in_segment, 0);
  EXPECT_LT(2 * in_segment, straddling);
  segmented.domain_segment = 66;  // not whole trays
  EXPECT_FALSE(checked_domain(segmented).ok());
}

std::vector<int> tp_values(const PerfHardware& hw, const TransformerModel& model, int gpus) {
  TrainingConfig base;
  base.sequence = 8192;
  base.global_batch = 64;
  for (const SearchAxis& axis : search_axes(hw, model, base, gpus, SearchSpace{}))
    if (axis.name == "tp") return axis.values(base);
  return {};
}

// The search offers TP up to the domain, across trays, but only sizes that tile the domain (16 does not tile
// 72, so some TP-16 groups would straddle two racks).
TEST(TrainingDomain, SearchPlacesTensorParallelInsideTheDomain) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");  // 64 heads, 8 KV heads
  EXPECT_EQ(tp_values(gb200_trays(36, 72), llama, 144), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(tp_values(gb200_trays(32, 64), llama, 128), (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(tp_values(gb200_trays(32, 4), llama, 128), (std::vector<int>{1, 2, 4}));
}

// A global batch of 2 caps data parallelism at 2, so the 72 GPUs go to model parallelism: on one NVL72 the
// search takes TP 8 over two trays (on NVLink); with tray-sized domains it cannot, and its best is slower.
TEST(TrainingDomain, SearchOnNvl72PicksTensorParallelBeyondOneTray) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  TrainingConfig base;
  base.sequence = 8192;
  base.global_batch = 2;
  const auto& s = setup();
  const auto search = search_training(gb200_trays(18, 72), s.collectives, s.calibration, llama, base, 72);
  ASSERT_TRUE(search.best.has_value());
  EXPECT_GT(search.best->config.tp, 4);
  const auto tray_search = search_training(gb200_trays(18, 4), s.collectives, s.calibration, llama, base, 72);
  ASSERT_TRUE(tray_search.best.has_value());
  EXPECT_LE(tray_search.best->config.tp, 4);
  EXPECT_LT(search.best->step_time_s * 1.05, tray_search.best->step_time_s);
}

// Serving: a TP group of 8 over two trays of an NVL72 is timed on NVLink.
TEST(TrainingDomain, InferenceTensorParallelUpToTheDomainIsOnNvlink) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-70b");
  const auto constants = load_inference_constants(testing::source_path("data/perf/inference.yaml")).value();
  InferenceSetup serve;
  serve.model = llama;
  serve.tp = 8;
  serve.input_tokens = 2048;
  serve.output_tokens = 256;
  const PerfHardware nvl72 = gb200_trays(18, 72);
  PerfHardware trays_alone = nvl72;
  trays_alone.scale_up_domain = 4;
  const auto& s = setup();
  const auto in_domain = estimate_inference(nvl72, s.collectives, constants, serve, 64).value();
  const auto over_nics = estimate_inference(trays_alone, s.collectives, constants, serve, 64).value();
  ASSERT_GT(in_domain.decode.communication_s, 0);
  EXPECT_LT(in_domain.decode.communication_s, over_nics.decode.communication_s);
  EXPECT_LT(in_domain.tpot_s, over_nics.tpot_s);
}

// The designed GB200 SuperPOD example (8 NVL72 racks): a 72-GPU all_reduce runs inside one rack's NVLink
// domain: the same time with the trays' NICs removed, at a bus bandwidth over 4 x the 50 GB/s a GPU's 400G
// NIC carries.
TEST(TrainingDomain, Gb200ExampleAllReduceOfOneDomainNeedsNoNic) {
  const PerfHardware hw =
      perf_hardware(testing::plan_file("examples/gb200-nvl72-superpod-1su.yaml"), setup().catalog).value();
  ASSERT_EQ(hw.gpus_per_domain(), 72);
  PerfHardware no_nics = hw;
  no_nics.nics_per_node = 0;
  const ByteSize bytes = ByteSize::from_base(1 << 30);
  const auto with = estimate_collective(hw, setup().collectives, CollectiveOp::all_reduce, bytes,
                                        nccl_tests_group(hw, 72, 0));
  const auto without = estimate_collective(no_nics, setup().collectives, CollectiveOp::all_reduce, bytes,
                                           nccl_tests_group(no_nics, 72, 0));
  EXPECT_EQ(with.algorithm, "NVLS");
  EXPECT_DOUBLE_EQ(with.time_us, without.time_us);
  const double busbw_gb_s = bytes.base() / (with.time_us * 1e-6) * 2 * 71 / 72 / 1e9;
  EXPECT_GT(busbw_gb_s, 4 * 50.0);
}

// What `perf infer --system gb200-nvl72-tray --tp 8` builds (two trays of the 72-GPU domain) times TP 8 as
// the designed NVL72 racks do, on NVLink: less than with tray-sized domains (over the NICs).
TEST(TrainingDomain, InferenceTp8OnTwoTraysIsTimedAsInTheDesignedDomain) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-70b");
  const auto constants = load_inference_constants(testing::source_path("data/perf/inference.yaml")).value();
  InferenceSetup serve;
  serve.model = llama;
  serve.tp = 8;
  const auto& s = setup();
  const PerfHardware two_trays = perf_hardware_of_system(s.catalog, "gb200-nvl72-tray", 2).value();
  const PerfHardware designed =
      perf_hardware(testing::plan_file("examples/gb200-nvl72-superpod-1su.yaml"), s.catalog).value();
  PerfHardware trays_alone = two_trays;
  trays_alone.scale_up_domain = 4;
  const double quick =
      estimate_inference(two_trays, s.collectives, constants, serve, 64).value().decode.communication_s;
  const double racks =
      estimate_inference(designed, s.collectives, constants, serve, 64).value().decode.communication_s;
  const double nics =
      estimate_inference(trays_alone, s.collectives, constants, serve, 64).value().decode.communication_s;
  EXPECT_DOUBLE_EQ(quick, racks);
  EXPECT_LT(quick * 1.5, nics);
}

}  // namespace
}  // namespace gputwin
