// Energy of a replay and the power budget policies: accounting that adds up, peaks under the budget, the
// cost of a lower budget, and the refusals. Profiles are hand-made numbers (sim does not read the perf power
// model), so the expected figures follow by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "gputwin/design/facility_overhead.hpp"
#include "gputwin/sim/facility_energy.hpp"
#include "gputwin/sim/power_policy.hpp"
#include "gputwin/sim/replay_energy.hpp"
#include "gputwin/sim/replay_engine.hpp"

namespace gputwin {
namespace {

JobSpec job(const std::string& id, double submit, int gpus, double duration) {
  JobSpec spec;
  spec.id = id;
  spec.submit_time = submit;
  spec.gpus = gpus;
  spec.duration = duration;
  return spec;
}

// 4 nodes of 8 GPUs: 2 kW non-GPU per node, 80 W idle GPUs, five cap points up to a 700 W default.
ReplayPowerProfile profile() {
  ReplayPowerProfile p;
  p.system = "test-node";
  p.accelerator = "test-gpu";
  p.nodes = 4;
  p.gpus_per_node = 8;
  p.idle_gpu_w = 80;
  p.non_gpu_node_w = 2000;
  p.pue = 1.5;
  p.caps = {{200, 190, 0.55}, {300, 280, 0.7}, {400, 370, 0.82}, {500, 450, 0.9}, {700, 580, 1.0}};
  return p;
}

// A loaded trace: 200 jobs of 1 to 16 GPUs, arriving faster than 32 GPUs serve them (a fixed LCG, no seed).
std::vector<JobSpec> loaded_jobs() {
  std::vector<JobSpec> jobs;
  std::uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525U + 1013904223U;
    return state >> 8;
  };
  double submit = 0;
  const int sizes[] = {1, 2, 4, 8, 8, 16, 16};  // at most 16: every budget below fits each job alone
  for (int i = 0; i < 200; ++i) {
    submit += static_cast<double>(next() % 600);
    jobs.push_back(
        job("j" + std::to_string(i), submit, sizes[next() % 7], 600 + static_cast<double>(next() % 7200)));
  }
  return jobs;
}

// Every third job low priority.
std::vector<JobSpec> with_low_priority(std::vector<JobSpec> jobs) {
  for (std::size_t i = 0; i < jobs.size(); i += 3) jobs[i].low_priority = true;
  return jobs;
}

struct PowerRun {
  ReplayResult result;
  double peak_w = 0;  // the highest IT power of any span, measured apart from ReplayEnergy
};

// Measures the IT power of every span from the busy GPUs and the policy's cap, independently of ReplayEnergy.
class PeakPower final : public ReplayObserver {
 public:
  explicit PeakPower(const PowerPolicy& policy) : policy_(policy) {}
  void on_span(const ReplaySpan& span) override {
    const int low = span.whole.low_priority_busy;
    const BusyCaps caps = policy_.cap_indices(span.whole.busy - low, low);
    peak_w =
        std::max(peak_w, policy_.profile().it_power_w(span.whole.busy - low, caps.normal, low, caps.low));
  }
  double peak_w = 0;

