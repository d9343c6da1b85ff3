#include "gputwin/report/inference_report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gputwin/core/units.hpp"
#include "gputwin/report/json_document.hpp"
#include "gputwin/report/serve_documents.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

std::string milliseconds(double seconds) {
  return format_number(seconds * 1e3, 2);
}
const char* bound_name(const StepTime& step) {
  return step.compute_bound() ? "compute" : "memory";
}

// The closed-loop simulation of row i (by_sequences, then max_load), when one was run.
const ServeSummary* under_load_of(const InferenceReport& report, std::size_t i) {
  return i < report.under_load.size() ? &report.under_load[i] : nullptr;
}

nlohmann::json under_load_json(const ServeSummary& s) {
  return {{"requests", s.finished},
          {"ttft_ms", latency_ms_json(s.ttft_s)},
          {"tpot_ms", latency_ms_json(s.tpot_s)},
          {"output_tokens_per_s_per_gpu", round_decimals(s.output_tokens_per_s_per_gpu, 1)},
          {"preemptions", s.preemptions}};
}

nlohmann::json estimate_json_fields(const InferenceEstimate& e) {
  return {{"sequences", e.sequences},
          {"fits", e.fits},
          {"ttft_ms", round_decimals(e.ttft_s * 1e3, 3)},
          {"tpot_ms", round_decimals(e.tpot_s * 1e3, 3)},
          {"decode_bound", bound_name(e.decode)},
          {"decode_compute_ms", round_decimals(e.decode.compute_s * 1e3, 3)},
          {"decode_memory_ms", round_decimals(e.decode.memory_s * 1e3, 3)},
          {"decode_communication_ms", round_decimals(e.decode.communication_s * 1e3, 3)},
          {"decode_host_ms", round_decimals(e.decode.host_s * 1e3, 3)},
          {"decode_weight_gb_read_per_gpu", round_decimals(e.decode_weight_bytes_read_per_gpu / 1e9, 3)},
          {"prefill_ms", round_decimals(e.prefill.seconds() * 1e3, 3)},
          {"output_tokens_per_s", round_decimals(e.output_tokens_per_s, 1)},
          {"output_tokens_per_s_per_gpu", round_decimals(e.output_tokens_per_s_per_gpu, 1)}};
}

nlohmann::json estimate_json(const InferenceEstimate& e, const ServeSummary* under_load) {
  nlohmann::json row = estimate_json_fields(e);
  if (under_load != nullptr) row["under_load"] = under_load_json(*under_load);
  return row;
}

std::string gb_text(double bytes) {
  return format_number(bytes / 1e9, 1);
}

// What the MoE and latent-attention rules did to this run, for models that have them.
std::string moe_and_mla_notes(const InferenceReport& report) {
  const TransformerModel& model = report.setup.model;
  std::ostringstream out;
  if (model.is_moe()) {
    const auto& rows = report.by_sequences;
    out << "  MoE: " << model.moe.experts << " experts, top " << model.moe.experts_per_token << ", on "
        << model.moe_layer_count() << " layers; weights a decode step reads per GPU (the experts its tokens\n"
        << "  hit, uniform routing):";
    for (const auto& row : rows)
      out << " " << gb_text(row.decode_weight_bytes_read_per_gpu) << " GB at " << row.sequences << ",";
    out << " of " << gb_text(report.max_load.weight_bytes_per_gpu) << " GB resident\n";
  }
  if (model.is_latent_attention()) {
    out << "  MLA: the KV cache is the compressed latent (" << model.mla.kv_lora_rank << " + "
        << model.mla.qk_rope_head_dim << " rope per layer), whole on every TP rank\n";
  }
  return out.str();
}

// "llama3.1-70b on dgx-h100 (h100-sxm)<between>TP 2" (" x EP 4" with expert parallelism).
std::string replica_text(const InferenceReport& report, const char* on, const char* between) {
  const InferenceSetup& setup = report.setup;
  return setup.model.name + on + report.hardware.system_id + " (" + report.hardware.accelerator.info.id +
         ")" + between + "TP " + std::to_string(setup.tp) +
         (setup.ep > 1 ? " x EP " + std::to_string(setup.ep) : std::string()) +
         (setup.pp > 1 ? " x PP " + std::to_string(setup.pp) : std::string());
}

