// perf infer --json read back: a real estimate (Llama 3.1 70B on DGX H100, TP 2) comes back point for point;
// another schema, a cut document and a missing field are errors naming the file and the field.
#include "gputwin/report/inference_report.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/report/report_test_support.hpp"

namespace gputwin {
namespace {

using testing::error_of;
using testing::source_path;

InferenceReport real_report() {
  const auto& perf = testing::perf_setup();
  const PerfHardware hardware = perf_hardware_of_system(perf.catalog, "dgx-h100", 1).value();
  const InferenceConstants constants =
      load_inference_constants(source_path("data/perf/inference.yaml")).value();
  InferenceSetup setup;
  setup.model = *find_model(testing::model_presets(), "llama3.1-70b");
  setup.tp = 2;
  setup.input_tokens = 2048;
  setup.output_tokens = 256;
  const auto estimate = [&](int sequences) {
    return estimate_inference(hardware, perf.collectives, constants, setup, sequences).value();
  };
  InferenceReport report{hardware, setup, {}, estimate(0), {}, {}, 0, std::nullopt};
  for (const int sequences : {1, 16, 64}) report.by_sequences.push_back(estimate(sequences));
  return report;
}

const InferenceReport& report() {
  static const InferenceReport report = real_report();
  return report;
}

std::string text() {
  return inference_json(report()).dump(2);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void expect_point(const InferencePoint& back, const InferenceEstimate& written) {
  EXPECT_EQ(back.sequences, written.sequences);
  EXPECT_EQ(back.fits, written.fits);
  EXPECT_NEAR(back.ttft_ms, written.ttft_s * 1e3, 1e-3);  // written to 3 decimals of a millisecond
  EXPECT_NEAR(back.tpot_ms, written.tpot_s * 1e3, 1e-3);
  EXPECT_EQ(back.decode_bound, written.decode.compute_bound() ? "compute" : "memory");
  EXPECT_NEAR(back.output_tokens_per_s_per_gpu, written.output_tokens_per_s_per_gpu, 0.051);
}

TEST(InferenceJson, RoundTripOfARealEstimate) {
  const auto read = read_inference_json(text(), "infer.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  const InferenceResult& back = read.value();
  EXPECT_EQ(back.source, "infer.json");
  EXPECT_EQ(back.model, "llama3.1-70b");
  EXPECT_EQ(back.system, "dgx-h100");
  EXPECT_EQ(back.accelerator, report().hardware.accelerator.info.id);
  EXPECT_EQ(back.tp, 2);
  EXPECT_EQ(back.gpus_per_replica, 2);
  EXPECT_EQ(back.input_tokens, 2048);
  EXPECT_EQ(back.output_tokens, 256);
  EXPECT_EQ(back.max_sequences, report().max_load.max_sequences);
  EXPECT_EQ(back.kv_capacity_tokens, std::floor(report().max_load.kv_capacity_tokens));
  ASSERT_EQ(back.by_sequences.size(), 3u);
  for (std::size_t i = 0; i < back.by_sequences.size(); ++i)
    expect_point(back.by_sequences[i], report().by_sequences[i]);
  expect_point(back.max_load, report().max_load);
  EXPECT_GT(back.max_load.sequences, 64);
}

// The loaded latencies of a closed-loop simulation travel with their row and come back in milliseconds; a row
// without them reads back as not simulated.
TEST(InferenceJson, LoadedLatenciesRoundTripPerRow) {
  InferenceReport loaded = report();
  ServeSummary first;
  first.ttft_s = {0.2, 0.15, 0.4, 0.9};
  first.tpot_s = {0.02, 0.019, 0.025, 0.03};
  loaded.under_load = {first};  // only the first row was simulated
  loaded.under_load_engine = "vllm-v1";
  loaded.under_load_rounds = 4;
  const nlohmann::json document = inference_json(loaded);
  EXPECT_EQ(document["under_load"]["requests_per_client"], 4);
  const auto read = read_inference_json(document.dump(), "infer.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  const InferenceResult& back = read.value();
  ASSERT_TRUE(back.by_sequences[0].ttft_under_load_ms.has_value());
  EXPECT_DOUBLE_EQ(back.by_sequences[0].ttft_under_load_ms->p99, 900);
  EXPECT_DOUBLE_EQ(back.by_sequences[0].tpot_under_load_ms->p50, 19);
  EXPECT_FALSE(back.by_sequences[1].ttft_under_load_ms.has_value());
  EXPECT_FALSE(back.max_load.ttft_under_load_ms.has_value());
  EXPECT_TRUE(contains(inference_text(loaded), "loaded TTFT p50/p99"));
  EXPECT_FALSE(contains(inference_text(report()), "loaded TTFT"));
}

TEST(InferenceJson, AnotherSchemaIsRefusedAtTheSchemaField) {
  const std::string error =
      error_of(read_inference_json(testing::with_schema(text(), "gputwin.perf-train/1"), "infer.json"));
  EXPECT_TRUE(contains(error, "infer.json:")) << error;
  EXPECT_TRUE(
      contains(error, "/schema: expected gputwin.infer/1 (perf infer --json), found 'gputwin.perf-train/1'"))
      << error;
}

TEST(InferenceJson, TruncatedDocumentIsMalformedJsonWithItsLine) {
  const std::string error = error_of(read_inference_json(testing::truncated(text()), "infer.json"));
  EXPECT_TRUE(contains(error, "infer.json:")) << error;
  EXPECT_TRUE(contains(error, "malformed JSON")) << error;
}

TEST(InferenceJson, MissingFieldIsNamedByItsPointer) {
  const std::string error =
      error_of(read_inference_json(testing::without(text(), "/by_sequences/1/tpot_ms"), "infer.json"));
  EXPECT_TRUE(contains(error, "/by_sequences/1: missing field 'tpot_ms'")) << error;
  const std::string no_load =
      error_of(read_inference_json(testing::without(text(), "/max_load"), "infer.json"));
  EXPECT_TRUE(contains(no_load, "/: missing field 'max_load'")) << no_load;
}

}  // namespace
}  // namespace gputwin
