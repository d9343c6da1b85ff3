#include "gputwin/report/serve_report.hpp"

#include <fmt/format.h>

#include "gputwin/report/json_document.hpp"

namespace gputwin {
namespace {

nlohmann::json stats_ms(const LatencyStats& s) {
  return {{"mean", s.mean * 1e3}, {"p50", s.p50 * 1e3}, {"p90", s.p90 * 1e3}, {"p99", s.p99 * 1e3}};
}

std::string stats_row(std::string_view name, const LatencyStats& s) {
  return fmt::format("  {:<6} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f}\n", name, s.mean * 1e3, s.p50 * 1e3,
                     s.p90 * 1e3, s.p99 * 1e3);
}

nlohmann::json stats_s(const LatencyStats& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}};
}

LatencyStats stats_of(const JsonField& field) {
  return LatencyStats{field.child("mean").number(), field.child("p50").number(), field.child("p90").number(),
                      field.child("p99").number()};
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
          {"ttft_ms", stats_ms(s.ttft_s)},
          {"tpot_ms", stats_ms(s.tpot_s)},
          {"itl_ms", stats_ms(s.itl_s)},
          {"e2e_ms", stats_ms(s.e2e_s)},
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
  text += fmt::format("  {:<20} {:<22} {:>10} {:>8} {:>6} {:>10} {:>9} {:>9} {:>11} {:>9}  {}\n", "system",
                      "layout", "limits", "replicas", "GPUs", "tok/s/GPU", "TTFT p90", "TPOT p90", "$/h",
                      "$/Mtok", "");
  for (const CapacityRow& row : search.rows) {
    if (row.refused()) {
      text += fmt::format("  {:<20} {:<22}  refused: {}\n", row.candidate.system, layout_text(row.candidate),
                          row.why);
      continue;
    }
    const std::string cost = row.cost_per_hour ? fmt::format("{:.2f}", row.cost_per_hour->base()) : "-";
    const std::string per_token =
        row.cost_per_hour ? fmt::format("{:.3f}", row.cost_per_million_tokens) : "-";
    text += fmt::format(
        "  {:<20} {:<22} {:>10} {:>8} {:>6} {:>10.0f} {:>7.0f}ms {:>7.1f}ms {:>11} {:>9}  {}\n",
        row.candidate.system, layout_text(row.candidate),
        fmt::format("{}/{}", row.limits.max_batched_tokens, row.limits.max_sequences),
        row.meets ? std::to_string(row.replicas) : "-", row.meets ? std::to_string(row.gpus) : "-",
        row.summary.output_tokens_per_s_per_gpu, row.summary.ttft_s.p90 * 1e3, row.summary.tpot_s.p90 * 1e3,
        cost, per_token, row.meets && row.why.empty() ? "<- answer" : row.why);
  }
  text += "\nlimits: max_num_batched_tokens/max_num_seqs per engine (per data-parallel rank with DP)\n";
  if (!search.fits_nowhere.empty()) text += "\n" + model + ": " + search.fits_nowhere + ".\n";
  if (search.rows.empty() || !search.rows.front().meets)
    text += "\nNo candidate meets the targets within the GPU limit.\n";
  return text;
}

nlohmann::json capacity_row_json(const CapacityRow& row) {
  return {{"system", row.candidate.system},
          {"tp", row.candidate.tp},
          {"dp_attention", row.candidate.ep},
          {"pp", row.candidate.pp},
          {"layout", layout_text(row.candidate)},
          {"accelerator", row.accelerator},
          {"meets", row.meets},
          {"replicas", row.replicas},
          {"gpus", row.gpus},
          {"max_batched_tokens", row.limits.max_batched_tokens},
          {"max_sequences", row.limits.max_sequences},
          {"requests", row.summary.requests},
          {"output_tokens_per_s", row.summary.output_tokens_per_s},
          {"output_tokens_per_s_per_gpu", row.summary.output_tokens_per_s_per_gpu},
          {"ttft_ms", stats_ms(row.summary.ttft_s)},
          {"tpot_ms", stats_ms(row.summary.tpot_s)},
          {"e2e_ms", stats_ms(row.summary.e2e_s)},
          {"cost_per_hour", row.cost_per_hour ? nlohmann::json(row.cost_per_hour->base()) : nlohmann::json()},
          {"cost_per_million_tokens",
           row.cost_per_hour ? nlohmann::json(row.cost_per_million_tokens) : nlohmann::json()},
          {"memory_needed_bytes", row.memory_needed_bytes},
          {"why", row.why}};
}

