// Readers for job traces (when jobs arrived, how long they ran, how many GPUs they held), and gputwin's own
// job CSV.
//
//   Result<TraceRows<JobSpec>> philly = read_philly_jobs("pollux-osdi21/traces/philly.csv");
//   Result<SwfTrace> kth = read_swf("KTH-SP2-1996-2.1-cln.swf");   // kth.value().max_procs == 100
//   Result<TraceRows<JobSpec>> venus = read_helios_jobs("Venus/cluster_log.csv");
//   Result<TraceRows<JobSpec>> mine = read_job_csv("jobs.csv");     // format: docs/jobs-format.md
//   write_job_csv(philly.value().rows, std::cout);                  // converts any trace to that format
//
// Every reader returns the jobs sorted by submit time, ties kept in file order. The three foreign-trace
// readers shift submit times so the first kept job arrives at 0; read_job_csv keeps the times as written,
// since they are already trace-relative. A malformed row (wrong number of fields, a value that is not a
// number or a date) fails the whole read with file:line and the column; a well-formed record the simulator
// cannot replay (unknown run time, negative GPUs) is left out and counted by reason in TraceRows::skipped.
// Each parse_X(text, name) reads text in memory and names it `name` in errors.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

// Philly-derived trace of the Pollux artifact: timestamp,duration,num_gpus,gpu_time,cluster. The file has no
// job id, so a job's id is the line it came from; group is the cluster column (a Philly virtual cluster).
[[nodiscard]] Result<TraceRows<JobSpec>> read_philly_jobs(const std::string& path);
[[nodiscard]] Result<TraceRows<JobSpec>> parse_philly_jobs(const std::string& text, const std::string& name);

// A Standard Workload Format log (Parallel Workloads Archive) with the machine size its header states.
struct SwfTrace {
  TraceRows<JobSpec> jobs;
  int max_procs = 0;  // from "; MaxProcs:", 0 when the header does not say
  int max_nodes = 0;  // from "; MaxNodes:", 0 when the header does not say
};
[[nodiscard]] Result<SwfTrace> read_swf(const std::string& path);
[[nodiscard]] Result<SwfTrace> parse_swf(const std::string& text, const std::string& name);

// Helios (SenseTime, SC'21) cluster_log.csv, columns found by name:
//   job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
// CPU-only jobs are kept with gpus = 0: whether to replay them is the simulator's choice.
[[nodiscard]] Result<TraceRows<JobSpec>> read_helios_jobs(const std::string& path);
[[nodiscard]] Result<TraceRows<JobSpec>> parse_helios_jobs(const std::string& text, const std::string& name);

// gputwin's job CSV (docs/jobs-format.md): id,submit_time,duration,gpus and optional columns by header name.
// Unlike the foreign readers, any bad value is an error: this format is written by us or by hand, not
// replayed as found. A mig_profile must look like a profile name ("1g.10gb"); when `known_mig_profiles` is
// not empty (the profiles of the replay's MIG-mode GPUs) it must also be one of them.
[[nodiscard]] Result<TraceRows<JobSpec>> read_job_csv(
    const std::string& path, const std::vector<std::string>& known_mig_profiles = {});
[[nodiscard]] Result<TraceRows<JobSpec>> parse_job_csv(
    const std::string& text, const std::string& name,
    const std::vector<std::string>& known_mig_profiles = {});
// Sorts by submit time (ties in file order), then moves the clock so the first job arrives at 0: what every
// reader of a foreign trace does before returning.
void order_from_first_submit(std::vector<JobSpec>& jobs);

// Writes every column, numbers in shortest round-trip form, so read_job_csv gives back the same jobs; the
// mig_profile column only when some job asks for a MIG slice, the qos column only when some job has a
// priority class. Text fields may hold commas and quotes (they are quoted) but not line breaks.
void write_job_csv(const std::vector<JobSpec>& jobs, std::ostream& out);

}  // namespace gputwin
