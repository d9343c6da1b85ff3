// The open replay engine: rates, interruptions (lazy cancellation of completions), nodes down and up, the
// failure-model seam, and observers. Small cases whose times follow by hand.
#include "gputwin/sim/replay_engine.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/sim/sim_test_support.hpp"

namespace gputwin {
namespace {

using testing::every;
using testing::job;

// Counts the job events an engine reports, and checks that spans tile time with no gap and no overlap.
class Recorder final : public ReplayObserver {
 public:
  void on_span(const ReplaySpan& span) override {
    EXPECT_EQ(span.from, end) << "a span must start where the last one ended";
    EXPECT_GT(span.to, span.from);
    end = span.to;
    busy_gpu_seconds += span.whole.busy * (span.to - span.from);
    ++spans;
  }
  void on_submit(int /*job*/, double time) override {
    ++submits;
    last_arrival = time;
    busy_at_last_arrival = busy_gpu_seconds;
  }
  void on_start(int /*job*/, double /*time*/) override { ++starts; }
  void on_finish(int /*job*/, double /*time*/) override { ++finishes; }
  void on_interrupt(int /*job*/, double /*time*/, bool /*requeued*/) override { ++interrupts; }

  double end = 0;
  double busy_gpu_seconds = 0;
  double busy_at_last_arrival = 0;
  double last_arrival = 0;
  int spans = 0;
  int submits = 0;
  int starts = 0;
  int finishes = 0;
  int interrupts = 0;
};

TEST(ReplayEngine, HalvedRateFinishesAtTheDerivedLaterTime) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100), job("b", 0, 4, 10)};  // b waits for a's GPUs
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 4), std::nullopt, *fifo, every(10));
  engine.run_until(40);
  EXPECT_DOUBLE_EQ(engine.job_run(0).completion_time(), 100);
  engine.set_rate(0, 0.5);
  EXPECT_DOUBLE_EQ(engine.job_run(0).remaining_work, 60);
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 160);    // 40 s at rate 1, then 60 s of work at half speed
  EXPECT_DOUBLE_EQ(result.outcomes[1].start, 160);  // the completion queued for t = 100 was stale
  EXPECT_DOUBLE_EQ(result.outcomes[1].end, 170);
  EXPECT_EQ(result.completed, 2);
}

TEST(ReplayEngine, RatesMustBePositiveAndJobsRunning) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100), job("b", 0, 4, 10)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 4), std::nullopt, *fifo, every(10));
  engine.run_until(1);
  EXPECT_THROW(engine.set_rate(0, 0), std::invalid_argument);
  EXPECT_THROW(engine.set_rate(1, 2), std::invalid_argument);  // b is waiting
  EXPECT_THROW(engine.interrupt(1, InterruptAction::end), std::invalid_argument);
}

TEST(ReplayEngine, InterruptedJobsStaleCompletionIsSkipped) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100), job("b", 0, 4, 10)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 4), std::nullopt, *fifo, every(10));
  Recorder recorder;
  engine.add_observer(recorder);
  engine.run_until(30);
  engine.interrupt(0, InterruptAction::requeue);  // no checkpoints: a starts again from nothing, ahead of b
  EXPECT_EQ(engine.job_run(0).starts, 2);
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].start, 0);    // waits are measured to the first start
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 130);    // restarted at 30 with all 100 s to do
  EXPECT_DOUBLE_EQ(result.outcomes[1].start, 130);  // not 100: a's first completion was skipped
  EXPECT_EQ(result.completed, 2);
  EXPECT_EQ(result.interruptions, 1);
  EXPECT_EQ(recorder.finishes, 2);  // each job finished once
  EXPECT_EQ(recorder.starts, 3);
  EXPECT_EQ(recorder.interrupts, 1);
}

TEST(ReplayEngine, AnEndedJobFreesItsGpusAndIsNotCompleted) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100), job("b", 0, 4, 10)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 4), std::nullopt, *fifo, every(10));
  engine.run_until(30);
  engine.interrupt(0, InterruptAction::end);
  EXPECT_EQ(engine.job_run(0).state, JobRunState::ended);
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 30);
  EXPECT_DOUBLE_EQ(result.outcomes[1].start, 30);
  EXPECT_DOUBLE_EQ(result.makespan, 40);
  EXPECT_EQ(result.completed, 1);
}

TEST(ReplayEngine, AnInterruptedSliceJobGoesToTheEndOfTheMigQueue) {
  std::vector<JobSpec> jobs{job("a", 0, 0, 100), job("b", 0, 0, 10)};
  for (auto& spec : jobs) spec.mig_profile = "7g.80gb";  // a whole A100-80GB each: b waits for a
  const auto fifo = make_queue_policy("fifo");
  const auto& set = testing::bundled_catalog().get<MigProfileSet>("a100-80gb");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 8), MigPool(set, 1), *fifo, every(10));
  engine.run_until(30);
  engine.interrupt(0, InterruptAction::requeue);
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[1].start, 30);  // b was next in the MIG queue
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 140);   // a again from nothing after b
  EXPECT_EQ(result.completed, 2);
  ASSERT_TRUE(result.mig);
  EXPECT_EQ(result.mig->completed, 2);
}

