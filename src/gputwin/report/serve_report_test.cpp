#include "gputwin/report/serve_report.hpp"

#include <gtest/gtest.h>

#include "gputwin/report/serve_documents.hpp"

namespace gputwin {
namespace {

ServeReport a_report() {
  ServeReport report;
  report.hardware.system_id = "dgx-h100";
  report.setup.model.name = "llama3.1-70b";
  report.setup.tp = 4;
  report.serving.replicas = 2;
  report.result.gpus = 8;
  ServeSummary& s = report.result.summary;
  s.requests = 100;
  s.finished = 100;
  s.requests_per_s = 4.5;
  s.output_tokens_per_s = 1152;
  s.output_tokens_per_s_per_gpu = 144;
  s.meets_targets = true;
  s.ttft_s = {0.1, 0.09, 0.2, 0.35};
  s.tpot_s = {0.015, 0.014, 0.02, 0.03};
  s.itl_s = {0.015, 0.009, 0.01, 0.09};
  s.e2e_s = {4.0, 3.9, 5.1, 6.0};
  return report;
}

TEST(ServeJson, ReadsBackWhatItWrites) {
  const auto back = read_serve_json(serve_json(a_report()).dump(2), "serve.json");
  ASSERT_TRUE(back.ok()) << back.error_text();
  const ServeDocument& d = back.value();
  EXPECT_EQ(d.model, "llama3.1-70b");
  EXPECT_EQ(d.system, "dgx-h100");
  EXPECT_EQ(d.gpus, 8);
  EXPECT_DOUBLE_EQ(d.output_tokens_per_s_per_gpu, 144);
  EXPECT_TRUE(d.meets_targets);
  EXPECT_DOUBLE_EQ(d.ttft_ms.p90, 200);  // seconds in the model, milliseconds in the document
  EXPECT_DOUBLE_EQ(d.itl_ms.p99, 90);
  EXPECT_DOUBLE_EQ(d.e2e_ms.mean, 4000);
  EXPECT_EQ(d.tp, 4);
  EXPECT_EQ(d.replicas, 2);
  EXPECT_FALSE(d.ttft_target_ms.has_value());  // the run set no targets
}

TEST(ServeJson, CapacitySearchReadsBackItsRowsInOrder) {
  CapacitySearch search;
  search.simulations = 7;
  CapacityRow answer;
  answer.candidate = {"dgx-h100", 2};
  answer.accelerator = "h100-sxm";
  answer.meets = true;
  answer.replicas = 3;
  answer.gpus = 6;
  answer.summary.ttft_s.p90 = 0.25;
  answer.cost_per_hour = usd(12);
  answer.cost_per_million_tokens = 1.5;
  CapacityRow loser = answer;
  loser.candidate = {"dgx-h100", 1};
  loser.meets = false;
  loser.replicas = 0;
  loser.cost_per_hour.reset();
  loser.why = "TTFT p90 900 ms > 500 ms at 64 replicas";
  search.rows = {answer, loser};
  LatencyTargets targets;
  targets.ttft_s = 0.5;
  const auto back =
      read_capacity_json(capacity_json(search, "llama3.1-70b", "Poisson", targets).dump(), "capacity.json");
  ASSERT_TRUE(back.ok()) << back.error_text();
  const CapacityDocument& d = back.value();
  EXPECT_EQ(d.model, "llama3.1-70b");
  EXPECT_EQ(d.simulations, 7);
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].tp, 2);
  EXPECT_EQ(d.rows[0].gpus, 6);
  EXPECT_DOUBLE_EQ(d.rows[0].ttft_p90_ms, 250);
  EXPECT_DOUBLE_EQ(*d.rows[0].cost_per_hour, 12);
  EXPECT_FALSE(d.rows[1].meets);
  EXPECT_FALSE(d.rows[1].cost_per_hour.has_value());
  EXPECT_EQ(d.rows[1].why, loser.why);