// Where a replica's GPUs sit when they fill more than one node (or its TP group more than one domain): which
// of its traffic the scale-up fabric carries. Empty for a replica inside one node.
std::string placement_text(const PerfHardware& hardware, const InferenceSetup& setup) {
  const int replica = setup.tp * setup.ep * setup.pp;
  const int per_node = std::max(1, hardware.gpus_per_node);
  const int domain = hardware.gpus_per_domain();
  if (replica <= per_node && setup.tp <= domain) return "";
  const std::string fabric = hardware.accelerator.scale_up ? hardware.accelerator.scale_up->type : "PCIe";
  std::ostringstream out;
  out << "  placement: the replica's " << replica << " GPUs on " << (replica + per_node - 1) / per_node
      << " x " << hardware.system_id << "; ";
  if (replica <= domain) {
    out << "all inside one " << domain << "-GPU " << fabric << " domain (its collectives on " << fabric
        << ")\n";
  } else if (setup.tp > domain) {
    out << "TP " << setup.tp << " spans " << (setup.tp + domain - 1) / domain << " scale-up domains of "
        << domain << " GPUs: its all-reduces cross the NICs\n";
  } else {
    out << (replica + domain - 1) / domain << " scale-up domains of " << domain << " GPUs, "
        << (domain % setup.tp == 0 ? "each TP group of " + std::to_string(setup.tp) + " inside one"
                                   : "TP groups of " + std::to_string(setup.tp) + " in one or straddling two")
        << " (" << fabric << "), the traffic between domains over the NICs\n";
  }
  return out.str();
}

}  // namespace

std::string inference_refusal_text(const InferenceReport& report) {
  const InferenceSetup& setup = report.setup;
  const InferenceEstimate& e = report.max_load;
  std::ostringstream out;
  out << "perf infer: " << replica_text(report, " does not fit on ", " at ") << ": "
      << gb_text(e.weight_bytes_per_gpu) << " GB of " << setup.precision
      << " weights per GPU, with the runtime's reserve and one sequence's KV cache, need "
      << gb_text(e.missing_bytes_per_gpu) << " GB more per GPU than its "
      << gb_text(report.hardware.accelerator.memory.base())
      << " GB; no latencies are given. Give the replica more GPUs ("
      << (setup.model.is_moe() ? "--tp, --ep" : "--tp")
      << "), smaller weights (--precision) or a larger accelerator\n";
  return out.str();
}

nlohmann::json inference_json(const InferenceReport& report) {
  const InferenceSetup& setup = report.setup;
  const InferenceEstimate& max_load = report.max_load;
  nlohmann::json out = {
      {"schema", kInferenceSchema},
      {"model", setup.model.name},
      {"system", report.hardware.system_id},
      {"accelerator", report.hardware.accelerator.info.id},
      {"tp", setup.tp},
      {"ep", setup.ep},
      {"pp", setup.pp},
      {"gpus_per_replica", setup.tp * setup.ep * setup.pp},
      {"precision", setup.precision},
      {"kv_bytes_per_element", setup.kv_bytes_per_element},
      {"input_tokens", setup.input_tokens},
      {"output_tokens", setup.output_tokens},
      {"weight_gb_per_gpu", round_decimals(max_load.weight_bytes_per_gpu / 1e9, 3)},
      {"kv_bytes_per_token_per_gpu", max_load.kv_bytes_per_token_per_gpu},
      {"kv_capacity_tokens", std::floor(max_load.kv_capacity_tokens)},
      {"max_sequences", max_load.max_sequences},
      {"by_sequences", nlohmann::json::array()},
      {"max_load", estimate_json(max_load, under_load_of(report, report.by_sequences.size()))}};
  for (std::size_t i = 0; i < report.by_sequences.size(); ++i)
    out["by_sequences"].push_back(estimate_json(report.by_sequences[i], under_load_of(report, i)));
  if (report.engine)
    out["engine"] = {{"generation", report.engine->generation},
                     {"efficiency", report.engine->efficiency},
                     {"name", report.engine->text}};
  if (!report.under_load.empty()) {
    out["under_load"] = {{"engine", report.under_load_engine},
                         {"requests_per_client", report.under_load_rounds}};
  }
  return out;
}

