#include "gputwin/sim/share_cluster.hpp"

#include <algorithm>
#include <numeric>

namespace gputwin {

int ShareNode::gpu_milli_left() const { return std::accumulate(gpu_left.begin(), gpu_left.end(), 0); }

int ShareNode::fully_free_gpus() const {
  return static_cast<int>(std::count(gpu_left.begin(), gpu_left.end(), kMilliPerGpu));
}

std::uint32_t affinity_bit(const PodSpec& pod) {
  if (pod.num_gpu == 0) return 0;
  if (pod.gpu_milli < kMilliPerGpu) return 1u;  // share
  return 1u << std::min(pod.num_gpu, 30);       // n whole GPUs
}

ShareCluster::ShareCluster(const std::vector<NodeSpec>& nodes) {
  nodes_.reserve(nodes.size());
  for (const auto& spec : nodes) {
    ShareNode node;
    node.name = spec.name;
    node.model = spec.gpu_model;
    node.model_id = model_id(spec.gpu_model);
    if (node.model_id < 0 && !spec.gpu_model.empty()) {
      models_.push_back(spec.gpu_model);
      node.model_id = static_cast<int>(models_.size()) - 1;
    }
    node.cpu_left = spec.cpu_milli;
    node.memory_left = spec.memory_mib;
    node.gpu_left.assign(spec.gpus, kMilliPerGpu);
    node.rank = static_cast<int>(nodes_.size());
    gpu_milli_capacity_ += static_cast<std::int64_t>(spec.gpus) * kMilliPerGpu;
    nodes_.push_back(std::move(node));
  }
}

int ShareCluster::model_id(const std::string& model) const {
  const auto found = std::find(models_.begin(), models_.end(), model);
  return found == models_.end() ? -1 : static_cast<int>(found - models_.begin());
}

bool ShareCluster::allows_model(const ShareNode& node, const PodSpec& pod) const {
  if (pod.gpu_models.empty()) return true;
  if (node.model.empty()) return false;
  return std::find(pod.gpu_models.begin(), pod.gpu_models.end(), node.model) != pod.gpu_models.end();
}

bool ShareCluster::fits(int index, const PodSpec& pod) const {
  const ShareNode& node = nodes_[index];
  if (node.cpu_left < pod.cpu_milli || node.memory_left < pod.memory_mib) return false;
  if (pod.num_gpu == 0) return true;
  if (node.gpus() == 0 || !allows_model(node, pod)) return false;
  if (pod.num_gpu == 1) {
    return std::any_of(node.gpu_left.begin(), node.gpu_left.end(), [&](int left) { return left >= pod.gpu_milli; });
  }
  return node.fully_free_gpus() >= pod.num_gpu;
}

std::vector<int> ShareCluster::lowest_free_gpus(int index, int count) const {
  std::vector<int> chosen;
  const ShareNode& node = nodes_[index];
  for (int gpu = 0; gpu < node.gpus() && static_cast<int>(chosen.size()) < count; ++gpu) {
    if (node.gpu_left[gpu] == kMilliPerGpu) chosen.push_back(gpu);
  }
  return chosen;
}

std::vector<int> ShareCluster::best_fit_gpus(int index, const PodSpec& pod) const {
  if (pod.num_gpu == 0) return {};
  if (pod.gpu_milli >= kMilliPerGpu) return lowest_free_gpus(index, pod.num_gpu);
  const ShareNode& node = nodes_[index];
  int best = -1;
  for (int gpu = 0; gpu < node.gpus(); ++gpu) {
    const int left = node.gpu_left[gpu];
    if (left >= pod.gpu_milli && (best < 0 || left < node.gpu_left[best])) best = gpu;
  }
  return best < 0 ? std::vector<int>{} : std::vector<int>{best};
}

void ShareCluster::set_ranks(const std::vector<int>& ranks) {
  for (std::size_t n = 0; n < nodes_.size(); ++n) nodes_[n].rank = ranks[n];
}

void ShareCluster::place(const PodSpec& pod, const PodPlacement& placement) {
  ShareNode& node = nodes_[placement.node];
  node.cpu_left -= pod.cpu_milli;
  node.memory_left -= pod.memory_mib;
  for (const int gpu : placement.gpus) {
    node.gpu_left[gpu] -= pod.gpu_milli;
    gpu_milli_used_ += pod.gpu_milli;
  }
  node.affinity |= affinity_bit(pod);
  ++node.version;
}

}  // namespace gputwin