 private:
  const PowerPolicy& policy_;
};

// Replays `jobs` under FIFO on the profile's nodes; `budget_w` 0 runs without a budget (energy watched only).
PowerRun run(const std::vector<JobSpec>& jobs, const std::string& policy_name, double budget_w,
             const std::string& queue = "fifo", const FacilityOverhead& facility = {}) {
  ReplayPowerProfile p = profile();
  p.facility = facility;
  auto power = make_power_policy(budget_w > 0 ? policy_name : "none", p, budget_w);
  ReplayModels models;
  if (budget_w > 0) models.power = power;
  const auto queue_policy = make_queue_policy(queue);
  ReplayOptions options;
  options.interval = 3600;
  ReplayEngine engine(jobs, GpuPool::uniform(p.nodes, p.gpus_per_node), std::nullopt, *queue_policy, options,
                      std::move(models));
  ReplayEnergy energy(jobs, power, options.interval);
  PeakPower peak(*power);
  engine.add_observer(energy);
  engine.add_observer(peak);
  PowerRun out{engine.run(), 0};
  energy.summarize(out.result);
  out.peak_w = peak.peak_w;
  return out;
}

TEST(ReplayEnergy, OneJobByHand) {
  const std::vector<JobSpec> jobs{job("a", 0, 8, 3600)};
  const ReplayEnergyMetrics energy = *run(jobs, "none", 0).result.energy;
  // 1 h of 4 x 2 kW non-GPU + 24 idle GPUs x 80 W + 8 busy x 580 W = 14.56 kW.
  EXPECT_NEAR(energy.it_kwh, 14.56, 1e-9);
  EXPECT_NEAR(energy.facility_kwh, 14.56 * 1.5, 1e-9);
  ASSERT_EQ(energy.per_job.size(), 1U);
  EXPECT_NEAR(energy.per_job[0].it_kwh, 8 * (580 + 250) / 1000.0, 1e-9);  // its GPUs + 8/8 of a node's 2 kW
  EXPECT_NEAR(energy.idle_it_kwh, 24 * (80 + 250) / 1000.0, 1e-9);
  EXPECT_NEAR(energy.peak_it_kw, 14.56, 1e-9);
  EXPECT_NEAR(energy.completed_work_gpu_hours, 8.0, 1e-9);
  EXPECT_FALSE(energy.budget);
}

TEST(ReplayEnergy, JobsAndIdleAddUpToTheClusterTotal) {
  const std::vector<JobSpec> jobs = loaded_jobs();
  for (const std::string policy : {"none", "cap-all", "admit-fewer", "cap-low-priority"}) {
    const ReplayEnergyMetrics energy =
        *run(with_low_priority(jobs), policy, policy == "none" ? 0 : 20000).result.energy;
    double per_job = 0;
    for (const auto& row : energy.per_job) per_job += row.it_kwh;
    EXPECT_NEAR(per_job, energy.jobs_it_kwh, 1e-6 * energy.it_kwh) << policy;
    EXPECT_NEAR(energy.jobs_it_kwh + energy.idle_it_kwh, energy.it_kwh, 1e-9 * energy.it_kwh) << policy;
    double by_interval = 0;
    for (const auto& row : energy.intervals) by_interval += row.it_kwh;
    EXPECT_NEAR(by_interval, energy.it_kwh, 1e-9 * energy.it_kwh) << policy;
    EXPECT_EQ(energy.per_job.size(), jobs.size()) << policy;
  }
}

TEST(ReplayPowerBudget, PeakNeverExceedsTheBudget) {
  const std::vector<JobSpec> jobs = loaded_jobs();
  const double unlimited_peak = run(jobs, "none", 0).peak_w;
  EXPECT_GT(unlimited_peak, 24000);  // the budgets below bind
  for (const std::string policy : {"cap-all", "admit-fewer", "cap-low-priority"}) {
    for (const double budget : {24000.0, 20000.0, 18600.0}) {
      for (const std::string queue : {"fifo", "easy"}) {
        const PowerRun out = run(with_low_priority(jobs), policy, budget, queue);
        EXPECT_LE(out.peak_w, budget) << policy << " at " << budget << " W, " << queue;
        EXPECT_LE(out.result.energy->peak_it_kw * 1000, budget + 1e-6) << policy << " at " << budget;
        EXPECT_EQ(out.result.completed, static_cast<int>(jobs.size())) << policy << " at " << budget;
      }
    }
  }
}

TEST(ReplayPowerBudget, ALowerBudgetNeverGivesMoreCompletedWork) {
  const std::vector<JobSpec> jobs = loaded_jobs();
  for (const std::string policy : {"cap-all", "admit-fewer"}) {
    double previous_work = INFINITY;
    double previous_makespan = 0;
    for (const double budget : {30000.0, 25000.0, 22000.0, 20000.0, 18600.0}) {
      const PowerRun out = run(jobs, policy, budget);
      const double work = out.result.energy->work_by_last_arrival_gpu_hours;
      EXPECT_LE(work, previous_work) << policy << " at " << budget << " W";
      EXPECT_GE(out.result.makespan, previous_makespan) << policy << " at " << budget << " W";
      previous_work = work;
      previous_makespan = out.result.makespan;
    }
  }
}

TEST(ReplayPowerBudget, CapAllSlowsRunningJobsToTheCapThatFits) {
  // All 32 GPUs busy: 8 kW + 32 x 280 W = 16.96 kW fits the 300 W cap exactly; 400 W (19.84 kW) does not.
  const std::vector<JobSpec> jobs{job("a", 0, 32, 1000)};
  const PowerRun out = run(jobs, "cap-all", 16960);
  EXPECT_NEAR(out.result.outcomes[0].end, 1000 / 0.7, 1e-9);
  EXPECT_EQ(out.result.energy->budget->lowest_cap_w, 300);
  EXPECT_NEAR(out.result.energy->budget->mean_throughput, 0.7, 1e-12);
  EXPECT_NEAR(out.peak_w, 16960, 1e-9);
}

TEST(ReplayPowerBudget, CapAllLiftsTheCapWhenJobsLeave) {
  // Two 16-GPU jobs: together capped at 300 W; once the short one ends the long one gets a higher cap.
  const std::vector<JobSpec> jobs{job("short", 0, 16, 700), job("long", 0, 16, 2000)};
  const PowerRun out = run(jobs, "cap-all", 16960);
  EXPECT_NEAR(out.result.outcomes[0].end, 1000, 1e-9);  // 700 s of work at 0.7
  // The long job did 700 s of work by t = 1000 s; alone, 16 busy GPUs fit the 500 W cap (8 kW + 16 x 80 W +
  // 16 x 450 W = 16.48 kW), so its last 1300 s of work run at 0.9.
  EXPECT_NEAR(out.result.outcomes[1].end, 1000 + 1300 / 0.9, 1e-9);
}

TEST(ReplayPowerBudget, AdmitFewerHoldsAJobWhileItWouldNotFit) {
  // Idle draw 10.56 kW; one 16-GPU job adds 16 x 500 W = 8 kW: 18.56 kW fits, two do not.
  const std::vector<JobSpec> jobs{job("a", 0, 16, 100), job("b", 0, 16, 100)};
  const PowerRun out = run(jobs, "admit-fewer", 18560);
  EXPECT_EQ(out.result.outcomes[0].start, 0);
  EXPECT_EQ(out.result.outcomes[1].start, 100);
  EXPECT_EQ(out.result.outcomes[1].end, 200);  // never capped
  const PowerRun free_run = run(jobs, "none", 0);
  EXPECT_EQ(free_run.result.outcomes[1].start, 0);
}

TEST(ReplayPowerBudget, AJobNeedingMoreThanTheBudgetIsRefused) {
  const std::vector<JobSpec> jobs{job("big", 0, 32, 100), job("small", 0, 8, 100)};
  const PowerRun out = run(jobs, "admit-fewer", 18560);
  EXPECT_EQ(out.result.rejected.at(std::string(kRefusedByPowerBudget)), 1);
  EXPECT_EQ(out.result.completed, 1);
  EXPECT_EQ(out.result.energy->budget->jobs_refused, 1);
}

TEST(ReplayPowerBudget, WithoutABudgetTheReplayIsUnchanged) {
  const std::vector<JobSpec> jobs = loaded_jobs();
  const auto queue_policy = make_queue_policy("easy");
  const ReplayResult plain = replay(jobs, GpuPool::uniform(4, 8), *queue_policy, ReplayOptions{});
  const PowerRun watched = run(jobs, "none", 0, "easy");
  ASSERT_EQ(plain.outcomes.size(), watched.result.outcomes.size());
  for (std::size_t i = 0; i < plain.outcomes.size(); ++i) {
    EXPECT_EQ(plain.outcomes[i].start, watched.result.outcomes[i].start) << i;
    EXPECT_EQ(plain.outcomes[i].end, watched.result.outcomes[i].end) << i;
  }
  EXPECT_EQ(plain.wait.mean, watched.result.wait.mean);
}

TEST(ReplayPowerBudget, BudgetsThatCannotBeHeldAreRefusedWithTheReason) {
  const ReplayPowerProfile p = profile();
  try {
    (void)make_power_policy("cap-all", p, 10000);  // idle draw is 10.56 kW
    FAIL() << "a budget below the idle draw must be refused";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("below the cluster's idle draw"), std::string::npos)
        << error.what();
  }
  // One node busy at the lowest cap: 10.56 kW + 8 x (190 - 80) W = 11.44 kW.
  EXPECT_THROW((void)make_power_policy("cap-all", p, 11000), std::invalid_argument);
  EXPECT_NO_THROW((void)make_power_policy("cap-all", p, 11440));
  EXPECT_THROW((void)make_power_policy("admit-fewer", p, 11440),
               std::invalid_argument);  // uncapped: 14.56 kW
  EXPECT_NO_THROW((void)make_power_policy("cap-low-priority", p, 11440));
  EXPECT_THROW((void)make_power_policy("cap-low-priority", p, 11000), std::invalid_argument);
  EXPECT_THROW((void)make_power_policy("cap-some", p, 20000), std::invalid_argument);
  ReplayPowerProfile uncappable = p;
  uncappable.caps = {{700, 580, 1.0}};
  EXPECT_THROW((void)make_power_policy("cap-all", uncappable, 20000), std::invalid_argument);
  EXPECT_NO_THROW((void)make_power_policy("admit-fewer", uncappable, 20000));
  EXPECT_THROW((void)make_power_policy("cap-low-priority", uncappable, 20000), std::invalid_argument);
}

