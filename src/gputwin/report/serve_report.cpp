#include "gputwin/report/serve_report.hpp"

#include <fmt/format.h>

#include "gputwin/report/json_document.hpp"

namespace gputwin {
namespace {

std::string stats_row(std::string_view name, const LatencyStats& s) {
  return fmt::format("  {:<6} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f}\n", name, s.mean * 1e3, s.p50 * 1e3,
                     s.p90 * 1e3, s.p99 * 1e3);
}

std::string targets_text(const LatencyTargets& t) {
  std::string text;
  const auto add = [&](std::string_view name, const std::optional<double>& v) {
    if (v) text += fmt::format("{}{} <= {:.0f} ms", text.empty() ? "" : ", ", name, *v * 1e3);
  };
  add("TTFT", t.ttft_s);
  add("TPOT", t.tpot_s);
  add("E2E", t.e2e_s);
  return text;
}

}  // namespace

std::string serve_text(const ServeReport& report) {
  const ServeSummary& s = report.result.summary;
  const ServingSetup& setup = report.serving;
  std::string text = fmt::format(
      "Serving {} ({}) on {}: {} replica(s) of TP {}{} = {} GPUs\n", report.setup.model.name,
      report.setup.precision, report.hardware.system_id, setup.replicas, report.setup.tp,
      report.setup.ep > 1 ? fmt::format(" x EP {}", report.setup.ep) : std::string(), report.result.gpus);
  text += fmt::format("Traffic: {}\n", report.traffic);
  text += fmt::format(
      "Engine: {}; per replica {} batched tokens, {} sequences, KV cache {:.0f} tokens in blocks of {}\n",
      report.engine, setup.limits.max_batched_tokens, setup.limits.max_sequences,
      setup.limits.kv_capacity_tokens, setup.limits.block_tokens);
  text += fmt::format("\nRequests: {} finished of {}", s.finished, s.requests);
  if (s.unservable > 0)
    text += fmt::format(", {} longer than a replica's whole KV cache (never run)", s.unservable);
  text += fmt::format("; {} preemptions\n", s.preemptions);
  text += fmt::format("Throughput: {:.2f} req/s, {:.0f} output tokens/s ({:.0f} per GPU) over {:.1f} s\n",
                      s.requests_per_s, s.output_tokens_per_s, s.output_tokens_per_s_per_gpu, s.span_s);
  text += fmt::format("\n  {:<6} {:>10} {:>10} {:>10} {:>10}   (ms)\n", "", "mean", "p50", "p90", "p99");
  text += stats_row("TTFT", s.ttft_s) + stats_row("TPOT", s.tpot_s) + stats_row("ITL", s.itl_s) +
          stats_row("E2E", s.e2e_s);
  text += fmt::format("\nPeak KV-cache use {:.0f} %, peak queue {} requests\n", s.peak_kv_used_fraction * 100,
                      s.peak_waiting);
  const std::string targets = targets_text(setup.targets);
  if (!targets.empty()) {
    text +=
        fmt::format("Targets {} for {:.0f} % of requests: {:.1f} % meet them, goodput {:.2f} req/s -> {}\n",
                    targets, setup.targets.percentile * 100, s.share_meeting_targets * 100,
                    s.goodput_requests_per_s, s.meets_targets ? "MET" : "NOT MET");
  }
  return text;
}

nlohmann::json serve_json(const ServeReport& report) {
  const ServeSummary& s = report.result.summary;
  const ServingSetup& setup = report.serving;
  nlohmann::json targets = nlohmann::json::object();
  if (setup.targets.ttft_s) targets["ttft_ms"] = *setup.targets.ttft_s * 1e3;
  if (setup.targets.tpot_s) targets["tpot_ms"] = *setup.targets.tpot_s * 1e3;
  if (setup.targets.e2e_s) targets["e2e_ms"] = *setup.targets.e2e_s * 1e3;
  targets["percentile"] = setup.targets.percentile;
  return {{"schema", kServeSchema},
          {"model", report.setup.model.name},
          {"system", report.hardware.system_id},
          {"precision", report.setup.precision},
          {"tp", report.setup.tp},
          {"ep", report.setup.ep},
          {"replicas", setup.replicas},
          {"gpus", report.result.gpus},
          {"traffic", report.traffic},
          {"engine",
           {{"name", report.engine},
            {"max_batched_tokens", setup.limits.max_batched_tokens},
            {"max_sequences", setup.limits.max_sequences},
            {"block_tokens", setup.limits.block_tokens},
            {"kv_capacity_tokens", setup.limits.kv_capacity_tokens}}},
          {"requests", s.requests},
          {"finished", s.finished},
          {"unservable", s.unservable},
          {"preemptions", s.preemptions},
          {"iterations", report.result.iterations},
          {"span_s", s.span_s},
          {"requests_per_s", s.requests_per_s},
          {"output_tokens_per_s", s.output_tokens_per_s},
          {"output_tokens_per_s_per_gpu", s.output_tokens_per_s_per_gpu},
          {"ttft_ms", latency_ms_json(s.ttft_s)},
          {"tpot_ms", latency_ms_json(s.tpot_s)},
          {"itl_ms", latency_ms_json(s.itl_s)},
          {"e2e_ms", latency_ms_json(s.e2e_s)},
          {"targets", targets},
          {"share_meeting_targets", s.share_meeting_targets},
          {"goodput_requests_per_s", s.goodput_requests_per_s},
          {"meets_targets", s.meets_targets},
          {"peak_kv_used_fraction", s.peak_kv_used_fraction},
          {"peak_waiting", s.peak_waiting}};
}

std::string serve_timeline_csv(const ServeReport& report) {
  std::string text = "time_s,running,waiting,kv_used_fraction,batch_tokens\n";
  for (const EngineSample& sample : report.result.timeline) {
    text += fmt::format("{:.3f},{},{},{:.4f},{}\n", sample.time_s, sample.running, sample.waiting,
                        sample.kv_used_fraction, sample.batch_tokens);
  }
  return text;
}

std::string capacity_text(const CapacitySearch& search, const std::string& model, const std::string& traffic,
                          const LatencyTargets& targets) {
  std::string text =
      fmt::format("Capacity for {}: {}\nTargets {} for {:.0f} % of requests ({} simulations)\n\n", model,
                  traffic, targets_text(targets), targets.percentile * 100, search.simulations);
  text += fmt::format("  {:<20} {:>3} {:>8} {:>6} {:>10} {:>9} {:>9} {:>11} {:>9}  {}\n", "system", "tp",
                      "replicas", "GPUs", "tok/s/GPU", "TTFT p90", "TPOT p90", "$/h", "$/Mtok", "");
  for (const CapacityRow& row : search.rows) {
    if (row.replicas == 0 && row.summary.requests == 0) {
      text += fmt::format("  {:<20} {:>3}  refused: {}\n", row.candidate.system, row.candidate.tp, row.why);
      continue;
    }
    const std::string cost = row.cost_per_hour ? fmt::format("{:.2f}", row.cost_per_hour->base()) : "-";
    const std::string per_token =
        row.cost_per_hour ? fmt::format("{:.3f}", row.cost_per_million_tokens) : "-";
    text +=
        fmt::format("  {:<20} {:>3} {:>8} {:>6} {:>10.0f} {:>7.0f}ms {:>7.1f}ms {:>11} {:>9}  {}\n",
                    row.candidate.system, row.candidate.tp, row.meets ? std::to_string(row.replicas) : "-",
                    row.meets ? std::to_string(row.gpus) : "-", row.summary.output_tokens_per_s_per_gpu,
                    row.summary.ttft_s.p90 * 1e3, row.summary.tpot_s.p90 * 1e3, cost, per_token,
                    row.meets && row.why.empty() ? "<- answer" : row.why);
  }
  if (search.rows.empty() || !search.rows.front().meets)
    text += "\nNo candidate meets the targets within the GPU limit.\n";
  return text;
}

nlohmann::json capacity_json(const CapacitySearch& search, const std::string& model,
                             const std::string& traffic, const LatencyTargets& targets) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CapacityRow& row : search.rows) {
    rows.push_back(
        {{"system", row.candidate.system},
         {"tp", row.candidate.tp},
         {"accelerator", row.accelerator},
         {"meets", row.meets},
         {"replicas", row.replicas},
         {"gpus", row.gpus},
         {"output_tokens_per_s_per_gpu", row.summary.output_tokens_per_s_per_gpu},
         {"ttft_ms", latency_ms_json(row.summary.ttft_s)},
         {"tpot_ms", latency_ms_json(row.summary.tpot_s)},
         {"cost_per_hour", row.cost_per_hour ? nlohmann::json(row.cost_per_hour->base()) : nlohmann::json()},
         {"cost_per_million_tokens",
          row.cost_per_hour ? nlohmann::json(row.cost_per_million_tokens) : nlohmann::json()},
         {"why", row.why}});
  }
  return {{"schema", kServeCapacitySchema},
          {"model", model},
          {"traffic", traffic},
          {"targets_percentile", targets.percentile},
          {"simulations", search.simulations},
          {"rows", rows}};
}

