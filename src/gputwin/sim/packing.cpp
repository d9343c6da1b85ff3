#include "gputwin/sim/packing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "gputwin/core/go_random.hpp"
#include "gputwin/sim/fragmentation.hpp"
#include "gputwin/sim/share_cluster.hpp"

namespace gputwin {
namespace {

struct Sample {
  std::int64_t arrived_milli = 0;
  std::int64_t used_milli = 0;
  double fragmentation_milli = 0;
  std::int64_t idle_milli = 0;
};

// Half to even, as Python's and numpy's round(): the paper's analysis scripts bucket this way.
double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::nearbyint(value * scale) / scale;
}

std::vector<PodSpec> sorted_by_name(std::vector<PodSpec> pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const PodSpec& a, const PodSpec& b) { return a.name < b.name; });
  return pods;
}

// Shuffles, then inflates to the target demand by drawing pods (with replacement) from the name-sorted list.
template <class Source>
std::vector<PodSpec> arrival_sequence(const std::vector<PodSpec>& by_name, double target_milli, Source& random) {
  std::vector<PodSpec> arrivals = by_name;
  random.shuffle(arrivals);
  std::int64_t demand = 0;
  for (const auto& pod : arrivals) demand += pod.total_gpu_milli();
  if (by_name.empty()) return arrivals;
  while (static_cast<double>(demand) > target_milli && !arrivals.empty()) {
    const auto removed = arrivals.begin() + static_cast<std::ptrdiff_t>(random.below(arrivals.size()));
    demand -= removed->total_gpu_milli();
    arrivals.erase(removed);
  }
  for (int clone = 0; static_cast<double>(demand) < target_milli; ++clone) {
    const PodSpec& drawn = by_name[random.below(by_name.size())];
    // The reference stops when the drawn pod's per-GPU milli would pass the target (a quirk kept on purpose:
    // multi-GPU pods may overshoot it by up to num_gpu - 1 GPUs).
    if (static_cast<double>(demand + drawn.gpu_milli) > target_milli) break;
    PodSpec copy = drawn;
    copy.name += "-tuned-" + std::to_string(clone);
    demand += copy.total_gpu_milli();
    arrivals.push_back(std::move(copy));
  }
  return arrivals;
}

std::vector<int> random_ranks(int nodes, Random& random) {
  std::vector<int> ranks(static_cast<std::size_t>(nodes));
  std::iota(ranks.begin(), ranks.end(), 0);
  random.shuffle(ranks);
  return ranks;
}

// The reference simulator's draws, in its order (docs/research/fgd-semantics.md section 2.1): one Int() for a
// debug message, the shuffle, the inflation, background draws by the Kubernetes client, then the node ranks.
std::vector<PodSpec> go_arrivals_and_ranks(const std::vector<PodSpec>& by_name, double target_milli, int nodes,
                                           const PackingParameters& parameters, GoRandom& random,
                                           std::vector<int>& ranks) {
  (void)random.int63();
  std::vector<PodSpec> arrivals = arrival_sequence(by_name, target_milli, random);
  for (int draw = 0; draw < parameters.go_draws_before_ranks; ++draw) (void)random.float64();
  ranks = random.perm(nodes);
  return arrivals;
}

// Each whole percent k of arrived demand: the mean over samples whose rounded arrived percent is k (or k-1..k+1
// when none is), as in the paper's merge_*_discrete scripts.
std::vector<double> bucketed(const std::vector<Sample>& samples, std::int64_t capacity_milli, int columns,
                             double (*value)(const Sample&, std::int64_t), int decimals) {
  std::vector<double> sums(static_cast<std::size_t>(columns), 0.0);
  std::vector<int> counts(static_cast<std::size_t>(columns), 0);
  for (const auto& sample : samples) {
    const double percent = round_to(100.0 * static_cast<double>(sample.arrived_milli) / capacity_milli, 0);
    if (percent < 0 || percent >= columns) continue;
    sums[static_cast<std::size_t>(percent)] += value(sample, capacity_milli);
    counts[static_cast<std::size_t>(percent)] += 1;
  }
  std::vector<double> curve(static_cast<std::size_t>(columns), std::numeric_limits<double>::quiet_NaN());
  for (int k = 0; k < columns; ++k) {
    double sum = sums[k];
    int count = counts[k];
    if (count == 0) {
      for (int near = std::max(0, k - 1); near <= std::min(columns - 1, k + 1); ++near) {
        sum += sums[near];
        count += counts[near];
      }
    }
    if (count > 0) curve[k] = decimals >= 0 ? round_to(sum / count, decimals) : sum / count;
  }
  return curve;
}