// ---- cap-low-priority: low-priority jobs' GPUs are capped first.

TEST(CapLowPriority, CapsLowPriorityGpusFirstThenTheRest) {
  const ReplayPowerProfile p = profile();
  // 16 GPUs of each kind; base 8 kW of non-GPU power. At 22 kW the low ones go to 300 W (8 + 16 x 0.58 +
  // 16 x 0.28 = 21.76 kW) and the others keep 700 W; cap-all puts all 32 at 400 W (8 + 32 x 0.37 = 19.84 kW).
  const auto low_first = make_power_policy("cap-low-priority", p, 22000);
  const auto all = make_power_policy("cap-all", p, 22000);
  EXPECT_EQ(low_first->cap_indices(16, 16).normal, 4U);
  EXPECT_EQ(low_first->cap_indices(16, 16).low, 1U);
  EXPECT_EQ(all->cap_indices(16, 16).normal, 2U);
  EXPECT_EQ(all->cap_indices(16, 16).low, 2U);
  // At 16 kW even the low ones at 200 W (20.32 kW) do not fit: they stay at 200 W and the others go to the
  // highest cap that fits, 300 W (8 + 16 x 0.19 + 16 x 0.28 = 15.52 kW); cap-all gives everyone 200 W.
  const auto tight = make_power_policy("cap-low-priority", p, 16000);
  EXPECT_EQ(tight->cap_indices(16, 16).normal, 1U);
  EXPECT_EQ(tight->cap_indices(16, 16).low, 0U);
  EXPECT_EQ(make_power_policy("cap-all", p, 16000)->cap_index(32), 0U);
  // Without low-priority GPUs it is cap-all.
  for (int busy = 0; busy <= 32; ++busy) {
    EXPECT_EQ(tight->cap_indices(busy, 0).normal, make_power_policy("cap-all", p, 16000)->cap_index(busy));
  }
}

