#include "gputwin/report/serve_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gputwin {
namespace {

constexpr const char* kDisaggregationBehaviour =
    "vLLM V1 disaggregated prefilling (NixlConnector behind its proxy): round-robin per pool; a prefill "
    "instance computes the prompt (max_tokens 1); the decode instance admits the request by its KV cache, "
    "reads the prompt's KV from the prefill instance (NVLink in one scale-up domain, the NICs across; "
    "instances on consecutive GPUs, prefill pool first, none straddling a domain) and emits the first token: "
    "TTFT includes the transfer";

std::string stats_row(std::string_view name, const LatencyStats& s) {
  return fmt::format("  {:<6} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f}\n", name, s.mean * 1e3, s.p50 * 1e3,
                     s.p90 * 1e3, s.p99 * 1e3);
}

nlohmann::json scaled_latency_json(const LatencyStats& s, double scale) {
  return {{"mean", s.mean * scale}, {"p50", s.p50 * scale}, {"p90", s.p90 * scale}, {"p99", s.p99 * scale}};
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

std::string pool_limits(const PoolStats& pool) {
  return fmt::format("{} batched tokens, {} sequences, KV cache {:.0f} tokens",
                     pool.limits.max_batched_tokens, pool.limits.max_sequences,
                     pool.limits.kv_capacity_tokens);
}

std::string deployment_text(const ServeReport& report) {
  const ServingSetup& setup = report.serving;
  if (const auto& d = report.disaggregated) {
    const auto pool = [&](const PoolStats& p, std::string_view name) {
      std::string layout = fmt::format("TP {}", p.tp);
      if (p.ep > 1) layout += fmt::format(" x DP {} (EP {})", p.ep, p.ep * p.tp);
      if (p.pp > 1) layout += fmt::format(" x PP {}", p.pp);
      return fmt::format("{} {} instance(s) of {}", p.instances / d->units, name, layout);
    };
    const std::string pools = pool(d->prefill, "prefill") + " + " + pool(d->decode, "decode");
    std::string text =
        fmt::format("Serving {} ({}) on {}: disaggregated, {} = {} GPUs\n", report.setup.model.name,
                    report.setup.precision, report.hardware.system_id,
                    d->units > 1 ? fmt::format("{} units of ({}), a proxy each, request k to unit k mod {}",
                                               d->units, pools, d->units)
                                 : pools,
                    report.result.gpus);
    text += fmt::format("Traffic: {}\n", report.traffic);
    text += fmt::format("Engine: {}; per prefill instance {}; per decode instance {}; blocks of {}\n",
                        report.engine, pool_limits(d->prefill), pool_limits(d->decode),
                        d->decode.limits.block_tokens);
    text += fmt::format("Disaggregation: {}\n", kDisaggregationBehaviour);
    return text;
  }
  std::string text = fmt::format(
      "Serving {} ({}) on {}: {} replica(s) of TP {}{}{} = {} GPUs\n", report.setup.model.name,
      report.setup.precision, report.hardware.system_id, setup.replicas, report.setup.tp,
      report.setup.ep > 1 ? fmt::format(" x EP {}", report.setup.ep) : std::string(),
      report.setup.pp > 1 ? fmt::format(" x PP {}", report.setup.pp) : std::string(), report.result.gpus);
  text += fmt::format("Traffic: {}\n", report.traffic);
  text += fmt::format(
      "Engine: {}; per replica {} batched tokens, {} sequences, KV cache {:.0f} tokens in blocks of {}\n",
      report.engine, setup.limits.max_batched_tokens, setup.limits.max_sequences,
      setup.limits.kv_capacity_tokens, setup.limits.block_tokens);
  if (report.setup.pp > 1)
    text += fmt::format(
        "Pipeline: {} batches in flight per replica (one per stage), each engine with 1/{} of the KV cache\n",
        report.setup.pp, report.setup.pp);
  return text;
}

nlohmann::json pool_json(const PoolStats& pool) {
  return {{"instances", pool.instances},
          {"tp", pool.tp},
          {"ep", pool.ep},
          {"pp", pool.pp},
          {"gpus", pool.gpus},
          {"max_batched_tokens", pool.limits.max_batched_tokens},
          {"max_sequences", pool.limits.max_sequences},
          {"block_tokens", pool.limits.block_tokens},
          {"kv_capacity_tokens", pool.limits.kv_capacity_tokens},
          {"iterations", pool.iterations},
          {"preemptions", pool.preemptions},
          {"unservable", pool.unservable},
          {"peak_kv_used_fraction", pool.peak_kv_used_fraction},
          {"peak_waiting", pool.peak_waiting}};
}

}  // namespace

std::string serve_text(const ServeReport& report) {
  const ServeSummary& s = report.result.summary;
  const ServingSetup& setup = report.serving;
  std::string text = deployment_text(report);
  text += fmt::format("\nRequests: {} finished of {}", s.finished, s.requests);
  if (s.unservable > 0)
    text += fmt::format(", {} longer than a replica's whole KV cache (never run)", s.unservable);
  text += fmt::format("; {} preemptions\n", s.preemptions);
  text += fmt::format("Throughput: {:.2f} req/s, {:.0f} output tokens/s ({:.0f} per GPU) over {:.1f} s\n",
                      s.requests_per_s, s.output_tokens_per_s, s.output_tokens_per_s_per_gpu, s.span_s);
  text += fmt::format("\n  {:<6} {:>10} {:>10} {:>10} {:>10}   (ms)\n", "", "mean", "p50", "p90", "p99");
  text += stats_row("TTFT", s.ttft_s) + stats_row("TPOT", s.tpot_s) + stats_row("ITL", s.itl_s) +
          stats_row("E2E", s.e2e_s);
  if (const auto& d = report.disaggregated) {
    text += stats_row("KV-TX", d->kv_transfer_s);
    text += fmt::format(
        "\nKV cache moved: {} transfers, {:.1f} MB each on average, {:.2f} GB in all; {} on NVLink, {} "
        "across "
        "the NICs\n",
        d->nvlink_transfers + d->network_transfers, d->kv_bytes_mean / 1e6, d->kv_bytes_total / 1e9,
        d->nvlink_transfers, d->network_transfers);
    text += fmt::format(
        "Peak KV-cache use: prefill {:.0f} %, decode {:.0f} %; peak queue: prefill {}, decode {} requests\n",
        d->prefill.peak_kv_used_fraction * 100, d->decode.peak_kv_used_fraction * 100,
        d->prefill.peak_waiting, d->decode.peak_waiting);
  } else {
    text += fmt::format("\nPeak KV-cache use {:.0f} %, peak queue {} requests\n",
                        s.peak_kv_used_fraction * 100, s.peak_waiting);
  }
  const std::string targets = targets_text(setup.targets);
  if (!targets.empty()) {
    text +=
        fmt::format("Targets {} for {:.0f} % of requests: {:.1f} % meet them, goodput {:.2f} req/s -> {}\n",
                    targets, setup.targets.percentile * 100, s.share_meeting_targets * 100,
                    s.goodput_requests_per_s, s.meets_targets ? "MET" : "NOT MET");
  }
  if (report.power) text += power_text(*report.power);
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
  nlohmann::json document = {{"schema", kServeSchema},
                             {"model", report.setup.model.name},
                             {"system", report.hardware.system_id},
                             {"precision", report.setup.precision},
                             {"tp", report.setup.tp},
                             {"ep", report.setup.ep},
                             {"pp", report.setup.pp},
                             {"replicas", setup.replicas},
                             {"gpus", report.result.gpus},
                             {"traffic", report.traffic},
                             {"engine",
                              {{"name", report.engine},
                               {"efficiency", setup.engine_efficiency},
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
  if (const auto& d = report.disaggregated) {
    document["replicas"] = d->prefill.instances + d->decode.instances;
    document["tp"] = nullptr;  // per pool
    document["engine"] = {{"name", report.engine}, {"efficiency", setup.engine_efficiency}};
    document["pools"] = {{"behaviour", kDisaggregationBehaviour},
                         {"units", d->units},
                         {"prefill", pool_json(d->prefill)},
                         {"decode", pool_json(d->decode)},
                         {"kv_transfer",
                          {{"transfers", d->nvlink_transfers + d->network_transfers},
                           {"nvlink_transfers", d->nvlink_transfers},
                           {"network_transfers", d->network_transfers},
                           {"bytes_total", d->kv_bytes_total},
                           {"bytes_mean", d->kv_bytes_mean},
                           {"time_ms", latency_ms_json(d->kv_transfer_s)}}}};
  }
  if (report.power) document["power"] = power_json(*report.power);
  return document;
}

std::string serve_timeline_csv(const ServeReport& report) {
  const auto& d = report.disaggregated;
  std::string text = "time_s,running,waiting,kv_used_fraction,batch_tokens";
  if (d) {
    for (const char* pool : {"prefill", "decode"})
      text += fmt::format(",{0}_running,{0}_waiting,{0}_kv_used_fraction,{0}_batch_tokens", pool);
  }
  text += "\n";
  const auto columns = [](const EngineSample& sample) {
    return fmt::format("{},{},{:.4f},{}", sample.running, sample.waiting, sample.kv_used_fraction,
                       sample.batch_tokens);
  };
  for (std::size_t i = 0; i < report.result.timeline.size(); ++i) {
    const EngineSample& sample = report.result.timeline[i];
    text += fmt::format("{:.3f},{}", sample.time_s, columns(sample));
    if (d && i < d->pool_timeline.size())
      text += "," + columns(d->pool_timeline[i].prefill) + "," + columns(d->pool_timeline[i].decode);
    text += "\n";
  }
  return text;
}

namespace {

// The answer in a buyer's words: what is bought and the latencies its requests see.
std::string answer_text(const CapacityRow& row) {
  const Purchase& b = row.bought;
  const std::string racks = b.racks > 0 ? fmt::format(" in {} rack(s)", b.racks) : "";
  const std::string units =
      row.unit.starts_with("rack")
          ? fmt::format("{} x {} ({} trays, {} GPUs)", b.racks, row.unit, b.nodes, b.gpus)
          : fmt::format("{} node(s) of {}{} ({} GPUs)", b.nodes, row.candidate.system, racks, b.gpus);
  std::string text = fmt::format("\nAnswer: {} on {}, {} replica(s) on {} GPUs; buy {}", row_layout_text(row),
                                 row.candidate.system, row.replicas, row.gpus, units);
  if (row.cost_per_hour)
    text += fmt::format(", {:.2f}/h, {:.3f} per million output tokens", row.cost_per_hour->base(),
                        row.cost_per_million_tokens);
  text += fmt::format("\n  {:<6} {:>10} {:>10} {:>10} {:>10}   (ms)\n", "", "mean", "p50", "p90", "p99");
  for (const auto& [name, stats] : {std::pair<const char*, const LatencyStats&>{"TTFT", row.summary.ttft_s},
                                    {"TPOT", row.summary.tpot_s},
                                    {"E2E", row.summary.e2e_s}})
    text += fmt::format("  {:<6} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f}\n", name, stats.mean * 1e3,
                        stats.p50 * 1e3, stats.p90 * 1e3, stats.p99 * 1e3);
  return text;
}

}  // namespace

std::string capacity_text(const CapacitySearch& search, const std::string& model, const std::string& traffic,
                          const LatencyTargets& targets) {
  std::string text =
      fmt::format("Capacity for {}: {}\nTargets {} for {:.0f} % of requests ({} simulations)\n\n", model,
                  traffic, targets_text(targets), targets.percentile * 100, search.simulations);
  if (!search.cost_basis.empty()) text += "Prices: " + search.cost_basis + "\n\n";
  text += fmt::format(
      "  {:<20} {:<22} {:>10} {:>8} {:>6} {:>6} {:>5} {:>6} {:>10} {:>9} {:>9} {:>11} {:>9}  {}\n", "system",
      "layout", "limits", "replicas", "GPUs", "nodes", "racks", "bought", "tok/s/GPU", "TTFT p90", "TPOT p90",
      "$/h", "$/Mtok", "");
  for (const CapacityRow& row : search.rows) {
    if (row.refused()) {
      text +=
          fmt::format("  {:<20} {:<22}  refused: {}\n", row.candidate.system, row_layout_text(row), row.why);
      continue;
    }
    const std::string cost = row.cost_per_hour ? fmt::format("{:.2f}", row.cost_per_hour->base())
                             : row.meets       ? "no price"
                                               : "-";
    const std::string per_token =
        row.cost_per_hour ? fmt::format("{:.3f}", row.cost_per_million_tokens) : "-";
    const auto count = [&](int n) { return row.meets && n > 0 ? std::to_string(n) : std::string("-"); };
    text += fmt::format(
        "  {:<20} {:<22} {:>10} {:>8} {:>6} {:>6} {:>5} {:>6} {:>10.0f} {:>7.0f}ms {:>7.1f}ms {:>11} {:>9}  "
        "{}\n",
        row.candidate.system, row_layout_text(row),
        fmt::format("{}/{}", row.limits.max_batched_tokens, row.limits.max_sequences), count(row.replicas),
        count(row.gpus), count(row.bought.nodes), count(row.bought.racks), count(row.bought.gpus),
        row.summary.output_tokens_per_s_per_gpu, row.summary.ttft_s.p90 * 1e3, row.summary.tpot_s.p90 * 1e3,
        cost, per_token, row.meets && row.why.empty() ? "<- answer" : row.why);
  }
  text +=
      "\nnodes, racks, bought: the whole units a deployment buys (its instances placed on scale-up domains, "
      "none straddling one; a rack-scale system by the rack); $/h is on the GPUs bought; a node-bought "
      "system's racks as perf size counts them (data/perf/sizing-racks.yaml)\n";
  text += "\nlimits: max_num_batched_tokens/max_num_seqs per engine (per data-parallel rank with DP)\n";
  if (std::any_of(search.rows.begin(), search.rows.end(),
                  [](const CapacityRow& row) { return row.candidate.disaggregated; }))
    text +=
        "P/D: prefill/decode disaggregation, instances of the layout in a prefill and a decode pool; P:D is "
        "the split of the fewest instances meeting the targets (of the most tried when none does), "
        "replicas counts the instances of both pools\n";
  if (!search.rows.empty() && search.rows.front().meets) text += answer_text(search.rows.front());
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
          {"layout", row_layout_text(row)},
          {"disaggregated", row.candidate.disaggregated},
          {"decode_tp", row.candidate.decode_pool_tp()},
          {"prefill_instances", row.prefill_instances},
          {"decode_instances", row.decode_instances},
          {"accelerator", row.accelerator},
          {"meets", row.meets},
          {"replicas", row.replicas},
          {"gpus", row.gpus},
          {"unit", row.unit},
          {"nodes", row.bought.nodes},
          {"racks", row.bought.racks},
          {"bought_gpus", row.bought.gpus},
          {"max_batched_tokens", row.limits.max_batched_tokens},
          {"max_sequences", row.limits.max_sequences},
          {"requests", row.summary.requests},
          {"output_tokens_per_s", row.summary.output_tokens_per_s},
          {"output_tokens_per_s_per_gpu", row.summary.output_tokens_per_s_per_gpu},
          {"ttft_ms", latency_ms_json(row.summary.ttft_s)},
          {"tpot_ms", latency_ms_json(row.summary.tpot_s)},
          {"e2e_ms", latency_ms_json(row.summary.e2e_s)},
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
          {"cost_basis", search.cost_basis},
          {"fits_nowhere", search.fits_nowhere},
          {"rows", rows}};
}

std::string capacity_csv(const CapacitySearch& search) {
  std::string text =
      "rank,system,layout,tp,dp_attention,pp,disaggregated,prefill_instances,decode_instances,accelerator,"
      "meets,replicas,gpus,nodes,racks,bought_gpus,max_batched_tokens,max_sequences,output_tokens_per_s,"
      "output_tokens_per_s_per_gpu,"
      "ttft_p90_ms,tpot_p90_ms,e2e_p90_ms,cost_per_hour,cost_per_million_tokens,why\n";
  const auto quoted = [](const std::string& field) {
    std::string out = "\"";
    for (const char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  for (std::size_t k = 0; k < search.rows.size(); ++k) {
    const CapacityRow& row = search.rows[k];
    const ServeSummary& s = row.summary;
    text += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{}\n",
        k + 1, row.candidate.system, quoted(row_layout_text(row)), row.candidate.tp, row.candidate.ep,
        row.candidate.pp, row.candidate.disaggregated ? "true" : "false", row.prefill_instances,
        row.decode_instances, row.accelerator, row.meets ? "true" : "false", row.replicas, row.gpus,
        row.bought.nodes, row.bought.racks, row.bought.gpus, row.limits.max_batched_tokens,
        row.limits.max_sequences, s.output_tokens_per_s, s.output_tokens_per_s_per_gpu, s.ttft_s.p90 * 1e3,
        s.tpot_s.p90 * 1e3, s.e2e_s.p90 * 1e3,
        row.cost_per_hour ? fmt::format("{:.4f}", row.cost_per_hour->base()) : "",
        row.cost_per_hour ? fmt::format("{:.4f}", row.cost_per_million_tokens) : "", quoted(row.why));
  }
  return text;
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
          {"disaggregated", row.candidate.disaggregated},
          {"decode_tp", row.candidate.decode_pool_tp()},
          {"prefill_instances", row.prefill_instances},
          {"decode_instances", row.decode_instances},
          {"accelerator", row.accelerator},
          {"meets", row.meets},
          {"replicas", row.replicas},
          {"gpus", row.gpus},
          {"unit", row.unit},
          {"nodes", row.bought.nodes},
          {"racks", row.bought.racks},
          {"bought_gpus", row.bought.gpus},
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
            {"ttft_s", scaled_latency_json(s.ttft_s, 1)},
            {"tpot_s", scaled_latency_json(s.tpot_s, 1)},
            {"e2e_s", scaled_latency_json(s.e2e_s, 1)}}}};
}

nlohmann::json latency_ms_json(const LatencyStats& s) {
  return scaled_latency_json(s, 1e3);
}

}  // namespace gputwin
