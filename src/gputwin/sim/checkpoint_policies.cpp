#include "gputwin/sim/checkpoint_policies.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "gputwin/sim/checkpoint_interval.hpp"

namespace gputwin {
namespace {

constexpr double kSecondsPerHour = 3600;

// Work kept at an interruption: whole intervals of work done since the job last started.
double whole_intervals(double work_done, double interval) {
  if (!(interval > 0) || !std::isfinite(interval)) return 0;
  return std::floor(work_done / interval) * interval;
}

double write_slowed_rate(double interval, double write) {
  if (!std::isfinite(interval) || write <= 0) return 1;
  return interval / (interval + write);
}

class FixedInterval final : public CheckpointPolicy {
 public:
  explicit FixedInterval(CheckpointSettings settings) : settings_(std::move(settings)) {}
  std::string_view name() const override { return "interval"; }
  double work_kept(const JobSpec& /*job*/, double work_done) const override {
    return whole_intervals(work_done, settings_.interval_s);
  }
  double rate(const JobSpec& /*job*/) const override {
    return write_slowed_rate(settings_.interval_s, settings_.write_s);
  }
  double restart_seconds(const JobSpec& /*job*/) const override { return settings_.restart_s; }

 private:
  CheckpointSettings settings_;
};

class YoungDaly final : public CheckpointPolicy {
 public:
  explicit YoungDaly(CheckpointSettings settings) : settings_(std::move(settings)) {}
  std::string_view name() const override { return "young-daly"; }
  double work_kept(const JobSpec& job, double work_done) const override {
    return whole_intervals(work_done, interval_s(job));
  }
  double rate(const JobSpec& job) const override {
    return write_slowed_rate(interval_s(job), settings_.write_s);
  }
  double restart_seconds(const JobSpec& /*job*/) const override { return settings_.restart_s; }

 private:
  double interval_s(const JobSpec& job) const {
    const double per_hour = settings_.failures_per_hour(job);
    if (!(per_hour > 0)) return INFINITY;  // no failure: never worth a checkpoint
    return kSecondsPerHour * daly_interval_hours(settings_.write_s / kSecondsPerHour, 1 / per_hour);
  }
  CheckpointSettings settings_;
};

void check_common(const CheckpointSettings& settings) {
  if (!(settings.write_s >= 0)) throw std::invalid_argument("the checkpoint write time must be >= 0");
  if (!(settings.restart_s >= 0)) throw std::invalid_argument("the restart time must be >= 0");
}

}  // namespace

std::unique_ptr<CheckpointPolicy> make_checkpoint_policy(std::string_view name,
                                                         const CheckpointSettings& settings) {
  if (name == "interval") {
    check_common(settings);
    if (!(settings.interval_s > 0)) {
      throw std::invalid_argument(
          "checkpoint policy 'interval' needs an interval > 0 (--checkpoint-interval)");
    }
    return std::make_unique<FixedInterval>(settings);
  }
  if (name == "young-daly") {
    check_common(settings);
    if (!(settings.write_s > 0)) {
      throw std::invalid_argument("checkpoint policy 'young-daly' needs the write time (--checkpoint-write)");
    }
    if (!settings.failures_per_hour) {
      throw std::invalid_argument("checkpoint policy 'young-daly' needs a failure model (its MTBF)");
    }
    return std::make_unique<YoungDaly>(settings);
  }
  if (name == "none") return make_checkpoint_policy(name);
  throw std::invalid_argument("unknown checkpoint policy '" + std::string(name) +
                              "'; known: none, interval, young-daly");
}

}  // namespace gputwin
