// Prints the goodput model's checks (issue 17 item 7): the fit check against Llama 3's 54-day snapshot
// (interruptions over 20 seeds and the causes' shares, from the rates derived from its Table 5 counts), the
// Young/Daly test vectors of ../shared/data/reliability.yaml, the ETTR Llama 3 reports, and the evaluation:
// MTTF by job size against Meta's RSC-1 study (data/reference/reliability-published.yaml), which no rate was
// fitted to, and ETTR against other studies' published figures (model at the data's default job times, the
// error in points, and the loss per interruption the figure allows). Not run by CI; the bounds are asserted
// by sim/goodput_test.cpp and sim/checkpoint_interval_test.cpp.
//
//   ninja -C build goodput_validation && build/bench/goodput_validation
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "gputwin/sim/checkpoint_interval.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/sim/goodput.hpp"

namespace {

using namespace gputwin;

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

GoodputRequest snapshot(const FailureRates& rates, const std::string& profile, int gpus, double days) {
  GoodputRequest request;
  request.gpus = gpus;
  request.shape = ClusterShape{.gpus_per_node = 8};
  request.processes = failure_processes(*rates.profile(profile), request.shape);
  request.checkpoint_write_hours = rates.job_defaults.checkpoint_write_hours;
  request.restart_hours = rates.job_defaults.restart_hours;
  request.work_hours = 1e9;
  request.wall_limit_hours = days * 24;
  request.spare_nodes = 64;
  request.seeds = 20;
  return request;
}

void fit_check(const FailureRates& rates) {
  std::printf("## Fit: Llama 3, 16,384 GPUs, 54 days (rates derived from these counts)\n\n");
  const GoodputResult r = simulate_goodput(snapshot(rates, "llama3-table5", 16384, 54)).value();
  std::printf(
      "unexpected interruptions: published 419, simulated %.1f +- %.1f over %d seeds (mean +- stdev); "
      "MTTF %.2f h\n\n",
      r.interruptions.mean, r.interruptions.stdev, r.seeds, r.mttf_hours);
  std::printf(
      "| cause | Table 5 count | share by count | simulated mean | simulated share "
      "|\n|---|---|---|---|---|\n");
  const FailureProfile& llama = *rates.profile("llama3-table5");
  for (std::size_t i = 0; i < llama.rows.size(); ++i) {
    std::printf("| %s | %.0f | %.1f %% | %.1f | %.1f %% |\n", llama.rows[i].id.c_str(), llama.rows[i].count,
                100.0 * llama.rows[i].count / 419.0, r.by_cause[i].count.mean,
                100.0 * r.by_cause[i].count.mean / r.interruptions.mean);
  }
}

void young_daly() {
  std::printf("\n## Young/Daly test vectors (Daly, FGCS 2006; ../shared/data/reliability.yaml)\n\n");
  const std::string path = std::string(GPUTWIN_SHARED_DIR) + "/data/reliability.yaml";
  if (!std::filesystem::exists(path)) {
    std::printf("skipped: ../shared is absent (%s)\n", path.c_str());
    return;
  }
  const YAML::Node vectors = YAML::LoadFile(path)["checkpoint_interval"]["test_vectors"];
  const double write = vectors["conditions"]["checkpoint_write_min"].as<double>() / 60;
  std::printf(
      "| MTBF h | published min | Daly min | Young min | gputwin Daly | gputwin Young "
      "|\n|---|---|---|---|---|---|\n");
  for (const auto& row : vectors["rows"]) {
    const double m = row["mtbf_h"].as<double>();
    std::printf("| %.0f | %.0f | %.1f | %.0f | %.1f | %.1f |\n", m, row["tau_opt_published_min"].as<double>(),
                row["daly_formula_min"].as<double>(), row["young_formula_min"].as<double>(),
                daly_interval_hours(write, m) * 60, young_interval_hours(write, m) * 60);
  }
}

void ettr_check(const FailureRates& rates) {
  std::printf("\n## ETTR of the 16,384-GPU, 54-day run (Llama 3 reports more than 90 %%; fit source)\n\n");
  std::printf(
      "Llama 3 gives no checkpoint write or restart time: ETTR by assumed times (Daly's interval, 64 "
      "spares)\n\n| write \\ restart |");
  const double restarts[] = {2, 5, 10, 20};
  const double writes[] = {0.5, 1, 2, 5};
  for (double restart : restarts) std::printf(" %.0f min |", restart);
  std::printf("\n|---|---|---|---|---|\n");
  for (double write : writes) {
    std::printf("| %.1f min |", write);
    for (double restart : restarts) {
      GoodputRequest request = snapshot(rates, "llama3-table5", 16384, 54);
      request.checkpoint_write_hours = write / 60;
      request.restart_hours = restart / 60;
      std::printf(" %.3f |", simulate_goodput(request).value().ettr.mean);
    }
    std::printf("\n");
  }
}

void mttf_evaluation(const FailureRates& rates) {
  std::printf(
      "\n## Evaluation: MTTF by job size against Meta RSC-1 (arXiv 2410.21680; no rate fitted to it)\n\n");
  const YAML::Node published = YAML::LoadFile(source_path("data/reference/reliability-published.yaml"));
  std::printf(
      "| GPUs | kind | published h | llama3-table5 h | error | meta-rsc1 profile h "
      "|\n|---|---|---|---|---|---|\n");
  for (const auto& row : published["mttf_by_job_size"]) {
    const int gpus = row["gpus"].as<int>();
    const double mttf = row["mttf_hours"].as<double>();
    GoodputRequest request = snapshot(rates, "llama3-table5", gpus, 1);
    request.seeds = 1;
    const double llama = simulate_goodput(request).value().mttf_hours;
    request.processes = failure_processes(*rates.profile("meta-rsc1"), request.shape);
    const double rsc = simulate_goodput(request).value().mttf_hours;
    std::printf("| %d | %s | %.2f | %.2f | %+.0f %% | %.2f |\n", gpus, row["kind"].as<std::string>().c_str(),
                mttf, llama, 100.0 * (llama - mttf) / mttf, rsc);
  }
}

double hours_of(const YAML::Node& row, const char* field) {
  return parse_duration_s(row[field].as<std::string>(), field) / 3600;
}

// The days a row's model is run over: the source's, else the window stated in the row (not a source figure).
double window_days(const YAML::Node& row) {
  return row["days"] ? row["days"].as<double>() : row["model_window_days"].as<double>();
}

// The model at the row's own failure rate (`job_mttf`, restart only, as `perf goodput --mtbf`) and times.
GoodputResult at_own_settings(const YAML::Node& row) {
  GoodputRequest request;
  request.gpus = row["gpus"].as<int>();
  request.shape = ClusterShape{.gpus_per_node = 8};
  const double mttf = hours_of(row, "job_mttf");
  request.processes.push_back({.cause = "job-failure",
                               .category = "All",
                               .scope = FailureScope::job_on_node,
                               .rate_per_unit_hour = 1.0 / (mttf * job_nodes(request.gpus, request.shape)),
                               .source = "job_mttf"});
  request.checkpoint_interval_hours = hours_of(row, "checkpoint_interval");
  request.checkpoint_write_hours = hours_of(row, "checkpoint_write");
  request.restart_hours = hours_of(row, "restart");
  request.work_hours = 1e9;
  request.wall_limit_hours = window_days(row) * 24;
  return simulate_goodput(request).value();
}

// Enough spares to cover the nodes in repair 99 % of the time (as perf size does), so that repair waits of a
// job far larger than the fit run's do not stand in for its failures.
GoodputRequest with_p99_spares(GoodputRequest request) {
  GoodputRequest probe = request;
  probe.seeds = 1;
  request.spare_nodes = simulate_goodput(probe).value().spare_nodes_p99;
  return request;
}

void ettr_evaluation(const FailureRates& rates) {
  std::printf(
      "\n## Evaluation: ETTR against other studies (data/reference/reliability-published.yaml, set "
      "evaluation)\n\n");
  const YAML::Node published = YAML::LoadFile(source_path("data/reference/reliability-published.yaml"));
  std::printf(
      "Bundled profiles at the row's stated restart time where it gives one, else the data's default job "
      "times (%.0f min write, %.0f min restart); Daly's interval; the spares that cover repairs 99 %% of the "
      "time. A row that gives its failure "
      "rate and all its times is also run at those (own settings) and held within 5 points.\n\n"
      "| row | GPUs | days | published | restart | model (llama3-table5) | error | model (meta-rsc1) | "
      "error | MTTF h (llama3 / rsc1) | shortest MTTF the figure allows (an interruption costing only its "
      "restart) | loss per "
      "interruption the figure allows (llama3 MTTF) | own settings | checked within 5 points |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      rates.job_defaults.checkpoint_write_hours * 60, rates.job_defaults.restart_hours * 60);
  for (const auto& row : published["ettr"]) {
    if (row["set"].as<std::string>() != "evaluation") continue;
    const int gpus = row["gpus"].as<int>();
    const double days = window_days(row);
    const double ettr = row["ettr"].as<double>();
    GoodputRequest llama_request = with_p99_spares(snapshot(rates, "llama3-table5", gpus, days));
    GoodputRequest rsc_request = with_p99_spares(snapshot(rates, "meta-rsc1", gpus, days));
    std::string restart = "default";
    std::string implied = "-";
    if (row["restart"]) {
      const double restart_hours = hours_of(row, "restart");
      llama_request.restart_hours = restart_hours;
      rsc_request.restart_hours = restart_hours;
      restart = row["restart"].as<std::string>();
      // Every interruption costs at least its restart, and failures strike during restarts too: a job that
      // loses nothing else keeps exp(-R / M) of its time, so M >= R / ln(1 / e) is needed.
      char text[64];
      std::snprintf(text, sizeof text, "%.1f min at least", 60 * restart_hours / std::log(1 / ettr));
      implied = text;
    }
    const GoodputResult llama = simulate_goodput(llama_request).value();
    const GoodputResult rsc = simulate_goodput(rsc_request).value();
    // With interruptions every MTTF hours, an ETTR of e leaves (1 - e) x MTTF for everything one costs.
    const double allowed_min = (1 - ettr) * llama.mttf_hours * 60;
    const bool checked =
        row["job_mttf"] && row["checkpoint_interval"] && row["checkpoint_write"] && row["restart"];
    std::string own = "-";
    if (checked) {
      const double model = at_own_settings(row).ettr.mean;
      char text[64];
      std::snprintf(text, sizeof text, "%.3f (%+.1f points)", model, 100 * (model - ettr));
      own = text;
    }
    std::printf(
        "| %s | %d | %.0f%s | %.3f | %s | %.3f | %+.1f points | %.3f | %+.1f points | %.2f / %.2f | %s | "
        "%.1f "
        "min | %s | %s |\n",
        row["id"].as<std::string>().c_str(), gpus, days, row["days"] ? "" : " (window)", ettr,
        restart.c_str(), llama.ettr.mean, 100 * (llama.ettr.mean - ettr), rsc.ettr.mean,
        100 * (rsc.ettr.mean - ettr), llama.mttf_hours, rsc.mttf_hours, implied.c_str(), allowed_min,
        own.c_str(),
        checked ? "yes (sim/goodput_test.cpp)"
                : ("no: " + row["not_checked_because"].as<std::string>()).c_str());
  }
}

}  // namespace

int main() {
  auto rates = load_failure_rates(source_path("data/reliability/failure-rates.yaml"));
  if (!rates.ok()) {
    std::fprintf(stderr, "%s", rates.error_text().c_str());
    return 1;
  }
  fit_check(rates.value());
  young_daly();
  ettr_check(rates.value());
  mttf_evaluation(rates.value());
  ettr_evaluation(rates.value());
  return 0;
}
