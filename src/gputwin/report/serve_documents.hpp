// The `perf serve` documents read back: gputwin.serve/1 and gputwin.serve-capacity/2 (and /1) as the report
// pages need them, and an array task's gputwin.serve-capacity-task/1 (exact, for the merge). The writers are
// report/serve_report.hpp's.
//
//   Result<ServeDocument> run = read_serve_json(text, "serve.json");
//   Result<CapacityDocument> search = read_capacity_json(text, "search.json");
//   Result<CapacityTask> task = read_capacity_task_json(text, "results/3.json");
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/report/serve_report.hpp"

namespace gputwin {

// {mean, p50, p90, p99} in the unit written.
[[nodiscard]] LatencyStats latency_from_json(const JsonField& field);

[[nodiscard]] Result<CapacityTask> read_capacity_task_json(std::string_view text, const std::string& source);

// What a gputwin.serve/1 document says, as the report page needs it.
struct ServeDocument {
  std::string source;  // the file it was read from
  std::string model;
  std::string system;
  std::string precision;
  std::string traffic;
  int tp = 1;        // 0 for a disaggregated deployment: its pools have their own
  int replicas = 1;  // instances of both pools when disaggregated
  int gpus = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  LatencyStats ttft_ms, tpot_ms, itl_ms, e2e_ms;
  double targets_percentile = 0.9;
  std::optional<double> ttft_target_ms, tpot_target_ms;  // empty when the run set none
  double share_meeting_targets = 0;
  bool meets_targets = false;
  struct Pool {
    int instances = 0;
    int tp = 0;
    int gpus = 0;
  };
  struct Pools {
    Pool prefill;
    Pool decode;
    double kv_bytes_total = 0;
    LatencyStats kv_transfer_ms;
  };
  std::optional<Pools> pools;  // a disaggregated deployment's
};
// "2 x TP 4", or "1 prefill x TP 4 + 3 decode x TP 4" for a disaggregated deployment.
[[nodiscard]] std::string deployment_text(const ServeDocument& run);
[[nodiscard]] ServeDocument serve_document_from_json(const JsonField& root, const std::string& source);
[[nodiscard]] Result<ServeDocument> read_serve_json(std::string_view text, const std::string& source);

// What a deployment buys, as a capacity document records it.
struct CapacityDocumentPurchase {
  std::string unit;  // "node", or "rack gb200-nvl72"
  int nodes = 0;
  int racks = 0;  // 0 = not counted
  int gpus = 0;
};

// What a gputwin.serve-capacity/2 (or /1) document says: the candidates as `perf serve --search` ranked them.
struct CapacityDocumentRow {
  std::string system;
  std::string accelerator;
  std::string layout;  // "TP 8", "DP 8 x EP 8", "TP 8 x PP 2"
  int tp = 1;
  bool disaggregated = false;  // prefill/decode pools: replicas counts both pools' instances
  int prefill_instances = 0;
  int decode_instances = 0;
  bool meets = false;
  int replicas = 0;
  int gpus = 0;
  double output_tokens_per_s_per_gpu = 0;
  double ttft_p90_ms = 0, tpot_p90_ms = 0;
  // Empty for a /1 document written before purchases were counted.
  std::optional<CapacityDocumentPurchase> bought;
  std::optional<double> cost_per_hour, cost_per_million_tokens;
  std::string why;
};
// What a document's $/h is on: the GPUs bought (/2, and /1 documents that record them) or the GPUs used
// (/1 documents written before purchases were counted).
enum class CapacityCostBasis { bought_gpus, used_gpus };
struct CapacityDocument {
  std::string source;
  std::string schema;
  CapacityCostBasis cost_basis = CapacityCostBasis::bought_gpus;
  std::string model;
  std::string traffic;
  double targets_percentile = 0.9;
  int simulations = 0;
  std::vector<CapacityDocumentRow> rows;
};
[[nodiscard]] CapacityDocument capacity_document_from_json(const JsonField& root, const std::string& source);
[[nodiscard]] Result<CapacityDocument> read_capacity_json(std::string_view text, const std::string& source);

}  // namespace gputwin
