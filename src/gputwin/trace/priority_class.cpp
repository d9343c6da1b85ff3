#include "gputwin/trace/priority_class.hpp"

#include <algorithm>

namespace gputwin {

std::vector<std::string> low_priority_classes(std::string_view format,
                                              const std::vector<std::string>& named) {
  if (!named.empty()) return named;
  if (format == "openb") return {"BE"};
  return {};
}

LowPriorityMarking mark_low_priority(std::vector<JobSpec>& jobs,
                                     const std::vector<std::string>& low_classes) {
  LowPriorityMarking marking;
  for (JobSpec& job : jobs) {
    job.low_priority =
        std::find(low_classes.begin(), low_classes.end(), job.qos) != low_classes.end() && !job.qos.empty();
    if (job.low_priority) ++marking.low_jobs;
    ++marking.classes[job.qos];
  }
  return marking;
}

std::string no_low_priority_reason(const LowPriorityMarking& marking, std::string_view format,
                                   const std::vector<std::string>& low_classes) {
  std::string classes;
  for (const auto& [name, count] : marking.classes) {
    if (name.empty()) continue;
    classes += (classes.empty() ? "" : ", ") + name + " (" + std::to_string(count) +
               (count == 1 ? " job)" : " jobs)");
  }
  if (classes.empty()) {
    return "no job of this " + std::string(format) +
           " trace carries a priority class (QOS), so there are no low-priority jobs to cap first; the "
           "openb pod list and sacct histories with a QOS column carry one";
  }
  if (low_classes.empty()) {
    return "the trace's priority classes are " + classes +
           "; none is low priority by default: name the low ones with --low-priority-qos (comma-separated)";
  }
  std::string named;
  for (const auto& name : low_classes) named += (named.empty() ? "" : ",") + name;
  return "no job has a priority class named low (" + named + "); the trace's classes are " + classes;
}

}  // namespace gputwin
