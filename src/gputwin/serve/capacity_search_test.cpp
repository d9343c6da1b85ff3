#include "gputwin/serve/capacity_search.hpp"

#include <gtest/gtest.h>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/serve/requests.hpp"

namespace gputwin {
namespace {

CapacityInputs inputs_for(const std::string& model_name) {
  const std::string data = bundled_data_dir() + "/perf/";
  const auto presets = load_model_presets(data + "models.yaml").value();
  return CapacityInputs{testing::bundled_catalog(),
                        load_collective_model(data + "nccl-cost-model.yaml").value(),
                        load_inference_constants(data + "inference.yaml").value(),
                        load_serving_engine_defaults(data + "serving-engine.yaml").value(),
                        *find_model(presets, model_name),
                        "fp8",
                        1.0,
                        1024,
                        128,
                        {}};
}

LatencyTargets targets(double ttft_s, double tpot_s) {
  LatencyTargets t;
  t.ttft_s = ttft_s;
  t.tpot_s = tpot_s;
  return t;
}

TEST(CapacitySearch, TheAnswerIsTheFewestReplicasThatMeetTheTargets) {
  const CapacityInputs inputs = inputs_for("llama3.1-8b");
  const auto requests =
      generate_arrivals({.rate_per_s = 300, .duration_s = 20, .input_tokens = 1024, .output_tokens = 128}, 3);
  const LatencyTargets goal = targets(0.2, 0.02);
  const CapacitySearch search = search_capacity(inputs, {{"dgx-h100", 1}}, requests, goal, 256);
  ASSERT_EQ(search.rows.size(), 1u);
  const CapacityRow& best = search.rows.front();
  ASSERT_TRUE(best.meets) << best.why;
  EXPECT_EQ(best.gpus, best.replicas);
  EXPECT_TRUE(best.summary.meets_targets);
  if (best.replicas > 1) {  // one replica fewer must miss: the search is not just "some count that meets"
    const CapacitySearch fewer =
        search_capacity(inputs, {{"dgx-h100", 1}}, requests, goal, best.replicas - 1);
    EXPECT_FALSE(fewer.rows.front().meets);
  }
  EXPECT_GT(search.simulations, 1);
}

TEST(CapacitySearch, CandidatesThatCannotServeSayWhy) {
  const CapacityInputs inputs = inputs_for("llama3.1-405b");
  const auto requests = generate_arrivals({.rate_per_s = 1, .duration_s = 30}, 1);
  const CapacitySearch search =
      search_capacity(inputs, {{"dgx-h100", 1}, {"dgx-h100", 8}}, requests, targets(0.001, 1.0), 64);
  ASSERT_EQ(search.rows.size(), 2u);
  for (const CapacityRow& row : search.rows) EXPECT_FALSE(row.meets);
  const auto& tp1 = search.rows[0].candidate.tp == 1 ? search.rows[0] : search.rows[1];
  const auto& tp8 = search.rows[0].candidate.tp == 8 ? search.rows[0] : search.rows[1];
  EXPECT_NE(tp1.why.find("do not fit"), std::string::npos) << tp1.why;
  EXPECT_NE(tp8.why.find("TTFT"), std::string::npos) << "the target that binds is named: " << tp8.why;
}

TEST(CapacitySearch, PricesRankTheAnswersAndGiveCostPerMillionTokens) {
  CapacityInputs inputs = inputs_for("llama3.1-8b");
  inputs.gpu_hour_prices["h100-sxm"] = Money::from_base(2.5);
  const auto requests =
      generate_arrivals({.rate_per_s = 10, .duration_s = 60, .input_tokens = 1024, .output_tokens = 128}, 5);
  const CapacitySearch search =
      search_capacity(inputs, {{"dgx-h100", 2}, {"dgx-h100", 1}}, requests, targets(0.5, 0.05), 64);
  ASSERT_TRUE(search.rows.front().meets);
  ASSERT_TRUE(search.rows.front().cost_per_hour.has_value());
  EXPECT_DOUBLE_EQ(search.rows.front().cost_per_hour->base(), 2.5 * search.rows.front().gpus);
  EXPECT_GT(search.rows.front().cost_per_million_tokens, 0);
  if (search.rows[1].meets) {
    EXPECT_LE(search.rows.front().cost_per_hour->base(), search.rows[1].cost_per_hour->base());
    EXPECT_NE(search.rows[1].why.find("more"), std::string::npos) << search.rows[1].why;
  }
}

TEST(CapacitySearch, CandidatesAreTheTpSizesUpToTheDomainThatDivideTheHeads) {
  const CapacityInputs inputs = inputs_for("llama3.1-70b");
  const auto h100 = candidates_for(inputs.catalog, "dgx-h100", inputs.model);
  ASSERT_EQ(h100.size(), 4u);  // 1, 2, 4, 8
  EXPECT_EQ(h100.back().tp, 8);
  const auto nvl72 = candidates_for(inputs.catalog, "gb200-nvl72-tray", inputs.model);
  EXPECT_EQ(nvl72.back().tp, 64) << "TP spans trays of the NVLink domain, 64 heads divide";
  EXPECT_TRUE(candidates_for(inputs.catalog, "no-such-system", inputs.model).empty());
}

}  // namespace
}  // namespace gputwin