TEST(CapLowPriority, NeverBelowCapAllForOthersNeverAboveItForLowOnesAndWithinTheBudget) {
  const ReplayPowerProfile p = profile();
  for (const double budget : {11440.0, 14000.0, 16000.0, 18600.0, 22000.0, 26000.0}) {
    const auto low_first = make_power_policy("cap-low-priority", p, budget);
    const auto all = make_power_policy("cap-all", p, budget);
    for (int normal = 0; normal <= 32; ++normal) {
      for (int low = 0; normal + low <= 32; ++low) {
        const BusyCaps caps = low_first->cap_indices(normal, low);
        const std::size_t cap_all = all->cap_index(normal + low);
        EXPECT_GE(caps.normal, cap_all) << budget << " W, " << normal << " + " << low;
        if (low > 0) {
          EXPECT_LE(caps.low, cap_all) << budget << " W, " << normal << " + " << low;
        }
        // Admission holds both policies to the same rule, so wherever cap-all fits, so does this.
        if (p.it_power_w(normal + low, 0) <= budget) {
          EXPECT_LE(p.it_power_w(normal, caps.normal, low, caps.low), budget + 1e-9)
              << budget << " W, " << normal << " + " << low;
        }
        EXPECT_EQ(low_first->may_start(8, normal + low), all->may_start(8, normal + low));
      }
    }
  }
}