std::string inference_text(const InferenceReport& report) {
  const InferenceSetup& setup = report.setup;
  const InferenceEstimate& max_load = report.max_load;
  std::ostringstream out;
  out << "Inference of " << replica_text(report, " on ", ", ") << ", " << setup.precision << " weights, "
      << format_number(setup.kv_bytes_per_element, 0) << "-byte KV cache, " << setup.input_tokens
      << " input / " << setup.output_tokens << " output tokens\n"
      << "  weights " << format_number(max_load.weight_bytes_per_gpu / 1e9, 1) << " GB per GPU; KV cache "
      << format_number(max_load.kv_bytes_per_token_per_gpu / 1024, 1) << " KiB per token per GPU; room for "
      << format_number(std::floor(max_load.kv_capacity_tokens), 0) << " tokens = " << max_load.max_sequences
      << " sequences at once\n"
      << placement_text(report.hardware, setup);
  using enum Align;
  const bool loaded = !report.under_load.empty();
  std::vector<std::string> header{"sequences", "TTFT ms"};
  std::vector<Align> align{right, right};
  if (loaded) {
    header.insert(header.end(), {"loaded TTFT p50/p99", "loaded TPOT p50/p99"});
    align.insert(align.end(), {right, right});
  }
  header.insert(header.end(), {"TPOT ms", "decode bound", "compute ms", "memory ms", "TP comm ms",
                               "output tok/s", "per GPU", "fits"});
  align.insert(align.end(), {right, left, right, right, right, right, right, left});
  TextTable table(header, align);
  const auto pair_ms = [](const LatencyStats& s) {
    return format_number(s.p50 * 1e3, s.p50 < 0.1 ? 1 : 0) + " / " +
           format_number(s.p99 * 1e3, s.p99 < 0.1 ? 1 : 0);
  };
  const auto add = [&](const InferenceEstimate& e, const std::string& label, const ServeSummary* under_load) {
    std::vector<std::string> row{label, milliseconds(e.ttft_s)};
    if (loaded) {
      row.push_back(under_load != nullptr ? pair_ms(under_load->ttft_s) : "-");
      row.push_back(under_load != nullptr ? pair_ms(under_load->tpot_s) : "-");
    }
    row.insert(row.end(),
               {milliseconds(e.tpot_s), bound_name(e.decode), milliseconds(e.decode.compute_s),
                milliseconds(e.decode.memory_s), milliseconds(e.decode.communication_s),
                format_number(e.output_tokens_per_s, 0), format_number(e.output_tokens_per_s_per_gpu, 0),
                e.fits ? "yes" : "no (KV cache full)"});
    table.add_row(row);
  };
  for (std::size_t i = 0; i < report.by_sequences.size(); ++i)
    add(report.by_sequences[i], std::to_string(report.by_sequences[i].sequences), under_load_of(report, i));
  if (max_load.sequences > 0)
    add(max_load, std::to_string(max_load.sequences) + " (max load)",
        under_load_of(report, report.by_sequences.size()));
  out << table.render("  ");
  out << moe_and_mla_notes(report);
  out << "  TTFT = one prompt's prefill + one decode step, alone; TPOT = decode step at the mean context;\n";
  if (loaded) {
    out << "  loaded = that many clients starting together, each sending " << report.under_load_rounds
        << " requests in turn, simulated on one replica with\n  " << report.under_load_engine
        << " (queueing and batched prefill included; docs/perf-inference.md)\n";
  }
  if (report.engine)
    out << "  engine: " << report.engine->text << ": every time above divided by "
        << format_number(report.engine->efficiency, 3) << ", the throughput multiplied by it\n";
  out << "  model and constants: docs/perf-inference.md, data/perf/inference.yaml\n";
  return out.str();
}

namespace {

InferencePoint point_from_json(const JsonField& point) {
  InferencePoint p;
  if (point.has("under_load")) {
    const JsonField loaded = point.child("under_load");
    p.ttft_under_load_ms = latency_from_json(loaded.child("ttft_ms"));
    p.tpot_under_load_ms = latency_from_json(loaded.child("tpot_ms"));
  }
  p.sequences = int_of(point.child("sequences"));
  p.fits = boolean_of(point.child("fits"));
  p.ttft_ms = point.child("ttft_ms").number();
  p.tpot_ms = point.child("tpot_ms").number();
  p.decode_bound = point.child("decode_bound").string();
  p.output_tokens_per_s = point.child("output_tokens_per_s").number();
  p.output_tokens_per_s_per_gpu = point.child("output_tokens_per_s_per_gpu").number();
  return p;
}

}  // namespace

InferenceResult inference_result_from_json(const JsonField& root, const std::string& source) {
  expect_schema(root, kInferenceSchema, "perf infer --json");
  InferenceResult result;
  result.source = source;
  result.model = root.child("model").string();
  result.system = root.child("system").string();
  result.accelerator = root.child("accelerator").string();
  result.precision = root.child("precision").string();
  result.tp = int_of(root.child("tp"));
  result.ep = int_of(root.child("ep"));
  result.gpus_per_replica = int_of(root.child("gpus_per_replica"));
  result.input_tokens = int_of(root.child("input_tokens"));
  result.output_tokens = int_of(root.child("output_tokens"));
  result.weight_gb_per_gpu = root.child("weight_gb_per_gpu").number();
  result.kv_capacity_tokens = root.child("kv_capacity_tokens").number();
  result.max_sequences = int_of(root.child("max_sequences"));
  const JsonField points = root.child("by_sequences");
  for (std::size_t i = 0; i < points.array_size(); ++i)
    result.by_sequences.push_back(point_from_json(points.element(i)));
  result.max_load = point_from_json(root.child("max_load"));
  return result;
}

Result<InferenceResult> read_inference_json(std::string_view text, const std::string& source) {
  return read_json_document<InferenceResult>(
      text, source, [&](const JsonField& root) { return inference_result_from_json(root, source); });
}

}  // namespace gputwin