double allocation_percent(const Sample& s, std::int64_t capacity) {
  return round_to(100.0 * static_cast<double>(s.used_milli) / capacity, 2);
}
double fragmentation_percent(const Sample& s, std::int64_t capacity) {
  return 100.0 * s.fragmentation_milli / capacity;
}
double fragmentation_ratio(const Sample& s, std::int64_t) {
  return s.idle_milli > 0 ? round_to(100.0 * s.fragmentation_milli / s.idle_milli, 2) : 0.0;
}

}  // namespace

PackingResult run_packing(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods,
                          const PackingParameters& parameters, const std::string& policy_name, std::uint64_t seed,
                          double inflate) {
  const std::vector<PodSpec> by_name = sorted_by_name(pods);
  const TypicalPods typical = typical_pods(by_name, parameters.typical_pod_popularity_percent,
                                           parameters.typical_pods_include_cpu_only);
  auto policy = make_placement_policy(policy_name, parameters, typical);
  std::vector<NodeSpec> node_list = nodes;
  std::stable_sort(node_list.begin(), node_list.end(),
                   [](const NodeSpec& a, const NodeSpec& b) { return a.name < b.name; });
  ShareCluster cluster(node_list);
  const std::int64_t capacity = cluster.gpu_milli_capacity();

  const double target = inflate * static_cast<double>(capacity);
  const int node_count = static_cast<int>(node_list.size());
  std::unique_ptr<RandomSource> source;
  std::vector<PodSpec> arrivals;
  std::vector<int> ranks;
  if (parameters.random_source == "go" && go_random_available()) {
    auto go = std::make_unique<GoRandom>(static_cast<std::int64_t>(seed));
    arrivals = go_arrivals_and_ranks(by_name, target, node_count, parameters, *go, ranks);
    source = std::move(go);
  } else {
    auto own = std::make_unique<Random>(seed);
    arrivals = arrival_sequence(by_name, target, *own);
    ranks = random_ranks(node_count, *own);
    source = std::move(own);
  }
  cluster.set_ranks(ranks);
  RandomSource& random = *source;

  PackingResult result;
  result.policy = policy_name;
  result.random_source = parameters.random_source == "go" && go_random_available() ? "go" : "gputwin";
  result.seed = seed;
  result.inflate = inflate;
  result.nodes = static_cast<int>(node_list.size());
  result.gpus = static_cast<int>(capacity / kMilliPerGpu);
  result.pods_original = static_cast<int>(pods.size());
  result.pods_arrived = static_cast<int>(arrivals.size());

  std::vector<double> node_fragmentation_milli(node_list.size());
  double fragmentation_milli = 0;
  for (std::size_t n = 0; n < node_list.size(); ++n) {
    const ShareNode& node = cluster.node(static_cast<int>(n));
    node_fragmentation_milli[n] = node_fragmentation(typical, node.cpu_left, node.gpu_left, node.model);
    fragmentation_milli += node_fragmentation_milli[n];
  }
  std::vector<Sample> samples;
  samples.reserve(arrivals.size());
  std::int64_t arrived = 0;
  for (const auto& pod : arrivals) {
    arrived += pod.total_gpu_milli();
    if (auto placement = policy->place(cluster, pod, random)) {
      cluster.place(pod, *placement);
      ++result.pods_placed;
      const ShareNode& node = cluster.node(placement->node);
      const double updated = node_fragmentation(typical, node.cpu_left, node.gpu_left, node.model);
      fragmentation_milli += updated - node_fragmentation_milli[placement->node];
      node_fragmentation_milli[placement->node] = updated;
    } else {
      ++result.pods_failed;
      if (pod.num_gpu > 0) ++result.gpu_pods_failed;
    }
    samples.push_back({arrived, cluster.gpu_milli_used(), fragmentation_milli, capacity - cluster.gpu_milli_used()});
  }
  const int columns = static_cast<int>(std::floor(100.0 * inflate + 1e-9)) + 1;
  result.allocation_percent_by_arrived_percent = bucketed(samples, capacity, columns, allocation_percent, 2);
  result.fragmentation_percent_by_arrived_percent = bucketed(samples, capacity, columns, fragmentation_percent, 2);
  result.fragmentation_ratio_by_arrived_percent = bucketed(samples, capacity, columns, fragmentation_ratio, -1);
  result.final_allocation_percent = 100.0 * static_cast<double>(cluster.gpu_milli_used()) / capacity;
  return result;
}

std::vector<double> mean_curve(const std::vector<std::vector<double>>& curves) {
  if (curves.empty()) return {};
  std::vector<double> mean(curves.front().size(), 0.0);
  for (std::size_t k = 0; k < mean.size(); ++k) {
    for (const auto& curve : curves) mean[k] += curve[k];
    mean[k] /= static_cast<double>(curves.size());
  }
  return mean;
}

}  // namespace gputwin