nlohmann::json capacity_json(const CapacitySearch& search, const std::string& model,
                             const std::string& traffic, const LatencyTargets& targets) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CapacityRow& row : search.rows) rows.push_back(capacity_row_json(row));
  return {{"schema", kServeCapacitySchema},
          {"model", model},
          {"traffic", traffic},
          {"targets_percentile", targets.percentile},
          {"simulations", search.simulations},
          {"fits_nowhere", search.fits_nowhere},
          {"rows", rows}};
}

nlohmann::json capacity_task_json(const CapacityTask& task) {
  const CapacityRow& row = task.row;
  const ServeSummary& s = row.summary;
  return {{"schema", kServeCapacityTaskSchema},
          {"task", task.task},
          {"simulations", task.simulations},
          {"system", row.candidate.system},
          {"tp", row.candidate.tp},
          {"dp_attention", row.candidate.ep},
          {"pp", row.candidate.pp},
          {"accelerator", row.accelerator},
          {"meets", row.meets},
          {"replicas", row.replicas},
          {"gpus", row.gpus},
          {"max_batched_tokens", row.limits.max_batched_tokens},
          {"max_sequences", row.limits.max_sequences},
          {"cost_per_hour", row.cost_per_hour ? nlohmann::json(row.cost_per_hour->base()) : nlohmann::json()},
          {"cost_per_million_tokens", row.cost_per_million_tokens},
          {"memory_needed_bytes", row.memory_needed_bytes},
          {"why", row.why},
          {"summary",
           {{"requests", s.requests},
            {"finished", s.finished},
            {"meets_targets", s.meets_targets},
            {"output_tokens_per_s", s.output_tokens_per_s},
            {"output_tokens_per_s_per_gpu", s.output_tokens_per_s_per_gpu},
            {"ttft_s", stats_s(s.ttft_s)},
            {"tpot_s", stats_s(s.tpot_s)},
            {"e2e_s", stats_s(s.e2e_s)}}}};
}

Result<CapacityTask> read_capacity_task_json(std::string_view text, const std::string& source) {
  return read_json_document<CapacityTask>(text, source, [](const JsonField& root) {
    expect_schema(root, kServeCapacityTaskSchema, "perf serve --search --task");
    CapacityTask task;
    task.task = int_of(root.child("task"));
    task.simulations = int_of(root.child("simulations"));
    CapacityRow& row = task.row;
    row.candidate = {root.child("system").string(), int_of(root.child("tp")),
                     int_of(root.child("dp_attention")), int_of(root.child("pp"))};
    row.accelerator = root.child("accelerator").string();
    row.meets = boolean_of(root.child("meets"));
    row.replicas = int_of(root.child("replicas"));
    row.gpus = int_of(root.child("gpus"));
    row.limits = {int_of(root.child("max_batched_tokens")), int_of(root.child("max_sequences"))};
    if (const auto cost = optional_number(root.child("cost_per_hour")))
      row.cost_per_hour = Money::from_base(*cost);
    row.cost_per_million_tokens = root.child("cost_per_million_tokens").number();
    row.memory_needed_bytes = root.child("memory_needed_bytes").number();
    row.why = root.child("why").string();
    const JsonField s = root.child("summary");
    row.summary.requests = int_of(s.child("requests"));
    row.summary.finished = int_of(s.child("finished"));
    row.summary.meets_targets = boolean_of(s.child("meets_targets"));
    row.summary.output_tokens_per_s = s.child("output_tokens_per_s").number();
    row.summary.output_tokens_per_s_per_gpu = s.child("output_tokens_per_s_per_gpu").number();
    row.summary.ttft_s = stats_of(s.child("ttft_s"));
    row.summary.tpot_s = stats_of(s.child("tpot_s"));
    row.summary.e2e_s = stats_of(s.child("e2e_s"));
    return task;
  });
}

Result<ServeDocument> read_serve_json(std::string_view text, const std::string& source) {
  return read_json_document<ServeDocument>(text, source, [](const JsonField& root) {
    expect_schema(root, kServeSchema, "perf serve --json");
    ServeDocument out;
    out.model = root.child("model").string();
    out.system = root.child("system").string();
    out.gpus = int_of(root.child("gpus"));
    out.requests_per_s = root.child("requests_per_s").number();
    out.output_tokens_per_s = root.child("output_tokens_per_s").number();
    out.output_tokens_per_s_per_gpu = root.child("output_tokens_per_s_per_gpu").number();
    out.meets_targets = boolean_of(root.child("meets_targets"));
    const auto stats = [&](const char* key) {
      const JsonField s = root.child(key);
      return LatencyStats{s.child("mean").number(), s.child("p50").number(), s.child("p90").number(),
                          s.child("p99").number()};
    };
    out.ttft_ms = stats("ttft_ms");
    out.tpot_ms = stats("tpot_ms");
    out.itl_ms = stats("itl_ms");
    out.e2e_ms = stats("e2e_ms");
    return out;
  });
}

}  // namespace gputwin
