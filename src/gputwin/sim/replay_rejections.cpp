#include <fmt/format.h>

#include "gputwin/sim/replay.hpp"

namespace gputwin {
namespace {

bool skipped_by_reader(const std::string& reason) {
  return reason.rfind(kSkippedByReader, 0) == 0;
}

}  // namespace

void add_reader_skips(ReplayResult& result, const std::map<std::string, int>& skipped) {
  for (const auto& [reason, count] : skipped)
    result.rejected[std::string(kSkippedByReader) + reason] += count;
}

int jobs_never_run(const ReplayResult& result) {
  int count = 0;
  for (const auto& [reason, jobs] : result.rejected) count += skipped_by_reader(reason) ? 0 : jobs;
  return count;
}

std::optional<std::string> no_job_can_run(const ReplayResult& result) {
  if (result.jobs > 0) return std::nullopt;
  int in_trace = 0;
  std::string reasons;
  for (const auto& [reason, count] : result.rejected) {
    in_trace += count;
    reasons += fmt::format("; {} {}", count, reason);
  }
  return fmt::format("no job can run on this cluster ({} in the trace{})", in_trace, reasons);
}

}  // namespace gputwin
