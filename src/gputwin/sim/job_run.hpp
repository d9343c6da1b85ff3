// A job's life in a replay as the engine keeps it: where it is (pending, waiting, running, done) and, while
// it runs, the work it has left and the rate at which it does it. Its completion time is derived, never
// stored, so a rate change or an interruption only has to bump the generation: the completion queued before
// is then stale and skipped when it comes up (lazy cancellation).
//
//   JobRun run;                          // remaining_work = the job's duration when it is accepted
//   run.start(now);                      // rate 1, generation + 1
//   double end = run.completion_time();  // since + remaining_work / rate
//   run.set_rate(now2, 0.5);             // work done so far is booked, generation + 1
//   Completion{end, job, generation}     // stale once run.generation != generation
//
// A restart after an interruption costs wall time before any work is done (pending_restart, paid first by
// advance()); the wall time a job held its GPUs is booked in busy_seconds at each stop, so summaries count
// what really ran, not the trace's duration.
#pragma once

#include <cstdint>

namespace gputwin {

enum class JobRunState : std::uint8_t {
  pending,  // not arrived yet, or rejected
  waiting,  // in the queue (first arrival or requeued after an interruption)
  running,
  finished,  // all its work done
  ended,     // interrupted and not requeued
};

struct JobRun {
  JobRunState state = JobRunState::pending;
  double remaining_work = 0;     // seconds of work at rate 1 still to do, as of `since`
  double rate = 1;               // work per second while running (1 = as recorded in the trace)
  double since = 0;              // when remaining_work was last brought up to date
  double work_at_start = 0;      // remaining_work when it last started: what an interruption can lose
  std::uint32_t generation = 0;  // bumped whenever its queued completion no longer holds
  int starts = 0;                // 1 + the restarts after interruptions
  double pending_restart = 0;    // wall seconds of restart still to pay (at no work) before work resumes
  double restart_at_start = 0;   // pending_restart when it last started
  double started_at = 0;         // when it last started
  double busy_seconds = 0;       // wall seconds it held its GPUs, booked at each stop
  bool as_recorded = true;       // one run at rate 1 from start to end: it held its GPUs exactly `duration`

  [[nodiscard]] double completion_time() const { return since + pending_restart + remaining_work / rate; }
  // Books the restart paid and the work done since `since` at the current rate.
  void advance(double now) {
    double elapsed = now - since;
    if (pending_restart > 0) {
      const double paid = elapsed < pending_restart ? elapsed : pending_restart;
      pending_restart -= paid;
      elapsed -= paid;
    }
    remaining_work -= elapsed * rate;
    since = now;
  }
  // Starts (again) at `new_rate`, paying `restart` wall seconds first.
  void start(double now, double new_rate = 1, double restart = 0) {
    state = JobRunState::running;
    rate = new_rate;
    pending_restart = restart;
    restart_at_start = restart;
    since = now;
    started_at = now;
    work_at_start = remaining_work;
    ++generation;
    ++starts;
    if (new_rate != 1 || restart > 0 || starts > 1) as_recorded = false;
  }
  void set_rate(double now, double new_rate) {
    advance(now);
    rate = new_rate;
    as_recorded = false;
    ++generation;
  }
};

// An entry of the completion queue; stale when the job's generation has moved on since it was queued.
struct Completion {
  double time;
  int job;
  std::uint32_t generation;
  bool operator>(const Completion& other) const {
    return time != other.time ? time > other.time : job > other.job;  // ties by job index: deterministic
  }
};

}  // namespace gputwin