nlohmann::json latency_ms_json(const LatencyStats& s) {
  return {{"mean", s.mean * 1e3}, {"p50", s.p50 * 1e3}, {"p90", s.p90 * 1e3}, {"p99", s.p99 * 1e3}};
}

LatencyStats latency_ms_from_json(const JsonField& s) {
  return LatencyStats{s.child("mean").number(), s.child("p50").number(), s.child("p90").number(),
                      s.child("p99").number()};
}

ServeDocument serve_document_from_json(const JsonField& root, const std::string& source) {
  expect_schema(root, kServeSchema, "perf serve --json");
  ServeDocument out;
  out.source = source;
  out.model = root.child("model").string();
  out.system = root.child("system").string();
  out.precision = root.child("precision").string();
  out.traffic = root.child("traffic").string();
  out.tp = int_of(root.child("tp"));
  out.replicas = int_of(root.child("replicas"));
  out.gpus = int_of(root.child("gpus"));
  out.requests_per_s = root.child("requests_per_s").number();
  out.output_tokens_per_s = root.child("output_tokens_per_s").number();
  out.output_tokens_per_s_per_gpu = root.child("output_tokens_per_s_per_gpu").number();
  out.ttft_ms = latency_ms_from_json(root.child("ttft_ms"));
  out.tpot_ms = latency_ms_from_json(root.child("tpot_ms"));
  out.itl_ms = latency_ms_from_json(root.child("itl_ms"));
  out.e2e_ms = latency_ms_from_json(root.child("e2e_ms"));
  const JsonField targets = root.child("targets");
  out.targets_percentile = targets.child("percentile").number();
  if (targets.has("ttft_ms")) out.ttft_target_ms = targets.child("ttft_ms").number();
  if (targets.has("tpot_ms")) out.tpot_target_ms = targets.child("tpot_ms").number();
  out.share_meeting_targets = root.child("share_meeting_targets").number();
  out.meets_targets = boolean_of(root.child("meets_targets"));
  return out;
}

