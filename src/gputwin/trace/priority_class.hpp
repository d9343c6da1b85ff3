// Which replayed jobs are low priority: the trace's priority classes (JobSpec::qos) named low.
//
//   std::vector<std::string> low = low_priority_classes("openb", {});       // {"BE"}: the trace's best
//   effort std::vector<std::string> mine = low_priority_classes("sacct", {"scavenger", "standby"}); const
//   LowPriorityMarking marked = mark_low_priority(trace.jobs, mine);  // sets JobSpec::low_priority if
//   (marked.low_jobs == 0) std::cerr << no_low_priority_reason(marked, trace.format, mine);
//
// A power budget's cap-low-priority policy caps these jobs' GPUs first. Only the openb pod list has a class
// whose meaning says it is low: its README (clusterdata cluster-trace-gpu-v2023) calls `BE` "Best Effort",
// Kubernetes' BestEffort QoS class, the pods a node evicts first under pressure; LS (latency sensitive),
// Guaranteed and Burstable are not low. Slurm QOS names are each site's own, so a sacct history (or a job
// CSV) has no low class unless the user names them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/trace/records.hpp"

namespace gputwin {

struct LowPriorityMarking {
  int low_jobs = 0;
  std::map<std::string, int> classes;  // every class the jobs carry -> its jobs ("" = none recorded)
};

// `named` when given (the user's --low-priority-qos), else the format's own low classes (openb: BE).
[[nodiscard]] std::vector<std::string> low_priority_classes(std::string_view format,
                                                            const std::vector<std::string>& named);
// Marks every job whose qos is one of `low_classes` (exact, case-sensitive) and clears the others.
LowPriorityMarking mark_low_priority(std::vector<JobSpec>& jobs, const std::vector<std::string>& low_classes);
// Why no job is low priority, with the classes the trace has and how to name them.
[[nodiscard]] std::string no_low_priority_reason(const LowPriorityMarking& marking, std::string_view format,
                                                 const std::vector<std::string>& low_classes);

}  // namespace gputwin
