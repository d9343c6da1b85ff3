// The energy observer: what a replay on a known system draws, span by span, per job and per interval.
//
//   std::shared_ptr<const PowerPolicy> power = make_power_policy("none", profile, 0);   // or a budget's
//   ReplayEnergy energy(jobs, power, options.interval);
//   engine.add_observer(energy);
//   ReplayResult result = engine.run();
//   energy.summarize(result);          // result.energy: IT and facility kWh, per job, per interval, idle
//
// Every GPU of the compute nodes draws its idle power unless a job runs on it; a busy GPU draws the power
// policy's cap point (the training phase mix's draw at the default limit without a budget; under
// cap-low-priority, low-priority jobs' GPUs have their own); every node draws
// its non-GPU power throughout. A job is charged its GPUs' draw and, per GPU, 1 / gpus-per-node of its nodes'
// non-GPU power while it holds them; the rest (idle GPUs and their share) is idle. So the jobs and idle add
// up to the cluster's total, which a test asserts. GPUs out of service draw idle power (a stated assumption:
// a failed node is powered and waits for repair). Switches, storage and management servers are not counted.
// Facility energy is each interval's own at its IT load (the profile's facility curve, facility_energy.hpp);
// a job and the idle GPUs are charged, interval by interval, their IT energy in it times that interval's
// facility over IT energy, so they too add up to the total.
#pragma once

#include <memory>
#include <vector>

#include "gputwin/sim/energy_metrics.hpp"
#include "gputwin/sim/power_policy.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/sim/replay_observer.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

class ReplayEnergy final : public ReplayObserver {
 public:
  // `jobs` must outlive the observer. `interval_s` is the replay's (ReplayOptions::interval).
  ReplayEnergy(const std::vector<JobSpec>& jobs, std::shared_ptr<const PowerPolicy> power, double interval_s);

  void on_span(const ReplaySpan& span) override;
  void on_start(int job, double time) override;
  void on_finish(int job, double time) override;
  void on_segment(const RunSegment& segment) override;

  // Fills result.energy; after the engine's run().
  void summarize(ReplayResult& result) const;

 private:
  struct IntervalSums {
    double it_j = 0;
    double idle_j = 0;  // of it_j, idle GPUs and their share of non-GPU power
    double peak_w = 0;
    double cap_gpu_s = 0;   // busy GPU-seconds x limit
    double busy_gpu_s = 0;  // busy GPU-seconds
  };
  // Busy GPUs of one kind (low-priority jobs', or the others'): under cap-low-priority they run at their own
  // cap.
  struct BusySums {
    double draw_integral = 0;  // integral of one such GPU's draw over time, J per GPU
    double busy_gpu_s = 0;
    double work_gpu_s = 0;  // busy GPU-seconds x throughput
    [[nodiscard]] double mean_throughput() const { return busy_gpu_s > 0 ? work_gpu_s / busy_gpu_s : 1.0; }
  };
  // A stretch a job held its GPUs, with the draw integral of its kind of GPU at both ends.
  struct HeldStretch {
    int job = 0;
    double from = 0, to = 0;
    double integral_from = 0, integral_to = 0;
  };
  IntervalSums& interval_at(double time);
  void record_boundaries(std::vector<double>& at_boundary, double integral_before, double draw_w, double from,
                         double to) const;
  [[nodiscard]] double stretch_facility_kwh(const HeldStretch& stretch,
                                            const std::vector<double>& ratio) const;
  void charge_facility(ReplayEnergyMetrics& energy, const std::vector<IntervalSums>& rows) const;
  [[nodiscard]] bool facility_curve() const { return power_->profile().facility.curve; }
  void add_busy(BusySums& sums, int gpus, const GpuCapPoint& cap, double seconds);
  [[nodiscard]] const BusySums& sums_of(int job) const {
    return jobs_[static_cast<std::size_t>(job)].low_priority ? low_ : normal_;
  }

  const std::vector<JobSpec>& jobs_;
  std::shared_ptr<const PowerPolicy> power_;
  double interval_s_;
  BusySums normal_;
  BusySums low_;
  std::vector<double> integral_at_start_;
  std::vector<double> job_j_;
  std::vector<double> job_gpu_s_;
  std::vector<double> finished_at_;  // -1 until the job finishes
  std::vector<IntervalSums> intervals_;
  // With a facility curve only: each kind's draw integral at every interval boundary (index k: time k x
  // interval_s_) and every stretch a job held GPUs, to split jobs' IT energy by interval.
  std::vector<double> normal_at_boundary_;
  std::vector<double> low_at_boundary_;
  std::vector<HeldStretch> held_;
  double total_j_ = 0;
  double idle_j_ = 0;
  double peak_w_ = 0;
  double end_s_ = 0;
  double lowest_cap_w_ = 0;
  double capped_gpu_s_ = 0;
};

}  // namespace gputwin
