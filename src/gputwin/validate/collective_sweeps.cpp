// Whole nccl-tests sweeps against the collective model (see the header).
#include "gputwin/validate/collective_sweeps.hpp"

#include <algorithm>
#include <cmath>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/validate/nccl_tests_text.hpp"

namespace gputwin::validate {
namespace {

constexpr double kKibibyte = 1024;
constexpr double kMibibyte = 1024 * kKibibyte;
constexpr double kMidBandStart = 64 * kKibibyte;
constexpr double kLargeBandStart = 64 * kMibibyte;

// `rows: [[bytes, time_us], ...]`: each a size > 0 and a time > 0, sizes increasing.
std::vector<TranscribedRow> read_rows(const YamlField& field) {
  std::vector<TranscribedRow> rows;
  for (const YamlField& item : field.items()) {
    const std::vector<YamlField> pair = item.items();
    if (pair.size() != 2) item.fail("expected [bytes, out-of-place time in us]");
    const TranscribedRow row{pair[0].positive_number(), pair[1].positive_number()};
    if (!rows.empty() && row.bytes <= rows.back().bytes) pair[0].fail("expected sizes in increasing order");
    rows.push_back(row);
  }
  if (rows.empty()) field.fail("expected at least one [bytes, time_us] row");
  return rows;
}

CollectiveSweep read_sweep(const YamlField& field) {
  field.expect_keys({"name", "file", "rows", "source", "set", "note", "system", "accelerator", "gpus", "nodes",
                     "nics_per_node", "nic_gbps", "gpus_per_process", "op"});
  CollectiveSweep sweep;
  sweep.name = field.child("name").text();
  const auto file = field.optional_child("file");
  const auto rows = field.optional_child("rows");
  if (file.has_value() == rows.has_value()) field.fail("expected either `file` or `rows` (not both, not neither)");
  if (file) sweep.file = file->text();
  if (rows) sweep.rows = read_rows(*rows);
  sweep.source = field.child("source").text();
  const YamlField set = field.child("set");
  sweep.set = set.text();
  if (sweep.set != "fit" && sweep.set != "evaluation") set.fail("expected fit or evaluation");
  if (const auto note = field.optional_child("note")) sweep.note = note->text();
  PublishedCollectivePoint& point = sweep.system;
  point.name = sweep.name;
  point.source = sweep.source;
  point.set = sweep.set;
  read_collective_setting(field, point);
  point.multi_node = point.nodes > 1;
  return sweep;
}

}  // namespace

SizeBand size_band(double bytes) {
  if (bytes < kMidBandStart) return SizeBand::small;
  return bytes < kLargeBandStart ? SizeBand::mid : SizeBand::large;
}

const char* band_name(SizeBand band) {
  switch (band) {
    case SizeBand::small:
      return "small (< 64 KiB)";
    case SizeBand::mid:
      return "mid (64 KiB - 64 MiB)";
    case SizeBand::large:
      return "large (>= 64 MiB)";
  }
  return "";
}

Result<CollectiveSweeps> load_collective_sweeps(const std::string& path) {
  try {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"sweeps", "not_expressible", "cross_node_op_overhead"});
    CollectiveSweeps sweeps;
    for (const auto& item : root.child("sweeps").items()) sweeps.sweeps.push_back(read_sweep(item));
    for (const auto& item : root.child("not_expressible").items()) {
      item.expect_keys({"file", "why"});
      sweeps.not_expressible.push_back({item.child("file").text(), item.child("why").text()});
    }
    const YamlField overhead = root.child("cross_node_op_overhead");
    overhead.expect_keys({"fitted_us", "applied_us", "source"});
    sweeps.cross_node_op_overhead_fitted_us = overhead.child("fitted_us").number();
    sweeps.cross_node_op_overhead_applied_us = overhead.child("applied_us").number();
    if (sweeps.cross_node_op_overhead_applied_us < 0)
      overhead.child("applied_us").fail("expected a time >= 0 (microseconds)");
    return sweeps;
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

Result<ComparedSweep> compare_sweep(const Catalog& catalog, const CollectiveModel& model,
                                    const CollectiveSweep& sweep, const std::string& nccl_tests_dir,
                                    double cross_node_overhead_us) {
  std::vector<TranscribedRow> measured_rows = sweep.rows;
  if (measured_rows.empty()) {
    const auto run = NcclTestsText::read_file(nccl_tests_dir + "/" + sweep.file);
    if (!run.ok()) return run.errors();
    for (const CollectiveRow& measured : run.value().rows)
      if (measured.size.base() > 0 && measured.out_of_place.time_us)
        measured_rows.push_back({measured.size.base(), *measured.out_of_place.time_us});
  }
  ComparedSweep compared;
  compared.sweep = sweep;
  for (const TranscribedRow& measured : measured_rows) {
    const double bytes = measured.bytes;
    PublishedCollectivePoint point = sweep.system;
    point.bytes = bytes;
    point.time_us = measured.time_us;
    const auto row = validate_collective_point(catalog, model, point);
    if (!row.ok()) return row.errors();
    SweepRow out;
    out.bytes = bytes;
    out.published_time_us = *point.time_us;
    out.row = row.value();
    out.error_percent = error_with_cross_node_overhead(out.row, cross_node_overhead_us);
    compared.rows.push_back(std::move(out));
  }
  return compared;
}

namespace {

void add_to(BandSummary& summary, double error_percent) {
  ++summary.rows;
  summary.mean_abs_error_percent += std::abs(error_percent);
  summary.worst_abs_error_percent = std::max(summary.worst_abs_error_percent, std::abs(error_percent));
}

BandSummary finished(BandSummary summary) {
  if (summary.rows > 0) summary.mean_abs_error_percent /= summary.rows;
  return summary;
}

}  // namespace

BandSummary band_summary(const ComparedSweep& sweep, SizeBand band) {
  BandSummary summary;
  for (const SweepRow& row : sweep.rows)
    if (size_band(row.bytes) == band) add_to(summary, row.error_percent);
  return finished(summary);
}

BandSummary multi_node_band_summary(const std::vector<ComparedSweep>& sweeps, const std::string& set,
                                    SizeBand band, double cross_node_overhead_us) {
  BandSummary summary;
  for (const ComparedSweep& sweep : sweeps) {
    if (sweep.sweep.set != set || sweep.sweep.system.nodes <= 1) continue;
    for (const SweepRow& row : sweep.rows)
      if (size_band(row.bytes) == band)
        add_to(summary, error_with_cross_node_overhead(row.row, cross_node_overhead_us));
  }
  return finished(summary);
}

double error_with_cross_node_overhead(const ValidationRow& row, double extra_us) {
  if (row.point.nodes <= 1 || extra_us == 0 || row.predicted_time_us <= 0) return row.error_percent();
  ValidationRow shifted = row;
  shifted.predicted_time_us = row.predicted_time_us + extra_us;
  shifted.predicted_busbw_gbps = row.predicted_busbw_gbps * row.predicted_time_us / shifted.predicted_time_us;
  return shifted.error_percent();
}

namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// nccl-tests issues alltoall and sendrecv as a group of send/receive calls per peer, not one call per GPU.
bool one_call_per_gpu(CollectiveOp op) {
  return op != CollectiveOp::alltoall && op != CollectiveOp::sendrecv;
}

}  // namespace