TEST(CapLowPriority, TheLowPriorityJobRunsSlowerAndTheOtherFasterThanUnderCapAll) {
  std::vector<JobSpec> jobs{job("normal", 0, 16, 1000), job("low", 0, 16, 1000)};
  jobs[1].low_priority = true;
  const PowerRun first = run(jobs, "cap-low-priority", 22000);
  const PowerRun all = run(jobs, "cap-all", 22000);
  // cap-all: both at 400 W (0.82) until both end together.
  EXPECT_NEAR(all.result.outcomes[0].end, 1000 / 0.82, 1e-9);
  EXPECT_NEAR(all.result.outcomes[1].end, 1000 / 0.82, 1e-9);
  // cap-low-priority: the normal job at 700 W ends at 1000 s; the low one did 700 s of work at 300 W (0.7) by
  // then and, alone, runs its last 300 s uncapped (8 + 16 x 0.08 + 16 x 0.58 = 18.56 kW fits).
  EXPECT_NEAR(first.result.outcomes[0].end, 1000, 1e-9);
  EXPECT_NEAR(first.result.outcomes[1].end, 1300, 1e-9);
  const PowerBudgetMetrics& budget = *first.result.energy->budget;
  EXPECT_NEAR(budget.low_priority_gpu_hours, 16 * 1300 / 3600.0, 1e-9);
  EXPECT_NEAR(budget.low_priority_mean_throughput, 1000.0 / 1300, 1e-12);
  EXPECT_NEAR(budget.other_mean_throughput, 1.0, 1e-12);
  EXPECT_EQ(budget.lowest_cap_w, 300);
  // Each job's energy by hand: its GPUs at their draw plus 16 / 8 nodes' 2 kW while it holds them.
  const auto& per_job = first.result.energy->per_job;
  ASSERT_EQ(per_job.size(), 2U);
  EXPECT_NEAR(per_job[0].it_kwh, (16 * 580 * 1000 + 16 * 250 * 1000) / 3.6e6, 1e-9);
  EXPECT_NEAR(per_job[1].it_kwh, (16 * (280 * 1000 + 580 * 300) + 16 * 250 * 1300) / 3.6e6, 1e-9);
  EXPECT_LE(first.peak_w, 22000);
}

// Per job, run time over its work: 1 when never slowed.
std::pair<double, double> mean_stretch_low_and_other(const std::vector<JobSpec>& jobs,
                                                     const ReplayResult& result) {
  double low = 0;
  double other = 0;
  int lows = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const double stretch = (result.outcomes[i].end - result.outcomes[i].start) / jobs[i].duration;
    (jobs[i].low_priority ? low : other) += stretch;
    lows += jobs[i].low_priority ? 1 : 0;
  }
  return {low / lows, other / static_cast<double>(static_cast<int>(jobs.size()) - lows)};
}

TEST(CapLowPriority, OnALoadedTraceLowJobsRunSlowerAndOthersNotSlowerThanUnderCapAll) {
  const std::vector<JobSpec> jobs = with_low_priority(loaded_jobs());
  for (const double budget : {24000.0, 20000.0, 18600.0}) {
    const PowerRun first = run(jobs, "cap-low-priority", budget);
    const PowerRun all = run(jobs, "cap-all", budget);
    const auto [first_low, first_other] = mean_stretch_low_and_other(jobs, first.result);
    const auto [all_low, all_other] = mean_stretch_low_and_other(jobs, all.result);
    EXPECT_GT(first_low, all_low) << budget << " W";
    EXPECT_LE(first_other, all_other) << budget << " W";
    EXPECT_LT(first.result.energy->budget->low_priority_mean_throughput,
              all.result.energy->budget->low_priority_mean_throughput)
        << budget << " W";
    EXPECT_GE(first.result.energy->budget->other_mean_throughput,
              all.result.energy->budget->other_mean_throughput)
        << budget << " W";
    EXPECT_LE(first.peak_w, budget);
    EXPECT_EQ(first.result.completed, static_cast<int>(jobs.size()));
  }
}

