// Benchmarks the capacity search of `perf serve --search`. Target (issue 16, item 6): ONE search over at
// least 200 deployments in under 60 s on local threads. A deployment is one simulated (system, layout, batch
// limits, replica count) on the whole request stream: the Azure LLM inference conversation trace (19,366
// requests over an hour, ../shared/traces/azure-llm-inference-2023/) when present, else one hour of Poisson
// arrivals at its mean rate (5.5 req/s) with its mean lengths. The search is `perf serve --search --systems
// all` for one model: every catalog system with GPUs, every layout (data-parallel attention with expert
// parallelism too for a MoE model), both batch limits, and each layout that fits a scale-up domain again as
// prefill/decode disaggregation (`--disaggregate auto`; the pools' TPs paired too); by default Qwen3-30B-A3B
// (MoE). `aggregated` as the third argument leaves disaggregation out (the search as it ran until 2026-11-28:
// 172 deployments, fewer than the target's 200).
// Prints the deployments, the wall and CPU seconds and their ratio to the target's 60 s (scaled to 200
// deployments when a run has more); the machine's load average is printed beside it, since the machine may
// be shared. Exits 1 when the search holds fewer than 200 deployments or misses the time.
//
//   build/bench/serve_search_benchmark [THREADS [MODEL [aggregated]]]   # threads: the hardware's concurrency
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/serve/capacity_search.hpp"
#include "gputwin/serve/requests.hpp"
#include "gputwin/serve/serve_scenario.hpp"

namespace {

std::string data(const std::string& file) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/data/" + file;
}

const std::string kTrace = std::string(GPUTWIN_SOURCE_DIR) +
                           "/../shared/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv";

// CPU seconds (user + system) of this process so far, every thread.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The 1-minute load average, or -1 where /proc/loadavg is absent.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gputwin;
  const int threads =
      argc > 1 ? std::stoi(argv[1]) : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const auto catalog = Catalog::load({data("catalog")}).value();
  const auto presets = load_model_presets(data("perf/models.yaml")).value();
  std::vector<ServeRequest> requests;
  std::string traffic;
  if (std::filesystem::exists(kTrace)) {
    requests = read_request_trace(kTrace).value();
    traffic = "the Azure conversation trace";
  } else {
    requests = generate_arrivals(
        {.rate_per_s = 5.5, .duration_s = 3600, .input_tokens = 1155, .output_tokens = 211}, 1);
    traffic = "Poisson 5.5 req/s for an hour (the Azure trace is absent)";
  }
  LatencyTargets targets;
  targets.ttft_s = 0.5;
  targets.tpot_s = 0.05;
  const std::string model_name = argc > 2 ? argv[2] : "qwen3-30b-a3b";
  const std::vector<std::string> systems = searched_systems(catalog, {"all"}).value();
  CapacityInputs inputs{catalog,
                        load_collective_model(data("perf/nccl-cost-model.yaml")).value(),
                        load_inference_constants(data("perf/inference.yaml")).value(),
                        load_serving_engine_defaults(data("perf/serving-engine.yaml")).value(),
                        *find_model(presets, model_name),
                        "fp8",
                        1.0,
                        128,
                        128,
                        {},
                        {},
                        4};
  inputs.disaggregation = !(argc > 3 && std::string(argv[3]) == "aggregated");
  const auto candidates = candidates_on(inputs, systems).value();
  const double load_before = load_average();
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();
  const CapacitySearch search = search_capacity(inputs, candidates, requests, targets, 4096, threads);
  const int deployments = search.simulations;
  const CapacityRow& best = search.rows.front();
  fmt::print("{} over {} systems{}: {} candidates, answer {} {} x {} replicas ({} GPUs)\n", model_name,
             systems.size(), inputs.disaggregation ? ", disaggregation tried" : "", candidates.size(),
             best.candidate.system, row_layout_text(best), best.replicas, best.gpus);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_start;
  // The target's time for this many deployments: 60 s per 200 (a larger search may take proportionally
  // longer).
  const double allowed = 60.0 * std::max(1.0, deployments / 200.0);
  const bool met = deployments >= 200 && total < allowed;
  fmt::print(
      "capacity search on {} ({} requests), {} threads: {} deployments of {} candidates in {:.1f} s, "
      "{:.2f} s per deployment, {:.1f} s of CPU ({:.3f} s per deployment); ratio to the target (200 "
      "deployments in 60 s): {:.2f} ({}); load average {:.1f} before, {:.1f} after\n",
      traffic, requests.size(), threads, deployments, candidates.size(), total,
      total / std::max(1, deployments), cpu, cpu / std::max(1, deployments), total / allowed,
      met                 ? "met"
      : deployments < 200 ? "MISSED: fewer than 200 deployments"
                          : "MISSED",
      load_before, load_average());
  return met ? 0 : 1;
}