TEST(GpuPool, NodeDownNamesItsOwnersAndComesBack) {
  GpuPool pool = GpuPool::uniform(2, 4);
  const auto a = pool.allocate(4, 0, 7);  // node 0 (lowest index among equally free nodes)
  const auto b = pool.allocate(2, 0, 3);  // node 1
  const auto c = pool.allocate(1, 0, 5);  // node 1, the fullest that fits
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(c->parts.front().first, 1);
  EXPECT_EQ(pool.set_node_down(1), (std::vector<int>{3, 5}));
  EXPECT_TRUE(pool.node_down(1));
  EXPECT_EQ(pool.free_gpus(), 0);  // node 1's idle GPU is out of service
  EXPECT_EQ(pool.down_gpus(), 4);
  EXPECT_TRUE(pool.set_node_down(1).empty());  // already down
  pool.release(*b);
  pool.release(*c);
  EXPECT_EQ(pool.free_gpus(), 0);        // released on a down node: still out of service
  EXPECT_FALSE(pool.allocate(1, 0, 9));  // nothing placeable
  pool.set_node_up(1);
  EXPECT_EQ(pool.free_gpus(), 4);
  EXPECT_EQ(pool.stranded_gpus(), 0);  // node 1 is whole and free again
  EXPECT_EQ(pool.set_node_down(0), (std::vector<int>{7}));
}

TEST(ReplayEngine, ANodeTakenDownRequeuesItsJobsUntilItComesBack) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100), job("b", 0, 2, 100), job("c", 0, 1, 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(2, 4), std::nullopt, *fifo, every(10));
  engine.run_until(10);
  EXPECT_EQ(engine.set_node_down(1), (std::vector<int>{1, 2}));  // b and c ran on node 1; a on node 0
  EXPECT_EQ(engine.job_run(0).state, JobRunState::running);
  engine.run_until(50);
  EXPECT_EQ(engine.job_run(1).state, JobRunState::waiting);  // no GPU in service for them
  engine.set_node_up(1);
  EXPECT_EQ(engine.job_run(1).state, JobRunState::running);
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 100);
  EXPECT_DOUBLE_EQ(result.outcomes[1].end, 150);
  EXPECT_DOUBLE_EQ(result.outcomes[2].end, 150);
  EXPECT_EQ(result.interruptions, 2);
}

// Node 1 goes down at t = 10 and comes back at t = 50: the same as the calls above, from a model.
TEST(ReplayEngine, AFailureModelTakesNodesDownAndBringsThemBack) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100), job("b", 0, 2, 100), job("c", 0, 1, 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayModels models;
  models.failures = std::make_unique<testing::ScriptedFailures>(
      std::vector<NodeEvent>{{10, 1, false, "", false, false}, {50, 1, true, "", false, false}});
  ReplayEngine engine(jobs, GpuPool::uniform(2, 4), std::nullopt, *fifo, every(10), std::move(models));
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[1].end, 150);
  EXPECT_DOUBLE_EQ(result.outcomes[2].end, 150);
  EXPECT_EQ(result.interruptions, 2);
  EXPECT_EQ(result.completed, 3);
}

TEST(ReplayEngine, ModelsAreChosenByName) {
  EXPECT_EQ(make_failure_model("none")->name(), "none");
  EXPECT_FALSE(make_failure_model("none")->next_event(0));
  EXPECT_DOUBLE_EQ(make_checkpoint_policy("none")->work_kept(job("a", 0, 1, 10), 5), 0);
  try {
    (void)make_failure_model("weibull");
    FAIL() << "an unknown failure model must be refused";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("known: none"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)make_checkpoint_policy("young"), std::invalid_argument);
}

TEST(ReplayEngine, ObserversSeeEverySpanOnceAndTheirIntegralsAreTheSummarys) {
  std::vector<JobSpec> jobs;
  for (int j = 0; j < 40; ++j)
    jobs.push_back(job("j" + std::to_string(j), 7.0 * j, 1 + (j * 5) % 8, 30.0 + (j * 37) % 90));
  const auto easy = make_queue_policy("easy");
  ReplayEngine engine(jobs, GpuPool::uniform(2, 8), std::nullopt, *easy, every(25));
  Recorder recorder;
  engine.add_observer(recorder);
  const ReplayResult result = engine.run();
  ASSERT_EQ(result.completed, 40);
  EXPECT_EQ(recorder.submits, 40);
  EXPECT_EQ(recorder.starts, 40);
  EXPECT_EQ(recorder.finishes, 40);
  EXPECT_DOUBLE_EQ(recorder.end, result.makespan);  // spans tile [0, makespan]
  double asked = 0;  // every job's GPU-seconds: what the busy GPUs must integrate to
  for (const auto& spec : jobs) asked += spec.gpus * spec.duration;
  EXPECT_DOUBLE_EQ(recorder.busy_gpu_seconds, asked);
  const double window = result.last_arrival - result.first_arrival;
  ASSERT_TRUE(result.window_utilisation);
  EXPECT_DOUBLE_EQ(*result.window_utilisation, recorder.busy_at_last_arrival / (window * 16));
  EXPECT_DOUBLE_EQ(result.drain_gpu_hours,
                   (recorder.busy_gpu_seconds - recorder.busy_at_last_arrival) / 3600);
  double rows = 0;
  for (const auto& row : result.intervals) rows += row.utilisation * 25 * 16;
  EXPECT_NEAR(rows, asked, 1e-9 * asked);
}

}  // namespace
}  // namespace gputwin
