#include "gputwin/report/replay_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gputwin/core/units.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

using Json = nlohmann::ordered_json;

double rounded(double value, int decimals = 3) {
  return round_decimals(value, decimals);
}

Json summary_json(const Summary& summary) {
  return {{"mean", rounded(summary.mean)},
          {"median", rounded(summary.median)},
          {"p95", rounded(summary.p95)},
          {"max", rounded(summary.max)}};
}

Json groups_json(const std::vector<GroupMetrics>& groups) {
  Json rows = Json::array();
  for (const auto& group : groups) {
    rows.push_back({{"name", group.name},
                    {"jobs", group.jobs},
                    {"mean_wait_s", rounded(group.mean_wait)},
                    {"mean_jct_s", rounded(group.mean_jct)},
                    {"mean_bounded_slowdown", rounded(group.mean_bounded_slowdown)},
                    {"gpu_hours", rounded(group.gpu_hours)}});
  }
  return rows;
}

std::string hours(double seconds) {
  return format_number(seconds / 3600.0, 2) + " h";
}

// "; 2 can never run on this cluster (2 larger than the whole cluster); 3 left out by the reader (...)".
std::string never_run_text(const ReplayResult& result) {
  std::string never;
  std::string skipped;
  for (const auto& [reason, count] : result.rejected) {
    if (reason.rfind(kSkippedByReader, 0) == 0) {
      skipped +=
          fmt::format("{}{} {}", skipped.empty() ? "" : ", ", count, reason.substr(kSkippedByReader.size()));
    } else {
      never += fmt::format("{}{} {}", never.empty() ? "" : ", ", count, reason);
    }
  }
  std::string text;
  if (!never.empty())
    text += fmt::format("; {} can never run on this cluster ({})", jobs_never_run(result), never);
  if (!skipped.empty()) text += "; left out by the trace reader: " + skipped;
  return text;
}

Json optional_share(const std::optional<double>& share) {
  return share ? Json(rounded(*share, 5)) : Json();
}

std::string percent(double share) {
  return format_number(100 * share, 2) + "%";
}

// Utilisation while jobs arrive, then the drain tail, then the whole run; a window of no length has no
// utilisation and says so.
std::string utilisation_text(const ReplayResult& result) {
  std::string text;
  if (result.window_utilisation) {
    text += fmt::format("  GPU utilisation {} over the arrival window (first to last arrival, {} to {})\n",
                        percent(*result.window_utilisation), hours(result.first_arrival),
                        hours(result.last_arrival));
  } else {
    text += fmt::format(
        "  GPU utilisation over the arrival window: none (every job arrives at {}, so there is no window)\n",
        hours(result.first_arrival));
  }
  const double drain = result.makespan - result.last_arrival;
  text += fmt::format("  drain tail after the last arrival: {}", hours(drain));
  if (result.drain_utilisation) {
    text += fmt::format(" at {} ({} GPU-hours)", percent(*result.drain_utilisation),
                        format_number(result.drain_gpu_hours, 1));
  }
  text += fmt::format("; {} from first arrival to the makespan ({})\n", percent(result.utilisation),
                      hours(result.makespan));
  text += fmt::format("  {} GPUs stranded on partly used nodes on average\n",
                      format_number(result.mean_stranded_gpus, 1));
  return text;
}

std::string jobs_count(int count) {
  return std::to_string(count) + (count == 1 ? " job" : " jobs");
}

// Which expected run times the policy planned with, when it plans with any (EASY).
std::string run_time_estimate_text(const ReplayResult& result) {
  if (!result.policy_plans_with_run_times) return "";
  const RunTimeEstimate& estimate = result.run_time_estimate;
  std::string text = fmt::format("  {} plans with expected run times: {} by the requested time, ",
                                 result.policy, jobs_count(result.jobs_with_requested_time));
  if (estimate.factor == 1.0) {
    return text +
           fmt::format("{} by the true run time ({})\n", jobs_count(result.jobs_estimated), estimate.source);
  }
  return text + fmt::format("{} without one at {} x the run time ({})\n", jobs_count(result.jobs_estimated),
                            format_number(estimate.factor, 3), estimate.source);
}