TEST(CapLowPriority, IsDeterministic) {
  const std::vector<JobSpec> jobs = with_low_priority(loaded_jobs());
  const PowerRun a = run(jobs, "cap-low-priority", 20000, "easy");
  const PowerRun b = run(jobs, "cap-low-priority", 20000, "easy");
  ASSERT_EQ(a.result.outcomes.size(), b.result.outcomes.size());
  for (std::size_t i = 0; i < a.result.outcomes.size(); ++i) {
    EXPECT_EQ(a.result.outcomes[i].start, b.result.outcomes[i].start) << i;
    EXPECT_EQ(a.result.outcomes[i].end, b.result.outcomes[i].end) << i;
  }
  EXPECT_EQ(a.result.energy->it_kwh, b.result.energy->it_kwh);
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

// A facility rated for the test cluster's full load (4 x 2 kW + 32 x 580 W = 26.56 kW) whose overhead splits
// 0.2 no-load and 0.3 proportional of its rating, scaled to PUE 1.5 at full load: 5,312 W fixed and 0.3 W per
// IT watt.
FacilityOverhead test_room() {
  OverheadCurve curve;
  curve.cooling = "test-room";
  curve.components.push_back({"plant", 0.2, 0.3, 0.0});
  return facility_overhead(&curve, 1.5, watts(4 * 2000 + 32 * 580));
}

// Facility energy at each interval's IT load: 8 GPUs busy in the first hour, all 32 in the second.
TEST(ReplayEnergy, FacilityEnergyFollowsEachIntervalsItLoad) {
  const std::vector<JobSpec> jobs{job("a", 0, 8, 3600), job("b", 3600, 32, 3600)};
  const ReplayEnergyMetrics flat = *run(jobs, "none", 0).result.energy;
  EXPECT_NEAR(flat.facility_kwh, (14.56 + 26.56) * 1.5, 1e-9) << "one PUE at every load without a curve";

  const FacilityOverhead overhead = test_room();
  ASSERT_TRUE(overhead.curve);
  EXPECT_NEAR(in_watts(overhead.fixed), 5312, 1e-9);
  EXPECT_NEAR(overhead.proportional, 0.3, 1e-12);
  const ReplayEnergyMetrics energy = *run(jobs, "none", 0, "fifo", overhead).result.energy;
  ASSERT_EQ(energy.intervals.size(), 2U);
  EXPECT_NEAR(energy.intervals[0].it_kwh, 14.56, 1e-9);
  EXPECT_NEAR(energy.intervals[1].it_kwh, 26.56, 1e-9);
  // Hour 1: 14.56 + 5.312 + 0.3 x 14.56 = 24.24 kWh; hour 2, at full load: 26.56 x 1.5 = 39.84 kWh. Each is
  // the interval's own, and so is its mean facility power.
  EXPECT_NEAR(energy.intervals[0].facility_kwh, 24.24, 1e-9);
  EXPECT_NEAR(energy.intervals[1].facility_kwh, 39.84, 1e-9);
  EXPECT_NEAR(energy.intervals[0].mean_facility_kw, 24.24, 1e-9);
  EXPECT_NEAR(energy.facility_kwh, 24.24 + 39.84, 1e-9);
  EXPECT_GT(energy.facility_kwh, energy.it_kwh * 1.5) << "the part-loaded hour pays the fixed overhead";
  EXPECT_NEAR(energy.pue, (24.24 + 39.84) / (14.56 + 26.56), 1e-12);
  // Job a ran in hour 1 only: its 6.64 kWh of IT energy at hour 1's 24.24 / 14.56; job b at hour 2's 1.5; the
  // idle GPUs of hour 1 (24 x 330 W) at hour 1's.
  ASSERT_EQ(energy.per_job.size(), 2U);
  EXPECT_NEAR(energy.per_job[0].facility_kwh, 6.64 * 24.24 / 14.56, 1e-9);
  EXPECT_NEAR(energy.per_job[1].facility_kwh, 26.56 * 1.5, 1e-9);
  EXPECT_NEAR(energy.idle_facility_kwh, 7.92 * 24.24 / 14.56, 1e-9);
  EXPECT_NE(energy.source.find("test-room split"), std::string::npos) << energy.source;
}

// A job across an interval boundary is charged each interval's own facility over IT energy for its part in
// it: 8 GPUs from 0:30 to 1:30 on an otherwise idle cluster. Hour 1 draws 10.56 kW for 30 min and 14.56 kW
// for 30 min (12.56 kWh; facility 12.56 + 5.312 + 0.3 x 12.56 = 21.64 kWh); the replay ends at 1:30, so hour
// 2 is 30 min at 14.56 kW (7.28 kWh; facility (14.56 + 5.312 + 4.368) / 2 = 12.12 kWh). The job's 3.32 kWh in
// each half is charged at that hour's ratio, not at the run's mean PUE (33.76 / 19.84).
TEST(ReplayEnergy, AJobAcrossIntervalsPaysEachIntervalsOwnOverhead) {
  const ReplayEnergyMetrics energy =
      *run({job("c", 1800, 8, 3600)}, "none", 0, "fifo", test_room()).result.energy;
  ASSERT_EQ(energy.intervals.size(), 2U);
  EXPECT_NEAR(energy.intervals[0].facility_kwh, 21.64, 1e-9);
  EXPECT_NEAR(energy.intervals[1].facility_kwh, 12.12, 1e-9);
  ASSERT_EQ(energy.per_job.size(), 1U);
  EXPECT_NEAR(energy.per_job[0].it_kwh, 6.64, 1e-9);
  EXPECT_NEAR(energy.per_job[0].facility_kwh, 3.32 * 21.64 / 12.56 + 3.32 * 12.12 / 7.28, 1e-9);
  EXPECT_GT(std::abs(energy.per_job[0].facility_kwh - 6.64 * energy.pue), 0.05) << "not the mean PUE";
  EXPECT_NEAR(energy.per_job[0].facility_kwh + energy.idle_facility_kwh, 33.76, 1e-9);
}

// With the curve, jobs and idle GPUs still add up to the facility total, and so do the intervals, under every
// policy (caps that change within an interval included).
TEST(ReplayEnergy, FacilityEnergyOfJobsAndIdleAddsUpToTheTotal) {
  const std::vector<JobSpec> jobs = with_low_priority(loaded_jobs());
  for (const std::string policy : {"none", "cap-all", "admit-fewer", "cap-low-priority"}) {
    const ReplayEnergyMetrics energy =
        *run(jobs, policy, policy == "none" ? 0 : 20000, "fifo", test_room()).result.energy;
    double facility = energy.idle_facility_kwh;
    for (const auto& row : energy.per_job) facility += row.facility_kwh;
    EXPECT_NEAR(facility, energy.facility_kwh, 1e-9 * energy.facility_kwh) << policy;
    double by_interval = 0;
    for (const auto& row : energy.intervals) by_interval += row.facility_kwh;
    EXPECT_NEAR(by_interval, energy.facility_kwh, 1e-9 * energy.facility_kwh) << policy;
    EXPECT_GT(energy.pue, 1.5) << policy
                               << ": a loaded but not full cluster pays more than the full-load PUE";
  }
}

TEST(ReplayEnergy, WithoutACurveTheFacilityStaysOnePueAndSaysSo) {
  FacilityOverhead flat = facility_overhead(nullptr, 1.5, watts(26560));
  flat.basis = "no overhead split for rear-door-hx";
  const ReplayEnergyMetrics energy = *run({job("a", 0, 8, 3600)}, "none", 0, "fifo", flat).result.energy;
  EXPECT_NEAR(energy.facility_kwh, 14.56 * 1.5, 1e-9);
  EXPECT_NEAR(energy.intervals[0].facility_kwh, 14.56 * 1.5, 1e-9);
  EXPECT_NEAR(energy.per_job[0].facility_kwh, 6.64 * 1.5, 1e-9);
  EXPECT_NE(energy.source.find("one PUE at every load (no overhead split for rear-door-hx)"),
            std::string::npos);
}

}  // namespace
}  // namespace gputwin
