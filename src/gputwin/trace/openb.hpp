// Readers for the Alibaba "openb" GPU cluster trace (clusterdata cluster-trace-gpu-v2023), used by the FGD
// paper.
//
//   Result<TraceRows<NodeSpec>> nodes = read_openb_nodes("openb_node_list_gpu_node.csv");
//   Result<TraceRows<PodSpec>> pods = read_openb_pods("openb_pod_list_default.csv");
//
// Nodes: sn,cpu_milli,memory_mib,gpu,model. Pods: the 11-column file
// (name,cpu_milli,memory_mib,num_gpu,gpu_milli,
// gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time) or its 5-column form (name,cpu_milli,
// memory_mib,num_gpu,gpu_milli); columns are found by header name. gpu_spec lists allowed models split by
// '|'.
#pragma once

#include <string>

#include "gputwin/core/error.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

// The 11-column pod list as jobs to replay (`simulate replay --format openb`): submit at creation_time, run
// from scheduled_time to deletion_time on num_gpu GPUs of one node, recorded wait scheduled - creation, the
// pod's qos (LS, Guaranteed, Burstable, BE) kept as the job's priority class. Pods that share a GPU
// (gpu_milli below 1000), were never scheduled, or have no deletion time are skipped and counted; CPU-only
// pods are kept with 0 GPUs (the replay rejects and counts them).
[[nodiscard]] Result<TraceRows<JobSpec>> read_openb_jobs(const std::string& path);
[[nodiscard]] Result<TraceRows<JobSpec>> parse_openb_jobs(const std::string& text, const std::string& name);
[[nodiscard]] Result<TraceRows<NodeSpec>> read_openb_nodes(const std::string& path);
[[nodiscard]] Result<TraceRows<PodSpec>> read_openb_pods(const std::string& path);
[[nodiscard]] Result<TraceRows<NodeSpec>> parse_openb_nodes(const std::string& text, const std::string& name);
[[nodiscard]] Result<TraceRows<PodSpec>> parse_openb_pods(const std::string& text, const std::string& name);

}  // namespace gputwin