Json run_time_estimate_json(const ReplayResult& result) {
  return {{"used_by_policy", result.policy_plans_with_run_times},
          {"factor", result.run_time_estimate.factor},
          {"source", result.run_time_estimate.source},
          {"jobs_with_requested_time", result.jobs_with_requested_time},
          {"jobs_estimated", result.jobs_estimated}};
}

Json mig_json(const MigReplayMetrics& mig) {
  return {{"profile_set", mig.profile_set},
          {"layout", mig.layout.empty() ? Json("dynamic") : Json(mig.layout)},
          {"gpus", mig.gpus},
          {"compute_slices", mig.compute_slices},
          {"jobs", mig.jobs},
          {"completed", mig.completed},
          {"wait_s", summary_json(mig.wait)},
          {"slice_utilisation", rounded(mig.utilisation, 5)},
          {"slice_window_utilisation", optional_share(mig.window_utilisation)},
          {"mean_stranded_slices", rounded(mig.mean_stranded_slices)}};
}

std::string mig_text(const MigReplayMetrics& mig) {
  const std::string layout = mig.layout.empty() ? "slices made on demand" : "each split as " + mig.layout;
  return fmt::format(
      "  MIG: {} GPUs ({}, {}): {} jobs on slices, {} completed; compute-slice utilisation {} over the "
      "arrival window, {} to the makespan; {} slices stranded on average; mean queueing delay {}\n",
      mig.gpus, mig.profile_set, layout, mig.jobs, mig.completed,
      mig.window_utilisation ? percent(*mig.window_utilisation) : std::string("none"),
      percent(mig.utilisation), format_number(mig.mean_stranded_slices, 1), hours(mig.wait.mean));
}

Json optional_number(const std::optional<double>& value, int decimals = 3) {
  return value ? Json(rounded(*value, decimals)) : Json();
}

std::string size_name(const JobSizeFailures& bucket) {
  if (bucket.max_gpus == 0) return fmt::format("{}+ GPUs", bucket.min_gpus);
  if (bucket.min_gpus == bucket.max_gpus)
    return fmt::format("{} GPU{}", bucket.min_gpus, bucket.min_gpus == 1 ? "" : "s");
  return fmt::format("{}-{} GPUs", bucket.min_gpus, bucket.max_gpus);
}

Json failures_json(const FailureMetrics& failures) {
  Json causes = Json::array();
  for (const auto& row : failures.by_cause) {
    causes.push_back({{"cause", row.cause},
                      {"interruptions", row.interruptions},
                      {"lost_work_gpu_hours", rounded(row.lost_work_gpu_hours)},
                      {"restart_gpu_hours", rounded(row.restart_gpu_hours)},
                      {"repair_wait_gpu_hours", rounded(row.repair_wait_gpu_hours)}});
  }
  Json sizes = Json::array();
  for (const auto& bucket : failures.by_job_size) {
    sizes.push_back({{"min_gpus", bucket.min_gpus},
                     {"max_gpus", bucket.max_gpus == 0 ? Json() : Json(bucket.max_gpus)},
                     {"jobs", bucket.jobs},
                     {"interruptions", bucket.interruptions},
                     {"run_hours", rounded(bucket.run_hours)},
                     {"mttf_hours", optional_number(bucket.mttf_hours)},
                     {"ettr", optional_number(bucket.ettr, 5)}});
  }
  Json json = {{"failure_model", failures.failure_model},
               {"checkpoint_policy", failures.checkpoint_policy},
               {"spare_nodes", failures.spare_nodes},
               {"out_of_service_nodes", failures.out_of_service_nodes},
               {"interruptions", failures.interruptions},
               {"jobs_interrupted", failures.jobs_interrupted},
               {"useful_gpu_hours", rounded(failures.useful_gpu_hours)},
               {"allocated_gpu_hours", rounded(failures.allocated_gpu_hours)},
               {"goodput", rounded(failures.goodput, 5)},
               {"ettr", optional_number(failures.ettr, 5)},
               {"ettr_by_job", summary_json(failures.ettr_by_job)},
               {"lost_gpu_hours",
                {{"lost_work", rounded(failures.lost_work_gpu_hours)},
                 {"restart", rounded(failures.restart_gpu_hours)},
                 {"repair_wait", rounded(failures.repair_wait_gpu_hours)},
                 {"checkpoint_writes", rounded(failures.checkpoint_gpu_hours)}}},
               {"by_cause", causes},
               {"availability", rounded(failures.availability, 5)},
               {"in_service_gpu_hours", rounded(failures.in_service_gpu_hours)},
               {"schedulable_gpu_hours", rounded(failures.schedulable_gpu_hours)},
               {"by_job_size", sizes}};
  if (!failures.checkpoint_write_note.empty()) json["checkpoint_write"] = failures.checkpoint_write_note;
  if (failures.mig_spare_nodes > 0) json["mig_spare_nodes"] = failures.mig_spare_nodes;
  return json;
}

