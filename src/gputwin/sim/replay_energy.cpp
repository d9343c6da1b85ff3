#include "gputwin/sim/replay_energy.hpp"

#include <algorithm>
#include <cmath>

#include "gputwin/sim/facility_energy.hpp"

namespace gputwin {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kSecondsPerHour = 3600;

}  // namespace

ReplayEnergy::ReplayEnergy(const std::vector<JobSpec>& jobs, std::shared_ptr<const PowerPolicy> power,
                           double interval_s)
    : jobs_(jobs),
      power_(std::move(power)),
      interval_s_(interval_s),
      integral_at_start_(jobs.size(), 0.0),
      job_j_(jobs.size(), 0.0),
      job_gpu_s_(jobs.size(), 0.0),
      finished_at_(jobs.size(), -1.0) {
  lowest_cap_w_ = power_->profile().caps.back().limit_w;
}

ReplayEnergy::IntervalSums& ReplayEnergy::interval_at(double time) {
  const auto index = static_cast<std::size_t>(std::max(0.0, std::floor(time / interval_s_)));
  if (intervals_.size() <= index) intervals_.resize(index + 1);
  return intervals_[index];
}

void ReplayEnergy::add_busy(BusySums& sums, int gpus, const GpuCapPoint& cap, double seconds) {
  sums.draw_integral += cap.busy_draw_w * seconds;
  if (gpus <= 0) return;
  lowest_cap_w_ = std::min(lowest_cap_w_, cap.limit_w);
  sums.busy_gpu_s += gpus * seconds;
  sums.work_gpu_s += gpus * seconds * cap.throughput;
  if (cap.limit_w < power_->profile().caps.back().limit_w) capped_gpu_s_ += gpus * seconds;
}

void ReplayEnergy::on_span(const ReplaySpan& span) {
  const ReplayPowerProfile& profile = power_->profile();
  const int busy = span.whole.busy;
  const int low = span.whole.low_priority_busy;
  const BusyCaps caps = power_->cap_indices(busy - low, low);
  const GpuCapPoint& cap = profile.caps[caps.normal];
  const GpuCapPoint& low_cap = profile.caps[caps.low];
  const double it_w = profile.it_power_w(busy - low, caps.normal, low, caps.low);
  const double idle_w = (profile.gpus() - busy) * (profile.idle_gpu_w + profile.non_gpu_per_gpu_w());
  const double seconds = span.to - span.from;
  if (facility_curve()) {
    record_boundaries(normal_at_boundary_, normal_.draw_integral, cap.busy_draw_w, span.from, span.to);
    record_boundaries(low_at_boundary_, low_.draw_integral, low_cap.busy_draw_w, span.from, span.to);
  }
  add_busy(normal_, busy - low, cap, seconds);
  add_busy(low_, low, low_cap, seconds);
  total_j_ += it_w * seconds;
  idle_j_ += idle_w * seconds;
  peak_w_ = std::max(peak_w_, it_w);
  end_s_ = span.to;
  // Split at interval boundaries, as ReplayMetrics does.
  for (double t = span.from; t < span.to;) {
    IntervalSums& row = interval_at(t);
    const double row_start = std::floor(t / interval_s_) * interval_s_;
    const double end = std::min(span.to, row_start + interval_s_);
    row.it_j += it_w * (end - t);
    row.idle_j += idle_w * (end - t);
    row.peak_w = std::max(row.peak_w, it_w);
    row.cap_gpu_s += ((busy - low) * cap.limit_w + low * low_cap.limit_w) * (end - t);
    row.busy_gpu_s += busy * (end - t);
    if (end <= t) break;
    t = end;
  }
}

void ReplayEnergy::on_start(int job, double /*time*/) {
  integral_at_start_[static_cast<std::size_t>(job)] = sums_of(job).draw_integral;
}

void ReplayEnergy::on_finish(int job, double time) {
  finished_at_[static_cast<std::size_t>(job)] = time;
}

