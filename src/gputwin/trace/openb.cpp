#include "gputwin/trace/openb.hpp"

#include <algorithm>
#include <cctype>

#include "gputwin/trace/csv_reader.hpp"
#include "gputwin/trace/job_traces.hpp"

namespace gputwin {
namespace {

TraceRows<NodeSpec> nodes_from(CsvReader csv) {
  const int name = csv.column("sn");
  const int cpu = csv.column("cpu_milli");
  const int memory = csv.column("memory_mib");
  const int gpus = csv.column("gpu");
  const int model = csv.column("model");
  TraceRows<NodeSpec> result;
  while (auto row = csv.next()) {
    NodeSpec node{row->text(name), row->integer(cpu), row->integer(memory),
                  static_cast<int>(row->integer(gpus)), row->text(model)};
    if (node.cpu_milli < 0) row->fail(cpu, "must not be negative");
    if (node.memory_mib < 0) row->fail(memory, "must not be negative");
    if (node.gpus < 0) row->fail(gpus, "must not be negative");
    if (node.gpus > 0 && node.gpu_model.empty()) row->fail(model, "a node with GPUs needs a GPU model");
    result.rows.push_back(std::move(node));
  }
  return result;
}

std::vector<std::string> split_models(const std::string& spec) {
  std::vector<std::string> models;
  std::size_t start = 0;
  while (start <= spec.size() && !spec.empty()) {
    const std::size_t bar = spec.find('|', start);
    const std::string model = spec.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    if (!model.empty()) models.push_back(model);
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return models;
}

TraceRows<PodSpec> pods_from(CsvReader csv) {
  const int name = csv.column("name");
  const int cpu = csv.column("cpu_milli");
  const int memory = csv.column("memory_mib");
  const int num_gpu = csv.column("num_gpu");
  const int gpu_milli = csv.column("gpu_milli");
  const int gpu_spec = csv.optional_column("gpu_spec");
  const int creation = csv.optional_column("creation_time");
  TraceRows<PodSpec> result;
  while (auto row = csv.next()) {
    PodSpec pod;
    pod.name = row->text(name);
    pod.cpu_milli = row->integer(cpu);
    pod.memory_mib = row->integer(memory);
    pod.num_gpu = static_cast<int>(row->integer(num_gpu));
    pod.gpu_milli = static_cast<int>(row->integer(gpu_milli));
    if (gpu_spec >= 0) pod.gpu_models = split_models(row->text(gpu_spec));
    if (creation >= 0 && !row->empty(creation)) pod.creation_time = row->number(creation);
    if (pod.cpu_milli < 0 || pod.memory_mib < 0 || pod.num_gpu < 0 || pod.gpu_milli < 0) {
      ++result.skipped["negative request"];
      continue;
    }
    if (pod.num_gpu > 0 && pod.gpu_milli == 0) {
      ++result.skipped["gpu_milli 0 on a GPU pod"];
      continue;
    }
    if (pod.num_gpu > 0 && pod.gpu_milli > kMilliPerGpu)
      pod.gpu_milli = kMilliPerGpu;  // as the reference converts
    if (pod.num_gpu > 1 && pod.gpu_milli < kMilliPerGpu) {
      ++result.skipped["GPU share below one GPU on a multi-GPU pod"];
      continue;
    }
    if (pod.num_gpu == 0) {  // CPU-only: no GPU share and no GPU model constraint
      pod.gpu_milli = 0;
      pod.gpu_models.clear();
    }
    result.rows.push_back(std::move(pod));
  }
  return result;
}

// A pod as a job to replay: it arrived at creation_time, waited until scheduled_time and held its GPUs until
// deletion_time. A pod runs on one node, so its GPUs are one node's.
TraceRows<JobSpec> jobs_from(CsvReader csv) {
  const int name = csv.column("name");
  const int num_gpu = csv.column("num_gpu");
  const int gpu_milli = csv.column("gpu_milli");
  const int qos = csv.optional_column("qos");
  const int phase = csv.optional_column("pod_phase");
  const int creation = csv.column("creation_time");
  const int deletion = csv.column("deletion_time");
  const int scheduled = csv.column("scheduled_time");
  TraceRows<JobSpec> result;
  while (auto row = csv.next()) {
    const auto gpus = static_cast<int>(row->integer(num_gpu));
    if (gpus < 0) row->fail(num_gpu, "must not be negative");
    if (gpus > 0 && row->integer(gpu_milli) < kMilliPerGpu) {
      ++result.skipped["shares one GPU (gpu_milli below 1000; the replay gives whole GPUs)"];
      continue;
    }
    if (row->empty(scheduled)) {
      ++result.skipped["never scheduled (no scheduled_time)"];
      continue;
    }
    if (row->empty(deletion)) {
      ++result.skipped["no deletion_time"];
      continue;
    }
    JobSpec job;
    job.id = row->text(name);
    job.submit_time = row->number(creation);
    const double start = row->number(scheduled);
    const double end = row->number(deletion);
    if (end < start || start < job.submit_time) {
      ++result.skipped["times out of order (deletion before scheduling, or scheduling before creation)"];
      continue;
    }
    job.duration = end - start;
    job.recorded_wait = start - job.submit_time;
    job.gpus = gpus;
    job.gpus_per_node = gpus;
    if (qos >= 0) job.qos = row->text(qos);
    if (phase >= 0) {
      job.state = row->text(phase);
      std::transform(job.state.begin(), job.state.end(), job.state.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
    result.rows.push_back(std::move(job));
  }
  order_from_first_submit(result.rows);
  return result;
}

}  // namespace

Result<TraceRows<JobSpec>> read_openb_jobs(const std::string& path) {
  return result_of<TraceRows<JobSpec>>([&] { return jobs_from(CsvReader::open(path)); });
}
Result<TraceRows<JobSpec>> parse_openb_jobs(const std::string& text, const std::string& name) {
  return result_of<TraceRows<JobSpec>>([&] { return jobs_from(CsvReader::parse(text, name)); });
}

Result<TraceRows<NodeSpec>> read_openb_nodes(const std::string& path) {
  return result_of<TraceRows<NodeSpec>>([&] { return nodes_from(CsvReader::open(path)); });
}
Result<TraceRows<PodSpec>> read_openb_pods(const std::string& path) {
  return result_of<TraceRows<PodSpec>>([&] { return pods_from(CsvReader::open(path)); });
}
Result<TraceRows<NodeSpec>> parse_openb_nodes(const std::string& text, const std::string& name) {
  return result_of<TraceRows<NodeSpec>>([&] { return nodes_from(CsvReader::parse(text, name)); });
}
Result<TraceRows<PodSpec>> parse_openb_pods(const std::string& text, const std::string& name) {
  return result_of<TraceRows<PodSpec>>([&] { return pods_from(CsvReader::parse(text, name)); });
}

}  // namespace gputwin