std::string failures_text(const FailureMetrics& failures) {
  std::string text = fmt::format(
      "\nFailures ({}; checkpoints {}; {} spare node{}{})\n", failures.failure_model,
      failures.checkpoint_policy, failures.spare_nodes, failures.spare_nodes == 1 ? "" : "s",
      (failures.mig_spare_nodes > 0 ? fmt::format(" and {} MIG spare node{}", failures.mig_spare_nodes,
                                                  failures.mig_spare_nodes == 1 ? "" : "s")
                                    : std::string()) +
          (failures.out_of_service_nodes > 0
               ? fmt::format("; {} nodes out of service", failures.out_of_service_nodes)
               : std::string()));
  if (!failures.checkpoint_write_note.empty())
    text += fmt::format("  checkpoint write: {}\n", failures.checkpoint_write_note);
  text += fmt::format("  {} interruptions of {}; goodput {} ({} useful of {} GPU-hours held)\n",
                      failures.interruptions, jobs_count(failures.jobs_interrupted),
                      percent(failures.goodput), format_number(failures.useful_gpu_hours, 1),
                      format_number(failures.allocated_gpu_hours, 1));
  text += fmt::format("  ETTR {} over the finished jobs (per job: mean {}, median {})\n",
                      failures.ettr ? percent(*failures.ettr) : std::string("none"),
                      percent(failures.ettr_by_job.mean), percent(failures.ettr_by_job.median));
  text +=
      fmt::format("  availability {} (GPU-hours in service / GPU-hours of the nodes not held as spares)\n",
                  percent(failures.availability));
  text += fmt::format(
      "  lost GPU-hours: {} lost work, {} restarting, {} waiting for GPUs after an interruption, {} writing "
      "checkpoints\n",
      format_number(failures.lost_work_gpu_hours, 1), format_number(failures.restart_gpu_hours, 1),
      format_number(failures.repair_wait_gpu_hours, 1), format_number(failures.checkpoint_gpu_hours, 1));
  if (!failures.by_cause.empty()) {
    TextTable causes({"cause", "interruptions", "lost work", "restart", "waiting"},
                     {Align::left, Align::right, Align::right, Align::right, Align::right});
    for (const auto& row : failures.by_cause) {
      causes.add_row({row.cause, std::to_string(row.interruptions), format_number(row.lost_work_gpu_hours, 1),
                      format_number(row.restart_gpu_hours, 1), format_number(row.repair_wait_gpu_hours, 1)});
    }
    text += "By cause (GPU-hours)\n" + causes.render();
  }
  TextTable sizes({"job size", "jobs", "interruptions", "MTTF", "ETTR"},
                  {Align::left, Align::right, Align::right, Align::right, Align::right});
  for (const auto& bucket : failures.by_job_size) {
    sizes.add_row({size_name(bucket), std::to_string(bucket.jobs), std::to_string(bucket.interruptions),
                   bucket.mttf_hours ? format_number(*bucket.mttf_hours, 1) + " h" : std::string("-"),
                   bucket.ettr ? percent(*bucket.ettr) : std::string("-")});
  }
  text += "By job size\n" + sizes.render();
  return text;
}

