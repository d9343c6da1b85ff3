// Any job trace gputwin reads, by format name or told from its content: one entry point for `simulate replay`
// and `sweep`.
//
//   Result<LoadedTrace> trace = read_trace("philly.csv");            // format "auto"
//   Result<LoadedTrace> mine = read_trace("jobs.csv", "jobs", {"1g.10gb", ...});
//
// Formats: philly, swf, helios, jobs (docs/jobs-format.md), sacct (docs/sacct-import.md), openb (the Alibaba
// pod list, read_openb_jobs). "auto" tells them
// apart: SWF by the .swf extension, CSVs by their header, sacct by its "JobID|" header or a JSON document
// (sacct's padded table output is recognised and refused with a hint to use --parsable2 or --json). A trace
// with no job left to replay (a header only, or every record skipped) is an error naming the file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct LoadedTrace {
  std::string format;
  std::vector<JobSpec> jobs;
  std::map<std::string, int> skipped;  // reason -> records the reader left out
  int swf_max_procs = 0;               // the machine size an SWF header states; 0 otherwise
};

[[nodiscard]] std::vector<std::string> trace_formats();  // the names read_trace accepts, without "auto"
// `mig_profiles`: the profiles a job CSV's mig_profile may name (empty = any well-formed name).
[[nodiscard]] Result<LoadedTrace> read_trace(const std::string& path, const std::string& format = "auto",
                                             const std::vector<std::string>& mig_profiles = {});

}  // namespace gputwin
