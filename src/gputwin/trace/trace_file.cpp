#include "gputwin/trace/trace_file.hpp"

#include <fstream>

#include "gputwin/trace/job_traces.hpp"
#include "gputwin/trace/openb.hpp"
#include "gputwin/trace/sacct.hpp"

namespace gputwin {
namespace {

std::string detect_format(const std::string& path) {
  if (path.size() > 4 && path.substr(path.size() - 4) == ".swf") return "swf";
  std::ifstream stream(path);
  std::string header;
  while (header.find_first_not_of(" \t\r") == std::string::npos && std::getline(stream, header)) {
  }
  if (header.rfind("timestamp,duration,num_gpus", 0) == 0) return "philly";
  if (header.find("jobname") != std::string::npos || header.find("gpu_num") != std::string::npos)
    return "helios";
  if (header.rfind("id,submit_time", 0) == 0) return "jobs";
  if (header.rfind("name,cpu_milli,memory_mib,num_gpu,gpu_milli", 0) == 0) return "openb";
  if (header.rfind("JobID|", 0) == 0 || header.find_first_of('{') != std::string::npos) return "sacct";
  if (is_sacct_table_header(header)) return "sacct";  // refused by the reader with a hint
  return "";
}

// A trace with no job to replay is an error, not an empty result: say whether it had none or all were left
// out.
Result<LoadedTrace> with_jobs(const std::string& path, LoadedTrace trace) {
  if (!trace.jobs.empty()) return trace;
  if (trace.skipped.empty()) {
    return InputError{
        {path, 0, 0}, "", "no jobs to replay: the file holds no job records (read as " + trace.format + ")"};
  }
  std::string reasons;
  int total = 0;
  for (const auto& [reason, count] : trace.skipped) {
    reasons += (reasons.empty() ? "" : ", ") + std::to_string(count) + " " + reason;
    total += count;
  }
  return InputError{
      {path, 0, 0},
      "",
      "no jobs to replay: all " + std::to_string(total) + " records were left out (" + reasons + ")"};
}

}  // namespace

std::vector<std::string> trace_formats() {
  return {"philly", "swf", "helios", "jobs", "sacct", "openb"};
}

Result<LoadedTrace> read_trace(const std::string& path, const std::string& format,
                               const std::vector<std::string>& mig_profiles) {
  const std::string chosen = format == "auto" ? detect_format(path) : format;
  const auto with_skipped = [&](Result<TraceRows<JobSpec>> rows) -> Result<LoadedTrace> {
    if (!rows.ok()) return rows.errors();
    TraceRows<JobSpec> value = std::move(rows).value();
    return with_jobs(path, LoadedTrace{chosen, std::move(value.rows), std::move(value.skipped), 0});
  };
  if (chosen == "philly") return with_skipped(read_philly_jobs(path));
  if (chosen == "helios") return with_skipped(read_helios_jobs(path));
  if (chosen == "jobs") return with_skipped(read_job_csv(path, mig_profiles));
  if (chosen == "sacct") return with_skipped(read_sacct(path));
  if (chosen == "openb") return with_skipped(read_openb_jobs(path));
  if (chosen == "swf") {
    auto swf = read_swf(path);
    if (!swf.ok()) return swf.errors();
    SwfTrace value = std::move(swf).value();
    return with_jobs(path, LoadedTrace{chosen, std::move(value.jobs.rows), std::move(value.jobs.skipped),
                                       value.max_procs});
  }
  return InputError{
      {path, 0, 0}, "", "cannot tell the trace format; give it: philly, swf, helios, jobs, sacct or openb"};
}

}  // namespace gputwin