Json power_policies_json(const std::vector<PowerPolicyRun>& rows) {
  Json json = Json::array();
  for (const auto& row : rows) {
    if (!row.refused.empty()) {
      json.push_back({{"policy", row.policy}, {"refused", row.refused}});
      continue;
    }
    json.push_back({{"policy", row.policy},
                    {"completed", row.completed},
                    {"completed_work_gpu_hours", rounded(row.completed_work_gpu_hours)},
                    {"work_by_last_arrival_gpu_hours", rounded(row.work_by_last_arrival_gpu_hours)},
                    {"mean_wait_s", rounded(row.mean_wait_s)},
                    {"makespan_s", rounded(row.makespan_s)},
                    {"it_kwh", rounded(row.it_kwh)},
                    {"facility_kwh", rounded(row.facility_kwh)},
                    {"peak_it_kw", rounded(row.peak_it_kw)},
                    {"lowest_cap_w", rounded(row.lowest_cap_w)},
                    {"low_priority_gpu_hours", rounded(row.low_priority_gpu_hours)},
                    {"low_priority_mean_throughput", rounded(row.low_priority_mean_throughput, 5)},
                    {"other_mean_throughput", rounded(row.other_mean_throughput, 5)}});
  }
  return json;
}

Json energy_json(const ReplayEnergyMetrics& energy) {
  Json per_job = Json::array();
  for (const auto& job : energy.per_job) {
    per_job.push_back({{"id", job.id},
                       {"it_kwh", rounded(job.it_kwh, 4)},
                       {"facility_kwh", rounded(job.facility_kwh, 4)},
                       {"gpu_hours", rounded(job.gpu_hours, 4)}});
  }
  Json json = {
      {"system", energy.system},
      {"accelerator", energy.accelerator},
      {"source", energy.source},
      {"pue", rounded(energy.pue, 4)},
      {"busy_gpu_w", rounded(energy.busy_gpu_w, 1)},
      {"idle_gpu_w", rounded(energy.idle_gpu_w, 1)},
      {"non_gpu_node_w", rounded(energy.non_gpu_node_w, 1)},
      {"it_kwh", rounded(energy.it_kwh)},
      {"facility_kwh", rounded(energy.facility_kwh)},
      {"jobs_it_kwh", rounded(energy.jobs_it_kwh)},
      {"idle",
       {{"it_kwh", rounded(energy.idle_it_kwh)}, {"facility_kwh", rounded(energy.idle_facility_kwh)}}},
      {"mean_it_kw", rounded(energy.mean_it_kw)},
      {"peak_it_kw", rounded(energy.peak_it_kw)},
      {"completed_work_gpu_hours", rounded(energy.completed_work_gpu_hours)},
      {"work_by_last_arrival_gpu_hours", rounded(energy.work_by_last_arrival_gpu_hours)}};
  if (energy.budget) {
    const PowerBudgetMetrics& budget = *energy.budget;
    json["budget"] = {{"policy", budget.policy},
                      {"it_kw", rounded(budget.budget_kw)},
                      {"peak_share", rounded(energy.peak_it_kw / budget.budget_kw, 5)},
                      {"lowest_cap_w", rounded(budget.lowest_cap_w)},
                      {"capped_gpu_hours", rounded(budget.capped_gpu_hours)},
                      {"mean_throughput", rounded(budget.mean_throughput, 5)},
                      {"jobs_refused", budget.jobs_refused}};
    if (budget.low_priority_gpu_hours > 0) {
      json["budget"]["low_priority_gpu_hours"] = rounded(budget.low_priority_gpu_hours);
      json["budget"]["low_priority_mean_throughput"] = rounded(budget.low_priority_mean_throughput, 5);
      json["budget"]["other_mean_throughput"] = rounded(budget.other_mean_throughput, 5);
    }
  }
  if (!energy.compared.empty()) {
    json["power_policies"] = {{"budget_it_kw", rounded(energy.budget_kw)},
                              {"runs", power_policies_json(energy.compared)}};
  }
  json["per_job"] = per_job;
  return json;
}