  nlohmann::json document = capacity_json(search, "m", "t", targets);
  document["rows"][1].erase("why");
  const auto missing = read_capacity_json(document.dump(), "c.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error_text().find("/rows/1: missing field 'why'"), std::string::npos)
      << missing.error_text();
}

// /2 rows say what they buy and price it; a /2 row without it is refused, located. A /1 document is still
// read: one that records purchases (written between the purchase count and the bump) priced the GPUs
// bought, one without priced the GPUs used, and the document says which.
TEST(ServeJson, CapacitySchemaTwoCarriesPurchasesAndOneIsStillRead) {
  CapacitySearch search;
  CapacityRow rack;
  rack.candidate = {"gb200-nvl72-tray", 4};
  rack.accelerator = "gb200";
  rack.meets = true;
  rack.replicas = 1;
  rack.gpus = 4;
  rack.unit = "rack gb200-nvl72";
  rack.bought = {18, 1, 72};
  rack.cost_per_hour = usd(72 * 3.0);
  search.rows = {rack};
  const nlohmann::json two = capacity_json(search, "m", "t", LatencyTargets{});
  EXPECT_EQ(two["schema"], "gputwin.serve-capacity/2");
  const auto back = read_capacity_json(two.dump(), "c.json");
  ASSERT_TRUE(back.ok()) << back.error_text();
  EXPECT_EQ(back.value().schema, "gputwin.serve-capacity/2");
  EXPECT_EQ(back.value().cost_basis, CapacityCostBasis::bought_gpus);
  ASSERT_TRUE(back.value().rows[0].bought.has_value());
  EXPECT_EQ(back.value().rows[0].bought->unit, "rack gb200-nvl72");
  EXPECT_EQ(back.value().rows[0].bought->nodes, 18);
  EXPECT_EQ(back.value().rows[0].bought->racks, 1);
  EXPECT_EQ(back.value().rows[0].bought->gpus, 72);

  nlohmann::json no_purchase = two;
  no_purchase["rows"][0].erase("bought_gpus");
  const auto refused = read_capacity_json(no_purchase.dump(), "c.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error_text().find("/rows/0: missing field 'bought_gpus'"), std::string::npos)
      << refused.error_text();

  nlohmann::json one = two;
  one["schema"] = "gputwin.serve-capacity/1";
  const auto interim = read_capacity_json(one.dump(), "c.json");
  ASSERT_TRUE(interim.ok()) << interim.error_text();
  EXPECT_EQ(interim.value().schema, "gputwin.serve-capacity/1");
  EXPECT_EQ(interim.value().cost_basis, CapacityCostBasis::bought_gpus);
  EXPECT_EQ(interim.value().rows[0].bought->gpus, 72);
  for (const char* key : {"unit", "nodes", "racks", "bought_gpus"}) one["rows"][0].erase(key);
  const auto first = read_capacity_json(one.dump(), "c.json");
  ASSERT_TRUE(first.ok()) << first.error_text();
  EXPECT_EQ(first.value().cost_basis, CapacityCostBasis::used_gpus);
  EXPECT_FALSE(first.value().rows[0].bought.has_value());
  EXPECT_DOUBLE_EQ(*first.value().rows[0].cost_per_hour, 216);
}

ServeReport a_disaggregated_report() {
  ServeReport report = a_report();
  DisaggregatedResult d;
  d.prefill.instances = 1;
  d.prefill.tp = 2;
  d.prefill.gpus = 2;
  d.decode.instances = 3;
  d.decode.tp = 2;
  d.decode.gpus = 6;
  d.kv_bytes_total = 4.5e9;
  d.kv_bytes_mean = 4.5e7;
  d.nvlink_transfers = 60;
  d.network_transfers = 40;
  d.kv_transfer_s = {0.002, 0.001, 0.004, 0.008};
  d.pool_timeline.push_back({0, {0, 1, 2, 0.25, 4096}, {0, 3, 0, 0.5, 3}});
  report.result.timeline.push_back({0, 4, 2, 0.4375, 4099});
  report.disaggregated = d;
  return report;
}

TEST(ServeJson, ADisaggregatedDeploymentReadsBackItsPools) {
  const auto back = read_serve_json(serve_json(a_disaggregated_report()).dump(2), "serve.json");
  ASSERT_TRUE(back.ok()) << back.error_text();
  ASSERT_TRUE(back.value().pools);
  const ServeDocument::Pools& pools = *back.value().pools;
  EXPECT_EQ(pools.prefill.instances, 1);
  EXPECT_EQ(pools.decode.instances, 3);
  EXPECT_EQ(pools.decode.tp, 2);
  EXPECT_EQ(pools.prefill.gpus + pools.decode.gpus, back.value().gpus);
  EXPECT_DOUBLE_EQ(pools.kv_bytes_total, 4.5e9);
  EXPECT_DOUBLE_EQ(pools.kv_transfer_ms.p99, 8);
  EXPECT_FALSE(read_serve_json(serve_json(a_report()).dump(), "x.json").value().pools)
      << "an aggregated deployment has no pools";

  nlohmann::json document = serve_json(a_disaggregated_report());
  document["pools"]["decode"].erase("tp");
  const auto missing = read_serve_json(document.dump(2), "x.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error_text().find("/pools/decode: missing field 'tp'"), std::string::npos)
      << missing.error_text();
}

TEST(ServeTimeline, ADisaggregatedDeploymentGainsPerPoolColumns) {
  const std::string csv = serve_timeline_csv(a_disaggregated_report());
  EXPECT_NE(csv.find("batch_tokens,prefill_running,prefill_waiting,prefill_kv_used_fraction,"
                     "prefill_batch_tokens,decode_running,decode_waiting,decode_kv_used_fraction,"
                     "decode_batch_tokens\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("0.000,4,2,0.4375,4099,1,2,0.2500,4096,3,0,0.5000,3\n"), std::string::npos) << csv;
  EXPECT_EQ(serve_timeline_csv(a_report()), "time_s,running,waiting,kv_used_fraction,batch_tokens\n");
}

TEST(ServeJson, ForeignTruncatedOrIncompleteDocumentsAreLocated) {
  nlohmann::json document = serve_json(a_report());
  document["schema"] = "gputwin.infer/1";
  const auto foreign = read_serve_json(document.dump(), "x.json");
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error_text().find("/schema"), std::string::npos) << foreign.error_text();

  const std::string text = serve_json(a_report()).dump(2);
  const auto truncated = read_serve_json(text.substr(0, text.size() / 2), "x.json");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error_text().find("x.json:"), std::string::npos) << truncated.error_text();

  document = serve_json(a_report());
  document["tpot_ms"].erase("p90");
  const auto missing = read_serve_json(document.dump(), "x.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error_text().find("/tpot_ms: missing field 'p90'"), std::string::npos)
      << missing.error_text();
}

}  // namespace
}  // namespace gputwin
