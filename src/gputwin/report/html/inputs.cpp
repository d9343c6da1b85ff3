#include "gputwin/report/html/inputs.hpp"

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"

namespace gputwin {
namespace {

// The schemas the report draws; the names are the ones the commands print (see their --json help).
constexpr const char* kReplaySchema = "gputwin.replay/1";
constexpr const char* kPackingSchema = "gputwin.packing/1";
constexpr const char* kCollectiveSchema = "gputwin.collective/1";
constexpr const char* kTrainingSchema = "gputwin.perf-train/1";

Summary summary_stats(const JsonField& field) {
  return {field.child("mean").number(), field.child("median").number(), field.child("p95").number(),
          field.child("max").number()};
}

ReplaySeries read_replay(const JsonField& root, const std::string& source) {
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

// One seed's curve sits at the top level; several seeds' mean sits under mean_over_seeds.
PackingCurve read_packing(const JsonField& root, const std::string& source) {
  PackingCurve packing;
  packing.source = source;
  packing.policy = root.child("policy").string();
  packing.seeds = static_cast<int>(root.child("runs").array_size());
  const JsonField curve_owner = root.has("mean_over_seeds") ? root.child("mean_over_seeds") : root;
  const JsonField curve = curve_owner.child("allocation_percent_by_arrived_percent");
  for (std::size_t i = 0; i < curve.array_size(); ++i) {
    const JsonField point = curve.element(i);
    packing.allocation_percent.push_back(point.json().is_null() ? std::nullopt
                                                                : std::optional<double>(point.number()));
  }
  return packing;
}

CollectiveCurve read_collective(const JsonField& root, const std::string& source) {
  CollectiveCurve collective;
  collective.source = source;
  collective.op = root.child("op").string();
  collective.ranks = static_cast<int>(root.child("group").child("ranks").integer());
  const JsonField rows = root.child("rows");
  for (std::size_t i = 0; i < rows.array_size(); ++i) {
    collective.bytes.push_back(rows.element(i).child("bytes").number());
    collective.busbw_gbps.push_back(rows.element(i).child("busbw_gbps").number());
  }
  return collective;
}

TrainingBreakdown read_training(const JsonField& root, const std::string& source) {
  TrainingBreakdown training;
  training.source = source;
  training.model = root.child("model").string();
  training.gpus = static_cast<int>(root.child("config").child("gpus").integer());
  training.step_time_s = root.child("step_time_s").number();
  training.mfu = root.child("mfu").number();
  const JsonField terms = root.child("terms");
  for (std::size_t i = 0; i < terms.array_size(); ++i) {
    training.terms.push_back(
        {terms.element(i).child("name").string(), terms.element(i).child("seconds").number()});
  }
  return training;
}

void read_into(ReportInputs& inputs, const JsonField& root, const std::string& source, ReportInputKind kind) {
  if (!root.json().is_object() || !root.has("schema"))
    root.fail("expected a gputwin JSON result with a schema field");
  const std::string schema = root.child("schema").string();
  if (kind == ReportInputKind::simulation && schema == kReplaySchema) {
    inputs.replays.push_back(read_replay(root, source));
  } else if (kind == ReportInputKind::simulation && schema == kPackingSchema) {
    inputs.packings.push_back(read_packing(root, source));
  } else if (kind == ReportInputKind::perf && schema == kCollectiveSchema) {
    inputs.collectives.push_back(read_collective(root, source));
  } else if (kind == ReportInputKind::perf && schema == kTrainingSchema) {
    inputs.trainings.push_back(read_training(root, source));
  } else {
    const std::string expected = kind == ReportInputKind::simulation
                                     ? std::string("expected ") + kReplaySchema + " or " + kPackingSchema +
                                           " (simulate replay|packing --json)"
                                     : std::string("expected ") + kCollectiveSchema + " or " +
                                           kTrainingSchema + " (perf collective|train --json)";
    root.child("schema").fail(expected + ", found '" + schema + "'");
  }
}

void append(ReportInputs& into, ReportInputs&& from) {
  for (auto& item : from.replays) into.replays.push_back(std::move(item));
  for (auto& item : from.packings) into.packings.push_back(std::move(item));
  for (auto& item : from.collectives) into.collectives.push_back(std::move(item));
  for (auto& item : from.trainings) into.trainings.push_back(std::move(item));
}

}  // namespace

Result<ReportInputs> parse_report_input(std::string_view text, const std::string& source,
                                        ReportInputKind kind) {
  return guarded_parse<ReportInputs>(source, [&] {
    const nlohmann::json document = parse_json(text, source);
    ReportInputs inputs;
    read_into(inputs, JsonField::root(document, source, text), source, kind);
    return inputs;
  });
}

Result<ReportInputs> load_report_inputs(const std::vector<std::string>& simulation_paths,
                                        const std::vector<std::string>& perf_paths) {
  ReportInputs inputs;
  InputErrors errors;
  const auto load = [&](const std::string& path, ReportInputKind kind) {
    auto loaded = guarded_parse<ReportInputs>(path, [&] {
      const std::string text = read_input_file(path);
      auto parsed = parse_report_input(text, path, kind);
      if (!parsed.ok()) throw InputFailure(parsed.errors().front());
      return std::move(parsed).value();
    });
    if (loaded.ok()) {
      append(inputs, std::move(loaded).value());
    } else {
      errors.insert(errors.end(), loaded.errors().begin(), loaded.errors().end());
    }
  };
  for (const auto& path : simulation_paths) load(path, ReportInputKind::simulation);
  for (const auto& path : perf_paths) load(path, ReportInputKind::perf);
  if (!errors.empty()) return errors;
  return inputs;
}

}  // namespace gputwin
