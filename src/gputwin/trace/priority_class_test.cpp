// Priority classes: the openb pod list read as jobs with its qos, and which classes are low.
#include "gputwin/trace/priority_class.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gputwin/trace/openb.hpp"
#include "gputwin/trace/trace_file.hpp"

namespace gputwin {
namespace {

const std::string kPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
    "scheduled_time\n"
    "openb-pod-0017,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497\n"
    "openb-pod-0022,4000,15258,1,220,,BE,Running,9679175,9973826,9679175\n"
    "openb-pod-0035,16000,32768,1,1000,V100M16|V100M32,LS,Running,9967058,9968575,9967063\n"
    "openb-pod-0040,8000,16384,2,1000,,BE,Failed,9437500,9440000,9437600\n"
    "openb-pod-0041,8000,16384,1,1000,,BE,Pending,9437501,,\n"
    "openb-pod-0042,8000,16384,0,0,,LS,Running,9437502,9440000,9437502\n";

TEST(OpenbJobs, PodsBecomeJobsWithTheirQosAndTimes) {
  const auto read = parse_openb_jobs(kPods, "pods.csv");
  ASSERT_TRUE(read.ok()) << read.error_text();
  const auto& jobs = read.value().rows;
  ASSERT_EQ(jobs.size(), 4U);  // sorted by creation, the first at 0
  EXPECT_EQ(jobs[0].id, "openb-pod-0017");
  EXPECT_EQ(jobs[0].submit_time, 0);
  EXPECT_EQ(jobs[0].duration, 10769854 - 9437497);
  EXPECT_EQ(jobs[0].gpus, 8);
  EXPECT_EQ(jobs[0].gpus_per_node, 8);  // a pod runs on one node
  EXPECT_EQ(jobs[0].qos, "Burstable");
  EXPECT_EQ(jobs[0].state, "succeeded");
  EXPECT_EQ(jobs[1].id, "openb-pod-0040");
  EXPECT_EQ(jobs[1].submit_time, 3);
  EXPECT_EQ(jobs[1].recorded_wait, 100);
  EXPECT_EQ(jobs[1].qos, "BE");
  EXPECT_EQ(jobs[2].gpus, 0);  // CPU-only pods are kept; the replay rejects and counts them
  EXPECT_EQ(jobs[3].id, "openb-pod-0035");
  EXPECT_EQ(jobs[3].recorded_wait, 5);
  EXPECT_EQ(read.value().skipped.at("shares one GPU (gpu_milli below 1000; the replay gives whole GPUs)"), 1);
  EXPECT_EQ(read.value().skipped.at("never scheduled (no scheduled_time)"), 1);
}

TEST(OpenbJobs, AMissingTimeColumnNamesIt) {
  const auto read =
      parse_openb_jobs("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,1,1000\n", "five.csv");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error_text().find("five.csv"), std::string::npos) << read.error_text();
  EXPECT_NE(read.error_text().find("creation_time"), std::string::npos) << read.error_text();
}

TEST(OpenbJobs, ReadTraceTellsThePodListApart) {
  const auto path = std::filesystem::temp_directory_path() / "gputwin-priority-class-test-pods.csv";
  std::ofstream(path) << kPods;
  const auto trace = read_trace(path.string());
  ASSERT_TRUE(trace.ok()) << trace.error_text();
  EXPECT_EQ(trace.value().format, "openb");
  EXPECT_EQ(trace.value().jobs.size(), 4U);
}

TEST(OpenbJobs, TheRealDefaultPodListReadsWithEveryQosClass) {
  const std::string path =
      std::string(GPUTWIN_SHARED_DIR) + "/traces/alibaba-gpu-v2023/csv/openb_pod_list_default.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "the shared openb trace is absent: " << path;
  auto read = read_openb_jobs(path);
  ASSERT_TRUE(read.ok()) << read.error_text();
  TraceRows<JobSpec> trace = std::move(read).value();
  const LowPriorityMarking marking = mark_low_priority(trace.rows, low_priority_classes("openb", {}));
  EXPECT_GT(marking.low_jobs, 0);
  EXPECT_EQ(marking.classes.count("BE"), 1U);
  EXPECT_EQ(marking.classes.count("LS"), 1U);
  EXPECT_EQ(marking.low_jobs, marking.classes.at("BE"));
  int total = 0;
  for (const auto& [name, count] : marking.classes) total += count;
  EXPECT_EQ(total + trace.skipped_total(), 8152);  // every pod of the README's count accounted for
}

TEST(PriorityClass, OpenbBestEffortIsLowByDefaultOthersNeedNaming) {
  EXPECT_EQ(low_priority_classes("openb", {}), std::vector<std::string>{"BE"});
  EXPECT_TRUE(low_priority_classes("sacct", {}).empty());
  EXPECT_TRUE(low_priority_classes("jobs", {}).empty());
  EXPECT_EQ(low_priority_classes("openb", {"Burstable"}), std::vector<std::string>{"Burstable"});
}

TEST(PriorityClass, MarksTheNamedClassesAndSaysWhyWhenNoneIs) {
  std::vector<JobSpec> jobs(4);
  jobs[0].qos = "normal";
  jobs[1].qos = "scavenger";
  jobs[2].qos = "normal";
  jobs[3].low_priority = true;  // no class: cleared
  LowPriorityMarking marking = mark_low_priority(jobs, {"scavenger", "standby"});
  EXPECT_EQ(marking.low_jobs, 1);
  EXPECT_FALSE(jobs[0].low_priority);
  EXPECT_TRUE(jobs[1].low_priority);
  EXPECT_FALSE(jobs[3].low_priority);
  EXPECT_EQ(marking.classes.at("normal"), 2);

  marking = mark_low_priority(jobs, {});
  EXPECT_EQ(marking.low_jobs, 0);
  const std::string unnamed = no_low_priority_reason(marking, "sacct", {});
  EXPECT_NE(unnamed.find("normal (2 jobs), scavenger (1 job)"), std::string::npos) << unnamed;
  EXPECT_NE(unnamed.find("--low-priority-qos"), std::string::npos) << unnamed;
  marking = mark_low_priority(jobs, {"standby"});
  EXPECT_NE(no_low_priority_reason(marking, "sacct", {"standby"}).find("(standby)"), std::string::npos);

  std::vector<JobSpec> plain(2);
  marking = mark_low_priority(plain, {"BE"});
  EXPECT_NE(no_low_priority_reason(marking, "philly", {}).find("carries a priority class"),
            std::string::npos);
}

}  // namespace
}  // namespace gputwin
