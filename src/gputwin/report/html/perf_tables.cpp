#include "gputwin/report/html/perf_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "gputwin/core/units.hpp"
#include "gputwin/report/html/html_text.hpp"

namespace gputwin {
namespace {

// A figure as the JSON had it (shortest round-trip form), for data-* attributes that tests compare exactly.
std::string exact(double value) {
  return nlohmann::json(value).dump();
}

std::string file_name(const std::string& source) {
  return std::filesystem::path(source).filename().string();
}

std::string header_cells(const std::vector<std::pair<std::string, bool>>& columns) {
  std::string html = "<thead><tr>";
  for (const auto& [name, numeric] : columns)
    html += fmt::format("<th{}>{}</th>", numeric ? " class=\"num\"" : "", html_escape(name));
  return html + "</tr></thead>";
}

std::string number_cell(const std::string& text) {
  return "<td class=\"num\">" + html_escape(text) + "</td>";
}

bool simulated_under_load(const InferenceResult& result) {
  return std::any_of(result.by_sequences.begin(), result.by_sequences.end(),
                     [](const InferencePoint& point) { return point.ttft_under_load_ms.has_value(); });
}

std::string loaded_cells(const InferencePoint& point) {
  const auto pair = [](const std::optional<LatencyStats>& ms) {
    return ms ? number_cell(format_number(ms->p50, 1) + " / " + format_number(ms->p99, 1)) : number_cell("-");
  };
  return pair(point.ttft_under_load_ms) + pair(point.tpot_under_load_ms);
}

std::string inference_row(const InferencePoint& point, const std::string& label, bool loaded) {
  return fmt::format(
      "<tr data-sequences=\"{}\" data-ttft-ms=\"{}\" data-tpot-ms=\"{}\" data-tokens-per-s-per-gpu=\"{}\"{}>"
      "<td class=\"num\">{}</td>{}{}{}<td>{}</td>{}{}<td>{}</td></tr>",
      point.sequences, exact(point.ttft_ms), exact(point.tpot_ms), exact(point.output_tokens_per_s_per_gpu),
      point.ttft_under_load_ms
          ? fmt::format(" data-loaded-ttft-p99-ms=\"{}\"", exact(point.ttft_under_load_ms->p99))
          : std::string(),
      html_escape(label), number_cell(format_number(point.ttft_ms, 2)), loaded ? loaded_cells(point) : "",
      number_cell(format_number(point.tpot_ms, 2)), html_escape(point.decode_bound),
      number_cell(format_number(point.output_tokens_per_s, 0)),
      number_cell(format_number(point.output_tokens_per_s_per_gpu, 0)),
      point.fits ? "yes" : "no (KV cache full)");
}

std::string inference_table(const InferenceResult& result) {
  const std::string replica =
      fmt::format("TP {}{}", result.tp, result.ep > 1 ? fmt::format(" x EP {}", result.ep) : std::string());
  std::string html = fmt::format(
      "<h3>{} on {} ({}), {}, {} weights, {} input / {} output tokens</h3><p class=\"note\">{}: weights {} "
      "GB "
      "per GPU; KV cache room for {} tokens = {} sequences at once, on {} GPUs per replica.</p>",
      html_escape(result.model), html_escape(result.system), html_escape(result.accelerator), replica,
      html_escape(result.precision), result.input_tokens, result.output_tokens,
      html_escape(file_name(result.source)), format_number(result.weight_gb_per_gpu, 1),
      format_number(result.kv_capacity_tokens, 0), result.max_sequences, result.gpus_per_replica);
  html += fmt::format("<table class=\"inference\" data-model=\"{}\" data-max-sequences=\"{}\">",
                      html_escape(result.model), result.max_sequences);
  const bool loaded = simulated_under_load(result);
  std::vector<std::pair<std::string, bool>> columns{{"sequences", true}, {"TTFT ms", true}};
  if (loaded)
    columns.insert(columns.end(), {{"loaded TTFT p50 / p99", true}, {"loaded TPOT p50 / p99", true}});
  columns.insert(columns.end(), {{"TPOT ms", true},
                                 {"decode bound", false},
                                 {"output tok/s", true},
                                 {"per GPU", true},
                                 {"fits", false}});
  html += header_cells(columns);
  html += "<tbody>";
  for (const auto& point : result.by_sequences)
    html += inference_row(point, std::to_string(point.sequences), loaded);
  if (result.max_load.sequences > 0)
    html += inference_row(result.max_load, std::to_string(result.max_load.sequences) + " (max load)", loaded);
  return html + "</tbody></table>";
}

std::string split_text(const SizingSplit& split) {
  return fmt::format("tp {} pp {} cp {} ep {} dp {} mb {} {}{}", split.tp, split.pp, split.cp, split.ep,
                     split.dp, split.micro_batch, split.recompute,
                     split.idle_gpus > 0 ? fmt::format(", {} idle", split.idle_gpus) : std::string());
}

std::string sizing_row(const SizedAccelerator& row) {
  if (!row.sized) {
    return fmt::format(
        "<tr data-accelerator=\"{0}\" data-sized=\"false\"><td>{0}</td><td>{1}</td><td class=\"num\">-</td>"
        "<td>{2}</td><td class=\"num\">-</td><td class=\"num\">-</td><td class=\"num\">-</td>"
        "<td class=\"num\">-</td></tr>",
        html_escape(row.accelerator), html_escape(row.system.empty() ? "-" : row.system),
        html_escape(row.note));
  }
  return fmt::format(
      "<tr data-accelerator=\"{}\" data-sized=\"true\" data-gpus=\"{}\" "
      "data-days=\"{}\"><td>{}</td><td>{}</td>"
      "{}<td>{}</td>{}{}{}{}</tr>",
      html_escape(row.accelerator), row.gpus, exact(row.days), html_escape(row.accelerator),
      html_escape(row.system), number_cell(std::to_string(row.gpus)), html_escape(split_text(row.split)),
      number_cell(format_number(row.days, 1)), number_cell(format_number(100 * row.mfu, 1) + " %"),
      number_cell(
          fmt::format("{}/{} GB", format_number(row.memory_gb, 0), format_number(row.memory_capacity_gb, 0))),
      number_cell(row.cost_usd ? format_money(usd(*row.cost_usd)) : "no price"));
}

std::string sizing_table(const SizingResult& sizing) {
  std::string html =
      fmt::format("<h3>{} ({}B parameters) on {} tokens within {} days</h3><p class=\"note\">{}{}</p>",
                  html_escape(sizing.model), format_number(sizing.parameters / 1e9, 1),
                  html_escape(fmt::format("{:.4g}", sizing.tokens)), format_number(sizing.days, 1),
                  html_escape(file_name(sizing.source)),
                  sizing.cost_basis.empty() ? ": no GPU-hour prices, so no cost"
                                            : html_escape(": cost = GPU-hours x " + sizing.cost_basis));
  html += fmt::format("<table class=\"sizing\" data-model=\"{}\">", html_escape(sizing.model));
  html += header_cells({{"accelerator", false},
                        {"system", false},
                        {"GPUs", true},
                        {"split", false},
                        {"days", true},
                        {"MFU", true},
                        {"memory/GPU", true},
                        {"cost", true}});
  html += "<tbody>";
  for (const auto& row : sizing.accelerators) html += sizing_row(row);
  return html + "</tbody></table>";
}

std::string percentiles_cell(const LatencyStats& ms) {
  return number_cell(fmt::format("{} / {} / {}", format_number(ms.p50, 1), format_number(ms.p90, 1),
                                 format_number(ms.p99, 1)));
}

std::string targets_cell(const ServeDocument& run) {
  if (!run.ttft_target_ms && !run.tpot_target_ms) return "<td>none set</td>";
  std::string text;
  if (run.ttft_target_ms) text += fmt::format("TTFT {} ms", format_number(*run.ttft_target_ms, 0));
  if (run.tpot_target_ms)
    text += fmt::format("{}TPOT {} ms", text.empty() ? "" : ", ", format_number(*run.tpot_target_ms, 0));
  return fmt::format("<td>{} at p{}: {} ({} % of requests)</td>", html_escape(text),
                     format_number(run.targets_percentile * 100, 0), run.meets_targets ? "met" : "NOT met",
                     format_number(run.share_meeting_targets * 100, 1));
}

std::string serve_row(const ServeDocument& run) {
  return fmt::format(
      "<tr data-requests-per-s=\"{}\" data-ttft-p99-ms=\"{}\" data-tpot-p99-ms=\"{}\" "
      "data-meets=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}{}{}{}{}{}</tr>",
      exact(run.requests_per_s), exact(run.ttft_ms.p99), exact(run.tpot_ms.p99),
      run.meets_targets ? "true" : "false", html_escape(run.model), html_escape(run.system),
      html_escape(fmt::format("{} = {} GPUs, {}", deployment_text(run), run.gpus, run.precision)),
      html_escape(run.traffic), number_cell(format_number(run.requests_per_s, 2)),
      number_cell(format_number(run.output_tokens_per_s_per_gpu, 0)), percentiles_cell(run.ttft_ms),
      percentiles_cell(run.tpot_ms), percentiles_cell(run.itl_ms), percentiles_cell(run.e2e_ms),
      targets_cell(run));
}

// What a meeting row buys: "2 x rack gb200-nvl72 (36 trays, 144 GPUs)" or "3 nodes in 1 rack (24 GPUs)";
// "-" for a row that does not meet the targets, "not recorded" for a /1 document that did not count it.
std::string bought_text(const CapacityDocumentRow& row) {
  if (!row.bought) return "not recorded";
  const CapacityDocumentPurchase& b = *row.bought;
  if (!row.meets || b.gpus == 0) return "-";
  if (b.unit.starts_with("rack"))
    return fmt::format("{} x {} ({} trays, {} GPUs)", b.racks, b.unit, b.nodes, b.gpus);
  const std::string racks = b.racks > 0 ? fmt::format(" in {} rack{}", b.racks, b.racks == 1 ? "" : "s") : "";
  return fmt::format("{} node{}{} ({} GPUs)", b.nodes, b.nodes == 1 ? "" : "s", racks, b.gpus);
}

std::string capacity_row(const CapacityDocumentRow& row) {
  const std::string cost = row.cost_per_hour ? format_money(usd(*row.cost_per_hour)) : "-";
  const std::string per_token =
      row.cost_per_million_tokens ? format_money(usd(*row.cost_per_million_tokens)) : "-";
  const std::string bought_gpus = row.bought && row.meets ? std::to_string(row.bought->gpus) : "";
  return fmt::format(
      "<tr data-system=\"{}\" data-tp=\"{}\" data-meets=\"{}\" data-gpus=\"{}\" data-bought-gpus=\"{}\">"
      "<td>{}</td><td>{}</td>{}{}{}<td class=\"bought\">{}</td>{}{}{}{}{}<td>{}</td></tr>",
      html_escape(row.system), row.tp, row.meets ? "true" : "false", row.gpus, bought_gpus,
      html_escape(row.system), html_escape(row.accelerator), "<td>" + html_escape(row.layout) + "</td>",
      number_cell(row.meets ? std::to_string(row.replicas) : "-"),
      number_cell(row.meets ? std::to_string(row.gpus) : "-"), html_escape(bought_text(row)),
      number_cell(format_number(row.output_tokens_per_s_per_gpu, 0)),
      number_cell(format_number(row.ttft_p90_ms, 0)), number_cell(format_number(row.tpot_p90_ms, 1)),
      number_cell(cost), number_cell(per_token), html_escape(row.why.empty() ? "the answer" : row.why));
}

std::string capacity_table(const CapacityDocument& search) {
  const std::string basis =
      search.cost_basis == CapacityCostBasis::bought_gpus
          ? "bought: the whole nodes, or racks of a rack-scale system, a deployment buys; $/h is on the GPUs "
            "bought"
          : "a " + search.schema +
                " document written before purchases were counted: bought not recorded, $/h on the GPUs used";
  std::string html = fmt::format(
      "<h3>Capacity for {}: {}</h3><p class=\"note\">{}: {} simulations; targets at p{}; the first row is "
      "the answer when it meets them; {}.</p>",
      html_escape(search.model), html_escape(search.traffic), html_escape(file_name(search.source)),
      search.simulations, format_number(search.targets_percentile * 100, 0), html_escape(basis));
  html += fmt::format("<table class=\"capacity\" data-model=\"{}\">", html_escape(search.model));
  html += header_cells({{"system", false},
                        {"accelerator", false},
                        {"layout", false},
                        {"replicas", true},
                        {"GPUs", true},
                        {"bought", false},
                        {"tok/s/GPU", true},
                        {"TTFT p90 ms", true},
                        {"TPOT p90 ms", true},
                        {"$/h", true},
                        {"$/M tokens", true},
                        {"why", false}});
  html += "<tbody>";
  for (const auto& row : search.rows) html += capacity_row(row);
  return html + "</tbody></table>";
}

}  // namespace

std::string inference_section(const std::vector<InferenceResult>& inferences) {
  if (inferences.empty()) return "";
  std::string html = fmt::format(
      "<section id=\"inference\" data-results=\"{}\"><h2>Inference</h2><p class=\"note\">perf infer --json: "
      "steady-state latency and throughput of one replica at each number of concurrent sequences (TTFT = one "
      "prompt's prefill + one decode step; TPOT = a decode step at the mean context; loaded = that many "
      "clients "
      "simulated as a benchmark runs them, queueing and batched prefill included; docs/perf-inference.md)."
      "</p>",
      inferences.size());
  for (const auto& result : inferences) html += inference_table(result);
  return html + "</section>";
}

std::string sizing_section(const std::vector<SizingResult>& sizings) {
  if (sizings.empty()) return "";
  std::string html = fmt::format(
      "<section id=\"sizing\" data-results=\"{}\"><h2>Training sizing</h2><p class=\"note\">perf size "
      "--json: "
      "per accelerator, the fewest GPUs whose fastest fitting split trains the model in time "
      "(docs/perf-training.md).</p>",
      sizings.size());
  for (const auto& sizing : sizings) html += sizing_table(sizing);
  return html + "</section>";
}

}  // namespace gputwin

