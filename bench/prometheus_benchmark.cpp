// `validate --prometheus` at fleet scale through the fake transport: 1,000 nodes x 8 GPUs over 24 h at 5 min
// steps (289 points per series), read from the server's JSON answers into facts, then checked and searched
// for outliers. Prints the answer sizes and the time of each part; the issue's target is under 10 s in all.
// The answers are generated here (dcgm-exporter's labels, the metrics of its default counters file), so the
// time measured is gputwin's: JSON parsing, grouping, facts, checks; no network (the prometheus.* integration
// tests measure against a real server).
//
//   build/bench/prometheus_benchmark [nodes] [gpus-per-node] [connections]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/prometheus/fake_transport.hpp"
#include "gputwin/prometheus/query_api.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/checks_data.hpp"
#include "gputwin/validate/dcgm_exporter_facts.hpp"
#include "gputwin/validate/outliers.hpp"
#include "gputwin/validate/prometheus_fleet.hpp"

namespace {

using namespace gputwin;
using Clock = std::chrono::steady_clock;

constexpr double kEnd = 1795694400;  // 2026-11-26T12:00:00Z
constexpr double kRange = 86400;
constexpr double kStep = 300;

// A GPU's labels as dcgm-exporter writes them, and those Prometheus adds.
std::string labels(int node, int gpu, const std::string& name) {
  return fmt::format(
      R"({{{}"gpu":"{}","UUID":"GPU-{:04}-{}","pci_bus_id":"00000000:{:02X}:00.0","device":"nvidia{}",)"
      R"("modelName":"NVIDIA H100 80GB HBM3","Hostname":"node{:04}","DCGM_FI_DRIVER_VERSION":"550.54.15",)"
      R"("instance":"node{:04}:9400","job":"dcgm-exporter"}})",
      name.empty() ? "" : "\"__name__\":\"" + name + "\",", gpu, node, gpu, 0x18 + gpu, gpu, node, node);
}

// A reading that varies a little by GPU, so that outliers have a spread to judge.
std::string value_of(const std::string& metric, int node, int gpu) {
  const int spread = (node * 8 + gpu) % 7;
  if (metric == "DCGM_FI_DEV_GPU_TEMP") return std::to_string(40 + spread);
  if (metric == "DCGM_FI_DEV_POWER_USAGE") return std::to_string(600 + spread * 3);
  if (metric == "DCGM_FI_DEV_SM_CLOCK") return std::to_string(1980 - spread * 5);
  if (metric == "DCGM_FI_DEV_GPU_UTIL") return std::to_string(spread * 14);
  if (metric == "DCGM_FI_DEV_XID_ERRORS" && node == 17 && gpu == 3) return "79";  // one planted fault
  if (metric == "DCGM_FI_DEV_FB_USED") return "1024";
  if (metric == "DCGM_FI_DEV_FB_FREE") return "80535";
  if (metric == "DCGM_FI_DEV_PCIE_LINK_GEN" || metric == "DCGM_FI_DEV_PCIE_MAX_LINK_GEN") return "5";
  if (metric == "DCGM_FI_DEV_PCIE_LINK_WIDTH" || metric == "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH") return "16";
  return "0";
}

// `above_zero`: only the series whose value is above 0, as a query ending in "> 0" answers.
std::string vector_answer(int nodes, int gpus, const std::vector<std::string>& metrics, bool named,
                          bool above_zero = false) {
  std::string body = R"({"status":"success","data":{"resultType":"vector","result":[)";
  bool first = true;
  for (const std::string& metric : metrics)
    for (int node = 0; node < nodes; ++node)
      for (int gpu = 0; gpu < gpus; ++gpu) {
        if (above_zero && value_of(metric, node, gpu) == "0") continue;
        body += fmt::format(R"({}{{"metric":{},"value":[{},"{}"]}})", first ? "" : ",",
                            labels(node, gpu, named ? metric : ""), kEnd, value_of(metric, node, gpu));
        first = false;
      }
  return body + "]}}";
}

std::string utilization_answer(int nodes, int gpus) {
  std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  for (int node = 0; node < nodes; ++node)
    for (int gpu = 0; gpu < gpus; ++gpu) {
      body += fmt::format(R"({}{{"metric":{},"values":[)", node + gpu == 0 ? "" : ",",
                          labels(node, gpu, "DCGM_FI_DEV_GPU_UTIL"));
      for (double t = kEnd - kRange; t <= kEnd; t += kStep)
        body += fmt::format(R"({}[{},"{}"])", t == kEnd - kRange ? "" : ",", t,
                            (static_cast<int>(t / kStep) + node + gpu) % 5 == 0 ? 0 : 60 + gpu);
      body += "]}";
    }
  return body + "]}}";
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time of this process: on a shared machine the wall time also counts the other processes' turns.
double cpu_seconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

}  // namespace

int main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int gpus = argc > 2 ? std::atoi(argv[2]) : 8;
  const int connections = argc > 3 ? std::atoi(argv[3]) : validate::kDefaultQueryConnections;
  // The metrics of dcgm-exporter's default counters file that the facts read, and utilisation.
  const std::vector<std::string> instant_metrics = {"DCGM_FI_DEV_SM_CLOCK",
                                                    "DCGM_FI_DEV_MEM_CLOCK",
                                                    "DCGM_FI_DEV_MEMORY_TEMP",
                                                    "DCGM_FI_DEV_GPU_TEMP",
                                                    "DCGM_FI_DEV_POWER_USAGE",
                                                    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                                                    "DCGM_FI_DEV_GPU_UTIL",
                                                    "DCGM_FI_DEV_XID_ERRORS",
                                                    "DCGM_FI_DEV_FB_FREE",
                                                    "DCGM_FI_DEV_FB_USED",
                                                    "DCGM_FI_DEV_FB_RESERVED",
                                                    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                                                    "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                                                    "DCGM_FI_DEV_ROW_REMAP_FAILURE"};
  const auto generating = Clock::now();
  prometheus::FakeTransport fake;
  // Every fault metric's worst value in the day above 0 (max_over_time(...) > 0): only the planted XID 79;
  // every other GPU's 0 is in the instant answer.
  const std::string instant = vector_answer(nodes, gpus, instant_metrics, true);
  fake.add("/api/v1/query", "", {200, "application/json", instant});
  const std::string planted_xid = vector_answer(nodes, gpus, {"DCGM_FI_DEV_XID_ERRORS"}, false, true);
  const std::string no_fault = vector_answer(0, gpus, {}, false);
  fake.add("/api/v1/query", "max_over_time(DCGM_FI_DEV_XID_ERRORS[86400s]) > 0",
           {200, "application/json", planted_xid});
  for (const std::string& metric : validate::dcgm_fault_metrics())
    fake.add("/api/v1/query", "max_over_time(" + metric + "[86400s]) > 0",
             {200, "application/json", no_fault});
  const std::string utilization = utilization_answer(nodes, gpus);
  fake.add("/api/v1/query_range", "DCGM_FI_DEV_GPU_UTIL", {200, "application/json", utilization});
  const std::size_t fault_bytes =
      planted_xid.size() + no_fault.size() * (validate::dcgm_fault_metrics().size() - 1);
  const std::size_t bytes = instant.size() + fault_bytes + utilization.size();
  fmt::print(
      "{} nodes x {} GPUs, 24 h at 5 min: answers of {:.1f} MB (instant {:.1f} MB, worst faults {:.3f} MB, "
      "utilisation range {:.1f} MB) generated in {:.2f} s\n",
      nodes, gpus, static_cast<double>(bytes) / 1e6, static_cast<double>(instant.size()) / 1e6,
      static_cast<double>(fault_bytes) / 1e6, static_cast<double>(utilization.size()) / 1e6,
      seconds_since(generating));

  const auto reading = Clock::now();
  const double reading_cpu = cpu_seconds();
  const auto read = validate::read_prometheus_fleet(fake, {kEnd, kRange, kStep}, connections);
  if (!read.ok()) {
    fmt::print(stderr, "{}", read.error_text());
    return 1;
  }
  const double read_s = seconds_since(reading);
  const double read_cpu_s = cpu_seconds() - reading_cpu;
  // Of which: the query-API reader alone on the same answers (nlohmann-json's SAX events into series).
  const double parsing_cpu = cpu_seconds();
  std::size_t parsed_series = 0;
  const auto requests = fake.requests();  // get() below records more
  for (const auto& request : requests) {
    const auto body = fake.get(request.path, request.params).value().body;
    parsed_series += prometheus::read_query_answer(body, "bench").value().series.size();
  }
  const double parse_cpu_s = cpu_seconds() - parsing_cpu;
  const auto checks = validate::load_checks_data(bundled_data_dir() + "/validate/checks.yaml").value();
  const auto checking = Clock::now();
  const double checking_cpu = cpu_seconds();
  const auto findings = validate::evaluate_checks(read.value().fleet, checks, {});
  const auto outliers = validate::find_outliers(read.value().fleet, checks.outliers);
  const double check_s = seconds_since(checking);
  const double check_cpu_s = cpu_seconds() - checking_cpu;
  const auto& info = read.value().read;
  fmt::print(
      "read (queries, JSON, facts, timeline) over {} connections: {:.2f} s wall, {:.2f} s CPU; {} queries, "
      "{} "
      "series, {} nodes, {} timeline points\n",
      connections, read_s, read_cpu_s, info.queries, info.series, read.value().fleet.nodes.size(),
      info.timeline.size());
  fmt::print("  of which the query-API JSON reader alone: {:.2f} s CPU ({} series)\n", parse_cpu_s,
             parsed_series);
  fmt::print("checks and outliers: {:.2f} s wall, {:.2f} s CPU; {} findings ({}), {} outliers\n", check_s,
             check_cpu_s, findings.size(),
             findings.empty() ? "-" : findings.front().rule + " on " + findings.front().node,
             outliers.size());
  fmt::print("total {:.2f} s wall, {:.2f} s CPU (target under 10 s)\n", read_s + check_s,
             read_cpu_s + check_cpu_s);
  return 0;
}