std::string kw(double kilowatts) {
  return kilowatts >= 1000 ? format_number(kilowatts / 1000, 3) + " MW" : format_number(kilowatts, 1) + " kW";
}

std::string kwh(double kilowatt_hours) {
  return kilowatt_hours >= 1000 ? format_number(kilowatt_hours / 1000, 3) + " MWh"
                                : format_number(kilowatt_hours, 1) + " kWh";
}

std::string power_policies_text(const ReplayEnergyMetrics& energy) {
  TextTable table({"policy", "completed", "work GPU-h", "by last arrival", "mean wait", "makespan", "IT",
                   "facility", "peak IT", "of budget", "lowest cap", "throughput low / other"},
                  {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
                   Align::right, Align::right, Align::right, Align::right, Align::right, Align::right});
  std::string refused;
  for (const auto& row : energy.compared) {
    if (!row.refused.empty()) {
      table.add_row({row.policy, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"});
      refused += fmt::format("  {}: {}\n", row.policy, row.refused);
      continue;
    }
    table.add_row({row.policy, std::to_string(row.completed), format_number(row.completed_work_gpu_hours, 1),
                   format_number(row.work_by_last_arrival_gpu_hours, 1), hours(row.mean_wait_s),
                   hours(row.makespan_s), kwh(row.it_kwh), kwh(row.facility_kwh), kw(row.peak_it_kw),
                   percent(row.peak_it_kw / energy.budget_kw), format_number(row.lowest_cap_w, 0) + " W",
                   (row.low_priority_gpu_hours > 0 ? percent(row.low_priority_mean_throughput) : "-") +
                       " / " + percent(row.other_mean_throughput)});
  }
  return fmt::format("\nPower policies at an IT budget of {} (the same trace replayed under each)\n",
                     kw(energy.budget_kw)) +
         table.render() + refused;
}

std::string energy_text(const ReplayEnergyMetrics& energy) {
  std::string text =
      fmt::format("\nEnergy ({} with {} GPUs; {})\n", energy.system, energy.accelerator, energy.source);
  text += fmt::format("  IT {}, facility {} at PUE {}: jobs {} + idle {}\n", kwh(energy.it_kwh),
                      kwh(energy.facility_kwh), format_number(energy.pue, 3), kwh(energy.jobs_it_kwh),
                      kwh(energy.idle_it_kwh));
  text += fmt::format(
      "  IT power: mean {}, peak {}; {} GPU-hours of work completed, {} by the last arrival ({} per MWh "
      "IT)\n",
      kw(energy.mean_it_kw), kw(energy.peak_it_kw), format_number(energy.completed_work_gpu_hours, 1),
      format_number(energy.work_by_last_arrival_gpu_hours, 1),
      energy.it_kwh > 0 ? format_number(energy.completed_work_gpu_hours / (energy.it_kwh / 1000), 1)
                        : std::string("-"));
  if (energy.budget) {
    const PowerBudgetMetrics& budget = *energy.budget;
    text += fmt::format(
        "  power budget {} IT under {}: peak {} of it; busy GPUs down to {} W, {} GPU-hours capped, "
        "throughput "
        "{} of the default limit's",
        kw(budget.budget_kw), budget.policy, percent(energy.peak_it_kw / budget.budget_kw),
        format_number(budget.lowest_cap_w, 0), format_number(budget.capped_gpu_hours, 1),
        percent(budget.mean_throughput));
    text += budget.jobs_refused > 0 ? fmt::format("; {} refused (more power than the budget allows)\n",
                                                  jobs_count(budget.jobs_refused))
                                    : "\n";
    if (budget.low_priority_gpu_hours > 0) {
      text +=
          fmt::format("  low-priority jobs: {} busy GPU-hours at {} throughput; the other jobs' GPUs at {}\n",
                      format_number(budget.low_priority_gpu_hours, 1),
                      percent(budget.low_priority_mean_throughput), percent(budget.other_mean_throughput));
    }
  }
  if (!energy.compared.empty()) text += power_policies_text(energy);
  return text;
}

}  // namespace

Json replay_json(const ReplayResult& result) {
  Json json;
  json["schema"] = kReplaySchema;
  json["policy"] = result.policy;
  json["jobs"] = result.jobs;
  json["completed"] = result.completed;
  json["rejected"] = result.rejected;
  json["never_run"] = jobs_never_run(result);
  json["wait_s"] = summary_json(result.wait);
  json["jct_s"] = summary_json(result.jct);
  json["bounded_slowdown"] = summary_json(result.bounded_slowdown);
  if (result.recorded_jobs > 0) {
    json["recorded"] = {{"jobs", result.recorded_jobs},
                        {"wait_s", summary_json(result.recorded_wait)},
                        {"bounded_slowdown", summary_json(result.recorded_bounded_slowdown)}};
  }
  json["arrival_window"] = {{"first_arrival_s", rounded(result.first_arrival)},
                            {"last_arrival_s", rounded(result.last_arrival)},
                            {"utilisation", optional_share(result.window_utilisation)}};
  json["drain_tail"] = {{"seconds", rounded(result.makespan - result.last_arrival)},
                        {"utilisation", optional_share(result.drain_utilisation)},
                        {"gpu_hours", rounded(result.drain_gpu_hours)}};
  json["utilisation"] = rounded(result.utilisation, 5);  // first arrival to makespan: window and drain tail
  json["makespan_s"] = rounded(result.makespan);
  json["run_time_estimate"] = run_time_estimate_json(result);
  json["mean_stranded_gpus"] = rounded(result.mean_stranded_gpus);
  if (result.mig) json["mig"] = mig_json(*result.mig);
  if (result.failures) json["failures"] = failures_json(*result.failures);
  if (result.energy) json["energy"] = energy_json(*result.energy);
  json["jain_fairness_by_group"] = rounded(result.jain_fairness, 5);
  json["by_group"] = groups_json(result.by_group);
  json["by_user_count"] = result.by_user.size();
  Json intervals = Json::array();
  for (std::size_t i = 0; i < result.intervals.size(); ++i) {
    const IntervalMetrics& row = result.intervals[i];
    Json interval = {{"start_s", row.start},
                     {"utilisation", rounded(row.utilisation, 5)},
                     {"queue_length", rounded(row.queue_length)},
                     {"running", rounded(row.running)},
                     {"stranded_gpus", rounded(row.stranded_gpus)}};
    if (result.mig) {
      interval["mig_utilisation"] = rounded(row.mig_utilisation, 5);
      interval["mig_stranded_slices"] = rounded(row.mig_stranded_slices);
    }
    interval["submitted"] = row.submitted;
    interval["started"] = row.started;
    interval["finished"] = row.finished;
    if (result.failures) {
      interval["down_gpus"] = rounded(row.down_gpus);
      interval["interrupted"] = row.interrupted;
    }
    if (result.energy && i < result.energy->intervals.size()) {
      const EnergyInterval& power = result.energy->intervals[i];
      interval["it_kw"] = rounded(power.mean_it_kw);
      interval["peak_it_kw"] = rounded(power.peak_it_kw);
      interval["it_kwh"] = rounded(power.it_kwh);
      interval["facility_kwh"] = rounded(power.facility_kwh);
      interval["facility_kw"] = rounded(power.mean_facility_kw);
      if (result.energy->budget) interval["mean_cap_w"] = rounded(power.mean_cap_w, 1);
    }
    intervals.push_back(std::move(interval));
  }
  json["intervals"] = intervals;
  return json;
}

std::string replay_text(const ReplayResult& result, const std::string& trace_name) {
  std::string text = fmt::format("Replay of {} under {}\n", trace_name, result.policy);
  text += fmt::format("  {} jobs replayed, {} completed", result.jobs, result.completed);
  text += never_run_text(result) + "\n";
  text += utilisation_text(result);
  if (result.mig) text += mig_text(*result.mig);
  text += run_time_estimate_text(result);
  TextTable table({"metric", "mean", "median", "p95", "max"},
                  {Align::left, Align::right, Align::right, Align::right, Align::right});
  auto add = [&](const std::string& name, const Summary& s, bool in_hours) {
    auto cell = [&](double v) { return in_hours ? hours(v) : format_number(v, 2); };
    table.add_row({name, cell(s.mean), cell(s.median), cell(s.p95), cell(s.max)});
  };
  add("queueing delay", result.wait, true);
  add("job completion time", result.jct, true);
  add("bounded slowdown", result.bounded_slowdown, false);
  if (result.recorded_jobs > 0) {
    add("recorded queueing delay", result.recorded_wait, true);
    add("recorded bounded slowdown", result.recorded_bounded_slowdown, false);
  }
  text += table.render();
  text += fmt::format("  fairness across groups (Jain's index of mean bounded slowdown): {}\n",
                      format_number(result.jain_fairness, 3));
  if (!result.by_group.empty() && result.by_group.size() <= 50) {
    TextTable groups({"group", "jobs", "mean wait", "mean JCT", "mean slowdown", "GPU-hours"},
                     {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right});
    for (const auto& group : result.by_group) {
      groups.add_row({group.name.empty() ? "(none)" : group.name, std::to_string(group.jobs),
                      hours(group.mean_wait), hours(group.mean_jct),
                      format_number(group.mean_bounded_slowdown, 2), format_number(group.gpu_hours, 1)});
    }
    text += "\nBy group\n" + groups.render();
  }
  if (result.failures) text += failures_text(*result.failures);
  if (result.energy) text += energy_text(*result.energy);
  return text;
}

std::string replay_intervals_csv(const ReplayResult& result) {
  std::string csv = "start_s,utilisation,queue_length,running,stranded_gpus,submitted,started,finished";
  csv += result.mig ? ",mig_utilisation,mig_stranded_slices" : "";
  csv += result.failures ? ",down_gpus,interrupted" : "";
  if (result.energy)
    csv += result.energy->budget ? ",it_kw,peak_it_kw,it_kwh,facility_kwh,facility_kw,mean_cap_w"
                                 : ",it_kw,peak_it_kw,it_kwh,facility_kwh,facility_kw";
  csv += "\n";
  for (std::size_t i = 0; i < result.intervals.size(); ++i) {
    const IntervalMetrics& row = result.intervals[i];
    csv +=
        fmt::format("{},{},{},{},{},{},{},{}", format_number(row.start, 3), format_number(row.utilisation, 5),
                    format_number(row.queue_length, 3), format_number(row.running, 3),
                    format_number(row.stranded_gpus, 3), row.submitted, row.started, row.finished);
    if (result.mig) {
      csv += fmt::format(",{},{}", format_number(row.mig_utilisation, 5),
                         format_number(row.mig_stranded_slices, 3));
    }
    if (result.failures) csv += fmt::format(",{},{}", format_number(row.down_gpus, 3), row.interrupted);
    if (result.energy) {
      const EnergyInterval power =
          i < result.energy->intervals.size() ? result.energy->intervals[i] : EnergyInterval{};
      csv += fmt::format(",{},{},{},{},{}", format_number(power.mean_it_kw, 3),
                         format_number(power.peak_it_kw, 3), format_number(power.it_kwh, 3),
                         format_number(power.facility_kwh, 3), format_number(power.mean_facility_kw, 3));
      if (result.energy->budget) csv += "," + format_number(power.mean_cap_w, 1);
    }
    csv += "\n";
  }
  return csv;
}

namespace {

Summary summary_stats(const JsonField& field) {
  return {field.child("mean").number(), field.child("median").number(), field.child("p95").number(),
          field.child("max").number()};
}

PowerPolicyRow power_policy_row(const JsonField& run) {
  PowerPolicyRow row;
  row.policy = run.child("policy").string();
  if (const auto refused = run.optional_child("refused")) {
    row.refused = refused->string();
    return row;
  }
  row.completed_work_gpu_hours = run.child("completed_work_gpu_hours").number();
  row.mean_wait_s = run.child("mean_wait_s").number();
  row.it_kwh = run.child("it_kwh").number();
  row.facility_kwh = run.child("facility_kwh").number();
  row.peak_it_kw = run.child("peak_it_kw").number();
  row.lowest_cap_w = run.child("lowest_cap_w").number();
  return row;
}

}  // namespace

ReplaySeries replay_series_from_json(const JsonField& root, const std::string& source) {
  ReplaySeries replay;
  replay.source = source;
  replay.policy = root.child("policy").string();
  replay.jobs = static_cast<int>(root.child("jobs").integer());
  replay.utilisation = root.child("utilisation").number();
  replay.jct_s = summary_stats(root.child("jct_s"));
  replay.wait_s = summary_stats(root.child("wait_s"));
  const JsonField intervals = root.child("intervals");
  for (std::size_t i = 0; i < intervals.array_size(); ++i) {
    const JsonField interval = intervals.element(i);
    replay.interval_start_s.push_back(interval.child("start_s").number());
    replay.interval_utilisation.push_back(interval.child("utilisation").number());
    replay.interval_queue_length.push_back(interval.child("queue_length").number());
    replay.interval_stranded_gpus.push_back(interval.child("stranded_gpus").number());
  }
  if (const auto energy = root.optional_child("energy")) {
    replay.has_energy = true;
    for (std::size_t i = 0; i < intervals.array_size(); ++i) {
      const JsonField interval = intervals.element(i);
      replay.interval_it_kw.push_back(interval.child("it_kw").number());
      // Documents written before facility_kw was added have none: the chart then draws IT power only.
      if (const auto facility = interval.optional_child("facility_kw"))
        replay.interval_facility_kw.push_back(facility->number());
    }
    if (replay.interval_facility_kw.size() != replay.interval_it_kw.size())
      replay.interval_facility_kw.clear();
    replay.it_kwh = energy->child("it_kwh").number();
    replay.facility_kwh = energy->child("facility_kwh").number();
    replay.pue = energy->child("pue").number();
    if (const auto budget = energy->optional_child("budget")) {
      replay.budget_it_kw = budget->child("it_kw").number();
      replay.budget_policy = budget->child("policy").string();
    }
    if (const auto compared = energy->optional_child("power_policies")) {
      const JsonField runs = compared->child("runs");
      for (std::size_t i = 0; i < runs.array_size(); ++i)
        replay.power_policies.push_back(power_policy_row(runs.element(i)));
    }
  }
  if (const auto failures = root.optional_child("failures")) {
    replay.has_failures = true;
    for (std::size_t i = 0; i < intervals.array_size(); ++i)
      replay.interval_down_gpus.push_back(intervals.element(i).child("down_gpus").number());
    const JsonField causes = failures->child("by_cause");
    for (std::size_t i = 0; i < causes.array_size(); ++i) {
      const JsonField cause = causes.element(i);
      replay.interruptions_by_cause.emplace_back(cause.child("cause").string(),
                                                 static_cast<int>(cause.child("interruptions").integer()));
    }
  }
  return replay;
}

}  // namespace gputwin
