#include "gputwin/sim/fragmentation.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace gputwin {
namespace {

std::string joined(const std::vector<std::string>& models) {
  std::string text;
  for (const auto& model : models) text += (text.empty() ? "" : "|") + model;
  return text;
}

bool accessible(const TypicalPod& pod, const std::string& model) {
  if (pod.gpu_models.empty()) return true;
  return !model.empty() && std::find(pod.gpu_models.begin(), pod.gpu_models.end(), model) != pod.gpu_models.end();
}

}  // namespace

TypicalPods typical_pods(const std::vector<PodSpec>& pods, double popularity_percent, bool include_cpu_only) {
  using Key = std::tuple<std::int64_t, int, int, std::string>;  // cpu, milli, GPUs, models
  std::map<Key, TypicalPod> shapes;
  int counted = 0;
  for (const auto& pod : pods) {
    if (pod.num_gpu == 0 && !include_cpu_only) continue;
    const int milli = pod.num_gpu == 0 ? 0 : pod.gpu_milli;
    TypicalPod& shape = shapes[Key{pod.cpu_milli, milli, pod.num_gpu, joined(pod.gpu_models)}];
    shape.cpu_milli = pod.cpu_milli;
    shape.gpu_milli = milli;
    shape.num_gpu = pod.num_gpu;
    shape.gpu_models = pod.gpu_models;
    ++shape.count;
    ++counted;
  }
  std::vector<std::pair<Key, TypicalPod>> ranked(shapes.begin(), shapes.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second.count != b.second.count) return a.second.count > b.second.count;
    return a.first > b.first;  // equal counts: the larger key first, field by field
  });
  TypicalPods typical;
  int covered = 0;
  for (const auto& [key, shape] : ranked) {
    if (covered >= popularity_percent / 100.0 * counted) break;
    typical.push_back(shape);
    covered += shape.count;
  }
  for (auto& shape : typical) shape.probability = static_cast<double>(shape.count) / covered;
  return typical;
}

double node_fragmentation(const TypicalPods& typical, std::int64_t cpu_left, const std::vector<int>& gpu_left,
                          const std::string& model) {
  const int free_milli = std::accumulate(gpu_left.begin(), gpu_left.end(), 0);
  double fragmentation = 0;
  for (const auto& pod : typical) {
    double fragment = free_milli;
    if (pod.gpu_milli > 0 && accessible(pod, model) && cpu_left >= pod.cpu_milli) {
      int fitting = 0;
      int stranded = 0;  // free milli on GPUs too empty-handed for this pod
      for (const int left : gpu_left) {
        if (left >= pod.gpu_milli) {
          ++fitting;
        } else {
          stranded += left;
        }
      }
      if (fitting >= pod.num_gpu) fragment = stranded;
    }
    fragmentation += pod.probability * fragment;
  }
  return fragmentation;
}

}  // namespace gputwin
