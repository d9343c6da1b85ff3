#include "gputwin/report/serve_documents.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gputwin/report/json_document.hpp"

namespace gputwin {

LatencyStats latency_from_json(const JsonField& s) {
  return LatencyStats{s.child("mean").number(), s.child("p50").number(), s.child("p90").number(),
                      s.child("p99").number()};
}

Result<CapacityTask> read_capacity_task_json(std::string_view text, const std::string& source) {
  return read_json_document<CapacityTask>(text, source, [](const JsonField& root) {
    expect_schema(root, kServeCapacityTaskSchema, "perf serve --search --task");
    CapacityTask task;
    task.task = int_of(root.child("task"));
    task.simulations = int_of(root.child("simulations"));
    CapacityRow& row = task.row;
    row.candidate = {root.child("system").string(), int_of(root.child("tp")),
                     int_of(root.child("dp_attention")), int_of(root.child("pp")),
                     boolean_of(root.child("disaggregated"))};
    if (root.has("decode_tp") && int_of(root.child("decode_tp")) != row.candidate.tp)
      row.candidate.decode_tp = int_of(root.child("decode_tp"));  // older task files lack it: the same TP
    row.prefill_instances = int_of(root.child("prefill_instances"));
    row.decode_instances = int_of(root.child("decode_instances"));
    row.accelerator = root.child("accelerator").string();
    row.meets = boolean_of(root.child("meets"));
    row.replicas = int_of(root.child("replicas"));
    row.gpus = int_of(root.child("gpus"));
    if (root.has("bought_gpus")) {  // task files written before purchases were counted lack them
      row.unit = root.child("unit").string();
      row.bought = {int_of(root.child("nodes")), int_of(root.child("racks")),
                    int_of(root.child("bought_gpus"))};
    }
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
    row.summary.ttft_s = latency_from_json(s.child("ttft_s"));
    row.summary.tpot_s = latency_from_json(s.child("tpot_s"));
    row.summary.e2e_s = latency_from_json(s.child("e2e_s"));
    return task;
  });
}

std::string deployment_text(const ServeDocument& run) {
  if (!run.pools) return fmt::format("{} x TP {}", run.replicas, run.tp);
  return fmt::format("{} prefill x TP {} + {} decode x TP {}", run.pools->prefill.instances,
                     run.pools->prefill.tp, run.pools->decode.instances, run.pools->decode.tp);
}

ServeDocument serve_document_from_json(const JsonField& root, const std::string& source) {
  expect_schema(root, kServeSchema, "perf serve --json");
  ServeDocument out;
  out.source = source;
  out.model = root.child("model").string();
  out.system = root.child("system").string();
  out.precision = root.child("precision").string();
  out.traffic = root.child("traffic").string();
  out.tp = root.child("tp").json().is_null() ? 0 : int_of(root.child("tp"));
  out.replicas = int_of(root.child("replicas"));
  out.gpus = int_of(root.child("gpus"));
  out.requests_per_s = root.child("requests_per_s").number();
  out.output_tokens_per_s = root.child("output_tokens_per_s").number();
  out.output_tokens_per_s_per_gpu = root.child("output_tokens_per_s_per_gpu").number();
  out.ttft_ms = latency_from_json(root.child("ttft_ms"));
  out.tpot_ms = latency_from_json(root.child("tpot_ms"));
  out.itl_ms = latency_from_json(root.child("itl_ms"));
  out.e2e_ms = latency_from_json(root.child("e2e_ms"));
  const JsonField targets = root.child("targets");
  out.targets_percentile = targets.child("percentile").number();
  if (targets.has("ttft_ms")) out.ttft_target_ms = targets.child("ttft_ms").number();
  if (targets.has("tpot_ms")) out.tpot_target_ms = targets.child("tpot_ms").number();
  out.share_meeting_targets = root.child("share_meeting_targets").number();
  out.meets_targets = boolean_of(root.child("meets_targets"));
  if (const auto pools = root.optional_child("pools")) {
    const auto pool = [&](const char* key) {
      const JsonField p = pools->child(key);
      return ServeDocument::Pool{int_of(p.child("instances")), int_of(p.child("tp")),
                                 int_of(p.child("gpus"))};
    };
    ServeDocument::Pools read;
    read.prefill = pool("prefill");
    read.decode = pool("decode");
    const JsonField transfer = pools->child("kv_transfer");
    read.kv_bytes_total = transfer.child("bytes_total").number();
    read.kv_transfer_ms = latency_from_json(transfer.child("time_ms"));
    out.pools = read;
  }
  return out;
}

Result<ServeDocument> read_serve_json(std::string_view text, const std::string& source) {
  return read_json_document<ServeDocument>(
      text, source, [&](const JsonField& root) { return serve_document_from_json(root, source); });
}

namespace {

// A /2 row's purchase (required), or a /1 row's when it records one.
std::optional<CapacityDocumentPurchase> purchase_from_json(const JsonField& row, bool required) {
  if (!required && !row.has("bought_gpus")) return std::nullopt;
  return CapacityDocumentPurchase{row.child("unit").string(), int_of(row.child("nodes")),
                                  int_of(row.child("racks")), int_of(row.child("bought_gpus"))};
}

}  // namespace

CapacityDocument capacity_document_from_json(const JsonField& root, const std::string& source) {
  const bool first_version = root.json().is_object() && root.has("schema") &&
                             root.child("schema").json().is_string() &&
                             root.child("schema").string() == kServeCapacitySchemaV1;
  expect_schema(root, first_version ? kServeCapacitySchemaV1 : kServeCapacitySchema,
                "perf serve --search --json");
  CapacityDocument out;
  out.source = source;
  out.schema = first_version ? kServeCapacitySchemaV1 : kServeCapacitySchema;
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
    r.layout = row.child("layout").string();
    r.tp = int_of(row.child("tp"));
    if (row.has("disaggregated")) {  // documents written before disaggregation was searched lack it
      r.disaggregated = boolean_of(row.child("disaggregated"));
      r.prefill_instances = int_of(row.child("prefill_instances"));
      r.decode_instances = int_of(row.child("decode_instances"));
    }
    r.meets = boolean_of(row.child("meets"));
    r.replicas = int_of(row.child("replicas"));
    r.gpus = int_of(row.child("gpus"));
    r.bought = purchase_from_json(row, !first_version);
    r.output_tokens_per_s_per_gpu = row.child("output_tokens_per_s_per_gpu").number();
    r.ttft_p90_ms = row.child("ttft_ms").child("p90").number();
    r.tpot_p90_ms = row.child("tpot_ms").child("p90").number();
    r.cost_per_hour = optional_number(row.child("cost_per_hour"));
    r.cost_per_million_tokens = optional_number(row.child("cost_per_million_tokens"));
    r.why = row.child("why").string();
    out.rows.push_back(std::move(r));
  }
  // A /1 writer priced the GPUs bought once it counted them; before, the GPUs used.
  const bool any_bought = std::any_of(out.rows.begin(), out.rows.end(),
                                      [](const CapacityDocumentRow& r) { return r.bought.has_value(); });
  out.cost_basis =
      first_version && !any_bought ? CapacityCostBasis::used_gpus : CapacityCostBasis::bought_gpus;
  return out;
}

Result<CapacityDocument> read_capacity_json(std::string_view text, const std::string& source) {
  return read_json_document<CapacityDocument>(
      text, source, [&](const JsonField& root) { return capacity_document_from_json(root, source); });
}

}  // namespace gputwin