namespace gputwin {

std::string serving_section(const std::vector<ServeDocument>& serves,
                            const std::vector<CapacityDocument>& capacities) {
  if (serves.empty() && capacities.empty()) return "";
  std::string html = fmt::format(
      "<section id=\"serving\" data-runs=\"{}\" data-searches=\"{}\"><h2>Serving</h2><p class=\"note\">"
      "perf serve --json: simulated deployments under their traffic (latencies p50 / p90 / p99 in ms; "
      "docs/perf-serve.md).</p>",
      serves.size(), capacities.size());
  if (!serves.empty()) {
    html += "<table class=\"serve\">";
    html += header_cells({{"model", false},
                          {"system", false},
                          {"deployment", false},
                          {"traffic", false},
                          {"req/s", true},
                          {"tok/s/GPU", true},
                          {"TTFT", true},
                          {"TPOT", true},
                          {"ITL", true},
                          {"E2E", true},
                          {"targets", false}});
    html += "<tbody>";
    for (const auto& run : serves) html += serve_row(run);
    html += "</tbody></table>";
  }
  for (const auto& search : capacities) html += capacity_table(search);
  return html + "</section>";
}

std::string goodput_section(const std::vector<GoodputDocument>& goodputs) {
  if (goodputs.empty()) return "";
  std::string html = fmt::format(
      "<section id=\"goodput\" data-results=\"{}\"><h2>Goodput under failures</h2><p class=\"note\">perf "
      "goodput --json: one training job under the failure model, mean +- standard deviation over the seeds "
      "(docs/perf-goodput.md).</p><table class=\"goodput\">",
      goodputs.size());
  html += header_cells({{"file", false},
                        {"system", false},
                        {"GPUs", true},
                        {"work days", true},
                        {"spares", true},
                        {"interruptions", true},
                        {"MTTF h", true},
                        {"checkpoint min", true},
                        {"ETTR", true},
                        {"wall days", true},
                        {"failure model", false}});
  html += "<tbody>";
  for (const auto& g : goodputs) {
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td>{}{}{}{}{}{}{}{}<td>{}</td></tr>", html_escape(file_name(g.source)),
        html_escape(g.system), number_cell(std::to_string(g.gpus)),
        number_cell(format_number(g.work_days, 1)), number_cell(std::to_string(g.spare_nodes)),
        number_cell(format_number(g.interruptions_mean, 1) + " +- " +
                    format_number(g.interruptions_stdev, 1)),
        number_cell(format_number(g.mttf_hours, 2)), number_cell(format_number(g.interval_used_minutes, 1)),
        number_cell(format_number(g.ettr, 3)), number_cell(format_number(g.wall_days, 2)),
        html_escape(g.failure_model));
  }
  return html + "</tbody></table></section>";
}

}  // namespace gputwin