void ReplayEnergy::on_segment(const RunSegment& segment) {
  const auto job = static_cast<std::size_t>(segment.job);
  const double gpus = jobs_[job].gpus;
  const double held_s = segment.to - segment.from;
  job_j_[job] += gpus * (sums_of(segment.job).draw_integral - integral_at_start_[job]) +
                 gpus * power_->profile().non_gpu_per_gpu_w() * held_s;
  job_gpu_s_[job] += gpus * held_s;
  if (facility_curve()) {
    held_.push_back(
        {segment.job, segment.from, segment.to, integral_at_start_[job], sums_of(segment.job).draw_integral});
  }
}

void ReplayEnergy::record_boundaries(std::vector<double>& at_boundary, double integral_before, double draw_w,
                                     double from, double to) const {
  const auto first = static_cast<std::size_t>(std::max(0.0, std::ceil(from / interval_s_)));
  const auto last = static_cast<std::size_t>(std::max(0.0, std::floor(to / interval_s_)));
  if (at_boundary.size() <= last) at_boundary.resize(last + 1, 0.0);
  for (std::size_t k = first; k <= last; ++k)
    at_boundary[k] = integral_before + draw_w * (static_cast<double>(k) * interval_s_ - from);
}

// The stretch's IT energy in each interval (its GPUs' draw between the boundaries it crosses, and their
// share of non-GPU power) times that interval's facility over IT energy.
double ReplayEnergy::stretch_facility_kwh(const HeldStretch& stretch,
                                          const std::vector<double>& ratio) const {
  const auto job = static_cast<std::size_t>(stretch.job);
  const std::vector<double>& at = jobs_[job].low_priority ? low_at_boundary_ : normal_at_boundary_;
  const double gpus = jobs_[job].gpus;
  const double non_gpu_w = power_->profile().non_gpu_per_gpu_w();
  const auto first = static_cast<std::size_t>(std::max(0.0, std::floor(stretch.from / interval_s_)));
  const auto last = static_cast<std::size_t>(std::max(0.0, std::floor(stretch.to / interval_s_)));
  double kwh = 0;
  for (std::size_t k = first; k <= last; ++k) {
    const double lo = std::max(stretch.from, static_cast<double>(k) * interval_s_);
    const double hi = std::min(stretch.to, static_cast<double>(k + 1) * interval_s_);
    if (!(hi > lo)) continue;
    const double integral_lo = lo == stretch.from || k >= at.size() ? stretch.integral_from : at[k];
    const double integral_hi = hi == stretch.to || k + 1 >= at.size() ? stretch.integral_to : at[k + 1];
    const double it_j = gpus * (integral_hi - integral_lo + non_gpu_w * (hi - lo));
    kwh += it_j / kJoulesPerKwh * ratio[std::min(k, ratio.size() - 1)];
  }
  return kwh;
}

// Per job and idle facility energy: without a curve their IT energy at the one PUE; with one, interval by
// interval at each interval's own facility over IT energy.
void ReplayEnergy::charge_facility(ReplayEnergyMetrics& energy, const std::vector<IntervalSums>& rows) const {
  if (!facility_curve() || energy.intervals.empty()) {
    for (JobEnergy& job : energy.per_job) job.facility_kwh = job.it_kwh * energy.pue;
    energy.idle_facility_kwh = energy.idle_it_kwh * energy.pue;
    return;
  }
  std::vector<double> ratio;
  for (const EnergyInterval& row : energy.intervals) ratio.push_back(facility_over_it(row));
  std::vector<double> job_facility(jobs_.size(), 0.0);
  for (const HeldStretch& stretch : held_)
    job_facility[static_cast<std::size_t>(stretch.job)] += stretch_facility_kwh(stretch, ratio);
  for (JobEnergy& job : energy.per_job) job.facility_kwh = job_facility[static_cast<std::size_t>(job.job)];
  energy.idle_facility_kwh = 0;
  for (std::size_t i = 0; i < rows.size() && i < ratio.size(); ++i)
    energy.idle_facility_kwh += rows[i].idle_j / kJoulesPerKwh * ratio[i];
}