Result<ServeDocument> read_serve_json(std::string_view text, const std::string& source) {
  return read_json_document<ServeDocument>(
      text, source, [&](const JsonField& root) { return serve_document_from_json(root, source); });
}

CapacityDocument capacity_document_from_json(const JsonField& root, const std::string& source) {
  expect_schema(root, kServeCapacitySchema, "perf serve --search --json");
  CapacityDocument out;
  out.source = source;
  out.model = root.child("model").string();
  out.traffic = root.child("traffic").string();
  out.targets_percentile = root.child("targets_percentile").number();
  out.simulations = int_of(root.child("simulations"));
  const JsonField rows = root.child("rows");
  for (std::size_t i = 0; i < rows.array_size(); ++i) {
    const JsonField row = rows.element(i);
    CapacityDocumentRow r;
    r.system = row.child("system").string();
    r.accelerator = row.child("accelerator").string();
    r.tp = int_of(row.child("tp"));
    r.meets = boolean_of(row.child("meets"));
    r.replicas = int_of(row.child("replicas"));
    r.gpus = int_of(row.child("gpus"));
    r.output_tokens_per_s_per_gpu = row.child("output_tokens_per_s_per_gpu").number();
    r.ttft_p90_ms = row.child("ttft_ms").child("p90").number();
    r.tpot_p90_ms = row.child("tpot_ms").child("p90").number();
    r.cost_per_hour = optional_number(row.child("cost_per_hour"));
    r.cost_per_million_tokens = optional_number(row.child("cost_per_million_tokens"));
    r.why = row.child("why").string();
    out.rows.push_back(std::move(r));
  }
  return out;
}

Result<CapacityDocument> read_capacity_json(std::string_view text, const std::string& source) {
  return read_json_document<CapacityDocument>(
      text, source, [&](const JsonField& root) { return capacity_document_from_json(root, source); });
}

}  // namespace gputwin
