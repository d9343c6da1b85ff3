// Trace records: what the simulator schedules and where (node capacities, pod and job requests), in the units
// of the traces. Every trace reader returns these; the simulator consumes them.
//
//   NodeSpec node{"node-1", 96000, 786432, 8, "V100M32"};   // 96 CPUs, 768 GiB, 8 GPUs
//   PodSpec pod;  pod.num_gpu = 1;  pod.gpu_milli = 500;     // half of one GPU (GPU sharing)
//   JobSpec job;  job.mig_profile = "1g.10gb";                // a replayed job on one MIG slice
//
// CPU is in milli-CPUs, memory in MiB, GPU shares in milli-GPUs (1000 = one whole GPU), as in the Alibaba
// traces.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gputwin {

inline constexpr int kMilliPerGpu = 1000;

struct NodeSpec {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  int gpus = 0;
  std::string gpu_model;
};

struct PodSpec {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  int num_gpu = 0;    // GPUs the pod spans
  int gpu_milli = 0;  // per GPU: 1..1000; below 1000 only with num_gpu == 1 (a share of one GPU)
  std::vector<std::string> gpu_models;  // allowed GPU models; empty = any
  double creation_time = 0;             // seconds (informational in packing mode)

  [[nodiscard]] std::int64_t total_gpu_milli() const {
    return static_cast<std::int64_t>(num_gpu) * gpu_milli;
  }
};

// Rows read from a trace, and the rows left out, counted by reason (nothing is skipped silently).
template <class Row>
struct TraceRows {
  std::vector<Row> rows;
  std::map<std::string, int> skipped;  // reason -> count
  [[nodiscard]] int skipped_total() const {
    int total = 0;
    for (const auto& [reason, count] : skipped) total += count;
    return total;
  }
};

}  // namespace gputwin

namespace gputwin {

// A job of a replayed trace: when it arrived, how long it ran, what it asked for.
struct JobSpec {
  std::string id;
  double submit_time = 0;     // seconds since the trace's first submission (readers shift to start at 0)
  double duration = 0;        // seconds it ran (or would run) once started
  double requested_time = 0;  // the user's run-time estimate in seconds (SWF field 9); 0 = unknown
  int gpus = 0;           // GPUs (or processors, for CPU traces such as SWF) it needs at once, gang-scheduled
  int gpus_per_node = 0;  // 0 = any split across nodes; otherwise the split the trace records
  std::string user;       // for fair share; empty = unknown
  std::string group;      // virtual cluster, queue or partition; empty = unknown
  std::string state;      // as recorded: completed, failed, cancelled, ... (informational)
  double recorded_wait = -1;  // the trace's own queueing delay in seconds, -1 when unknown
  std::string
      mig_profile;  // a MIG profile ("1g.10gb"): one such slice of a MIG-mode GPU instead of GPUs (gpus 0)
  // The trace's priority class as recorded (openb `qos`: LS, Guaranteed, Burstable, BE; sacct QOS); empty
  // when the trace has none. Which classes are low priority is decided after reading (mark_low_priority).
  std::string qos;
  bool low_priority = false;  // a power budget's cap-low-priority policy caps these jobs' GPUs first
};

}  // namespace gputwin