double fit_host_launch_us_per_gpu(const std::vector<ComparedSweep>& fit_sweeps, int iters) {
  std::vector<double> per_gpu;
  for (const ComparedSweep& sweep : fit_sweeps) {
    const PublishedCollectivePoint& system = sweep.sweep.system;
    if (sweep.sweep.set != "fit" || system.gpus_per_process <= 1 || !one_call_per_gpu(system.op)) continue;
    for (const SweepRow& row : sweep.rows)
      if (size_band(row.bytes) == SizeBand::small)
        per_gpu.push_back((row.published_time_us - row.row.estimate.time_us / std::max(1, iters)) /
                          system.gpus_per_process);
  }
  return median(std::move(per_gpu));
}

double fit_cross_node_op_overhead_us(const std::vector<ComparedSweep>& fit_sweeps) {
  std::vector<double> residuals;
  for (const ComparedSweep& sweep : fit_sweeps) {
    if (sweep.sweep.set != "fit" || sweep.sweep.system.nodes <= 1) continue;
    for (const SweepRow& row : sweep.rows)
      if (size_band(row.bytes) == SizeBand::mid)
        residuals.push_back(row.published_time_us - row.row.predicted_time_us);
  }
  return median(std::move(residuals));
}

}  // namespace gputwin::validate
