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

Json mig_json(const MigReplayMetrics& mig) {
  return {{"profile_set", mig.profile_set},
          {"layout", mig.layout.empty() ? Json("dynamic") : Json(mig.layout)},
          {"gpus", mig.gpus},
          {"compute_slices", mig.compute_slices},
          {"jobs", mig.jobs},
          {"completed", mig.completed},
          {"wait_s", summary_json(mig.wait)},
          {"slice_utilisation", rounded(mig.utilisation, 5)},
          {"mean_stranded_slices", rounded(mig.mean_stranded_slices)}};
}

std::string mig_text(const MigReplayMetrics& mig) {
  const std::string layout = mig.layout.empty() ? "slices made on demand" : "each split as " + mig.layout;
  return fmt::format(
      "  MIG: {} GPUs ({}, {}): {} jobs on slices, {} completed; compute-slice utilisation {}%; {} slices "
      "stranded on average; mean queueing delay {}\n",
      mig.gpus, mig.profile_set, layout, mig.jobs, mig.completed, format_number(100 * mig.utilisation, 2),
      format_number(mig.mean_stranded_slices, 1), hours(mig.wait.mean));
}

}  // namespace

Json replay_json(const ReplayResult& result) {
  Json json;
  json["schema"] = kReplaySchema;
  json["policy"] = result.policy;
  json["jobs"] = result.jobs;
  json["completed"] = result.completed;
  json["rejected"] = result.rejected;
  json["wait_s"] = summary_json(result.wait);
  json["jct_s"] = summary_json(result.jct);
  json["bounded_slowdown"] = summary_json(result.bounded_slowdown);
  if (result.recorded_jobs > 0) {
    json["recorded"] = {{"jobs", result.recorded_jobs},
                        {"wait_s", summary_json(result.recorded_wait)},
                        {"bounded_slowdown", summary_json(result.recorded_bounded_slowdown)}};
  }
  json["utilisation"] = rounded(result.utilisation, 5);
  json["makespan_s"] = rounded(result.makespan);
  json["mean_stranded_gpus"] = rounded(result.mean_stranded_gpus);
  if (result.mig) json["mig"] = mig_json(*result.mig);
  json["jain_fairness_by_group"] = rounded(result.jain_fairness, 5);
  json["by_group"] = groups_json(result.by_group);
  json["by_user_count"] = result.by_user.size();
  Json intervals = Json::array();
  for (const auto& row : result.intervals) {
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
    intervals.push_back(std::move(interval));
  }
  json["intervals"] = intervals;
  return json;
}

std::string replay_text(const ReplayResult& result, const std::string& trace_name) {
  std::string text = fmt::format("Replay of {} under {}\n", trace_name, result.policy);
  text += fmt::format("  {} jobs replayed, {} completed", result.jobs, result.completed);
  for (const auto& [reason, count] : result.rejected)
    text += fmt::format("; {} not replayed ({})", count, reason);
  text += "\n";
  text += fmt::format(
      "  GPU utilisation {}% over a makespan of {}; {} GPUs stranded on partly used nodes on average\n",
      format_number(100 * result.utilisation, 2), hours(result.makespan),
      format_number(result.mean_stranded_gpus, 1));
  if (result.mig) text += mig_text(*result.mig);
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
  return text;
}

std::string replay_intervals_csv(const ReplayResult& result) {
  std::string csv = "start_s,utilisation,queue_length,running,stranded_gpus,submitted,started,finished";
  csv += result.mig ? ",mig_utilisation,mig_stranded_slices\n" : "\n";
  for (const auto& row : result.intervals) {
    csv +=
        fmt::format("{},{},{},{},{},{},{},{}", format_number(row.start, 3), format_number(row.utilisation, 5),
                    format_number(row.queue_length, 3), format_number(row.running, 3),
                    format_number(row.stranded_gpus, 3), row.submitted, row.started, row.finished);
    if (result.mig) {
      csv += fmt::format(",{},{}", format_number(row.mig_utilisation, 5),
                         format_number(row.mig_stranded_slices, 3));
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
  return replay;
}

}  // namespace gputwin