void ReplayEnergy::summarize(ReplayResult& result) const {
  const ReplayPowerProfile& profile = power_->profile();
  ReplayEnergyMetrics energy;
  energy.system = profile.system;
  energy.accelerator = profile.accelerator;
  energy.source = profile.source;
  energy.pue = profile.pue;
  energy.busy_gpu_w = profile.caps.back().busy_draw_w;
  energy.idle_gpu_w = profile.idle_gpu_w;
  energy.non_gpu_node_w = profile.non_gpu_node_w;
  energy.lowest_cap_w = lowest_cap_w_;
  energy.it_kwh = total_j_ / kJoulesPerKwh;
  energy.facility_kwh = energy.it_kwh * profile.pue;
  energy.idle_it_kwh = idle_j_ / kJoulesPerKwh;
  energy.peak_it_kw = peak_w_ / 1000;
  energy.mean_it_kw = end_s_ > 0 ? total_j_ / end_s_ / 1000 : 0.0;
  for (std::size_t job = 0; job < jobs_.size(); ++job) {
    if (finished_at_[job] >= 0) {
      const double work = jobs_[job].gpus * jobs_[job].duration / kSecondsPerHour;
      energy.completed_work_gpu_hours += work;
      if (finished_at_[job] <= result.last_arrival) energy.work_by_last_arrival_gpu_hours += work;
    }
    if (job_gpu_s_[job] <= 0) continue;
    energy.per_job.push_back({.job = static_cast<int>(job),
                              .id = jobs_[job].id,
                              .it_kwh = job_j_[job] / kJoulesPerKwh,
                              .gpu_hours = job_gpu_s_[job] / kSecondsPerHour});
    energy.jobs_it_kwh += job_j_[job] / kJoulesPerKwh;
  }
  // One row per row of result.intervals; a last partial row past them folds into the last, as theirs do.
  std::vector<IntervalSums> rows = intervals_;
  const std::size_t wanted = std::max<std::size_t>(result.intervals.size(), 1);
  while (rows.size() > wanted) {
    const IntervalSums last = rows.back();
    rows.pop_back();
    rows.back().it_j += last.it_j;
    rows.back().idle_j += last.idle_j;
    rows.back().peak_w = std::max(rows.back().peak_w, last.peak_w);
    rows.back().cap_gpu_s += last.cap_gpu_s;
    rows.back().busy_gpu_s += last.busy_gpu_s;
  }
  rows.resize(wanted);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EnergyInterval row;
    row.start = static_cast<double>(i) * interval_s_;
    row.it_kwh = rows[i].it_j / kJoulesPerKwh;
    row.mean_it_kw = rows[i].it_j / interval_s_ / 1000;
    row.peak_it_kw = rows[i].peak_w / 1000;
    row.mean_cap_w = rows[i].busy_gpu_s > 0 ? rows[i].cap_gpu_s / rows[i].busy_gpu_s : 0.0;
    energy.intervals.push_back(row);
  }
  apply_facility_overhead(energy, profile.facility, interval_s_);
  charge_facility(energy, rows);
  energy.budget_kw = power_->budget_w() / 1000;
  if (power_->name() != "none") {
    PowerBudgetMetrics budget;
    budget.policy = std::string(power_->name());
    budget.budget_kw = power_->budget_w() / 1000;
    budget.lowest_cap_w = lowest_cap_w_;
    budget.capped_gpu_hours = capped_gpu_s_ / kSecondsPerHour;
    const double busy_gpu_s = normal_.busy_gpu_s + low_.busy_gpu_s;
    budget.mean_throughput = busy_gpu_s > 0 ? (normal_.work_gpu_s + low_.work_gpu_s) / busy_gpu_s : 1.0;
    budget.low_priority_gpu_hours = low_.busy_gpu_s / kSecondsPerHour;
    budget.low_priority_mean_throughput = low_.mean_throughput();
    budget.other_mean_throughput = normal_.mean_throughput();
    for (const auto& [reason, count] : result.rejected) {
      if (reason.rfind(kRefusedByPowerBudget, 0) == 0) budget.jobs_refused += count;
    }
    energy.budget = budget;
  }
  result.energy = std::move(energy);
}

}  // namespace gputwin
