#include "gputwin/report/html/perf_tables.hpp"

#include <fmt/format.h>

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

std::string inference_row(const InferencePoint& point, const std::string& label) {
  return fmt::format(
      "<tr data-sequences=\"{}\" data-ttft-ms=\"{}\" data-tpot-ms=\"{}\" data-tokens-per-s-per-gpu=\"{}\">"
      "<td class=\"num\">{}</td>{}{}<td>{}</td>{}{}<td>{}</td></tr>",
      point.sequences, exact(point.ttft_ms), exact(point.tpot_ms), exact(point.output_tokens_per_s_per_gpu),
      html_escape(label), number_cell(format_number(point.ttft_ms, 2)),
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
  html += header_cells({{"sequences", true},
                        {"TTFT ms", true},
                        {"TPOT ms", true},
                        {"decode bound", false},
                        {"output tok/s", true},
                        {"per GPU", true},
                        {"fits", false}});
  html += "<tbody>";
  for (const auto& point : result.by_sequences) html += inference_row(point, std::to_string(point.sequences));
  if (result.max_load.sequences > 0)
    html += inference_row(result.max_load, std::to_string(result.max_load.sequences) + " (max load)");
  return html + "</tbody></table>";
}

std::string split_text(const SizingSplit& split) {
  return fmt::format("tp {} pp {} cp {} dp {} mb {} {}{}", split.tp, split.pp, split.cp, split.dp,
                     split.micro_batch, split.recompute,
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

}  // namespace

std::string inference_section(const std::vector<InferenceResult>& inferences) {
  if (inferences.empty()) return "";
  std::string html = fmt::format(
      "<section id=\"inference\" data-results=\"{}\"><h2>Inference</h2><p class=\"note\">perf infer --json: "
      "steady-state latency and throughput of one replica at each number of concurrent sequences (TTFT = one "
      "prompt's prefill + one decode step; TPOT = a decode step at the mean context; docs/perf-inference.md)."
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
