// Collective timing: NCCL's cost model chooses the algorithm and protocol and gives the latency; the
// bandwidth is what the bottleneck link achieves (line rate x measured efficiency), under NCCL's protocol
// caps. One rule for every system: nothing here is fitted to a published point.
#include "gputwin/perf/collectives.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin {
namespace {

constexpr std::array<std::string_view, 7> kOpNames = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"};
constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr std::array<std::string_view, kProtocolCount> kProtocolNames = {"LL", "LL128", "Simple"};
constexpr std::array<std::string_view, 3> kLinkNames = {"NVLINK", "PCI", "NET"};
constexpr double kMicrosecondsPerSecond = 1e6;
constexpr double kBytesPerGigabyte = 1e9;
constexpr std::string_view kMeshFabricsFile = "collectives-mesh-fabrics.yaml";

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the model

CollectiveModel::PerProtocol read_per_protocol(const YamlField& field) {
  const auto items = field.items();
  if (items.size() != kProtocolCount) field.fail("expected 3 values: LL, LL128, Simple");
  CollectiveModel::PerProtocol values{};
  for (int p = 0; p < kProtocolCount; ++p) values[p] = items[p].number();
  return values;
}

CollectiveModel::PerAlgorithm read_per_algorithm(const YamlField& field) {
  CollectiveModel::PerAlgorithm values{};
  for (int a = 0; a < kAlgorithmCount; ++a) values[a] = read_per_protocol(field.child(kAlgorithmNames[a]));
  return values;
}

CollectiveModel::PerArchitecture read_per_architecture(const YamlField& field) {
  const auto rows = field.items();
  if (rows.size() != 4) field.fail("expected 4 rows: volta, ampere, hopper, blackwell");
  CollectiveModel::PerArchitecture values{};
  for (std::size_t arch = 0; arch < 4; ++arch) {
    const auto cells = rows[arch].items();
    if (cells.size() != 3) rows[arch].fail("expected 3 values: 1 node, 2 nodes, more than 2 nodes");
    for (std::size_t n = 0; n < 3; ++n) values[arch][n] = cells[n].number();
  }
  return values;
}

std::array<double, 4> read_four(const YamlField& field) {
  const auto items = field.items();
  if (items.size() != 4) field.fail("expected 4 values: volta, ampere, hopper, blackwell");
  return {items[0].number(), items[1].number(), items[2].number(), items[3].number()};
}

void read_latency(const YamlField& field, CollectiveModel& model) {
  model.base_latency_us = read_per_algorithm(field.child("base_us"));
  const YamlField hops = field.child("per_hop_us");
  for (int link = 0; link < 3; ++link)
    model.hop_latency_us[link] = read_per_algorithm(hops.child(kLinkNames[link]));
  model.net_post_overhead_us = field.child("net_post_overhead_us").number();
  model.net_post_overhead_simple_factor = field.child("net_post_overhead_simple_factor").positive_number();
  model.ring_plateau_factor = field.child("ring_plateau_factor").positive_number();
  model.ring_plateau_min_bytes = field.child("ring_plateau_min_bytes_per_channel_rank").positive_number();
  model.pat_per_rank_us = field.child("pat_per_rank_us").number();
  model.pat_net_divisor = field.child("pat_net_divisor").positive_number();
}

void read_caps(const YamlField& field, CollectiveModel& model) {
  model.ll_max_bw = read_per_architecture(field.child("ll_max"));
  model.per_channel_max_ring_ll128_bw = read_per_architecture(field.child("per_channel_max_ring_ll128"));
  model.per_channel_max_tree_ll128_bw = read_per_architecture(field.child("per_channel_max_tree_ll128"));
  model.per_channel_max_tree_bw = read_per_architecture(field.child("per_channel_max_tree"));
  model.per_channel_max_nvls_tree_bw = read_per_architecture(field.child("per_channel_max_nvls_tree"));
  model.nvls_efficiency = read_four(field.child("nvls_efficiency"));
  const YamlField r = field.child("refinements");
  auto& out = model.refinements;
  out.ring_ll_share = r.child("ring_ll_share").positive_number();
  out.ring_ll128_share = r.child("ring_ll128_share").positive_number();
  out.tree_share = r.child("tree_share").positive_number();
  out.tree_ll_divisor = r.child("tree_ll_divisor").positive_number();
  out.tree_ll128_share_one_node = r.child("tree_ll128_share_one_node").positive_number();
  out.tree_ll128_share_multi_node = r.child("tree_ll128_share_multi_node").positive_number();
  out.pat_share = r.child("pat_share").positive_number();
  out.tree_to_algbw = r.child("tree_to_algbw").positive_number();
}

void read_efficiency(const YamlField& field, CollectiveModel& model) {
  model.nvlink_efficiency = field.child("nvlink").child("value").positive_number();
  model.pcie_efficiency = field.child("pcie").child("value").positive_number();
  for (const YamlField& nic : field.child("nic").items()) {
    CollectiveModel::NicEfficiency entry;
    entry.line_rate_gbps = nic.child("line_rate").positive_number();
    entry.effective_min_gbps = nic.child("effective_min").positive_number();
    entry.effective_max_gbps = nic.child("effective_max").positive_number();
    if (entry.effective_max_gbps < entry.effective_min_gbps ||
        entry.effective_max_gbps > entry.line_rate_gbps) {
      nic.fail("effective bandwidth must satisfy min <= max <= line rate");
    }
    model.nic_efficiency.push_back(entry);
  }
  if (model.nic_efficiency.empty()) field.child("nic").fail("at least one NIC efficiency is needed");
}

std::vector<CollectiveModel::MeshFabric> read_mesh_fabrics(const YamlField& root) {
  root.expect_keys({"fabrics"});
  std::vector<CollectiveModel::MeshFabric> fabrics;
  for (const YamlField& item : root.child("fabrics").items()) {
    item.expect_keys({"name", "vendor", "link", "architectures", "systems", "peer_links", "efficiency", "source",
                      "notes"});
    CollectiveModel::MeshFabric fabric;
    fabric.name = item.child("name").text();
    fabric.link = item.child("link").text();
    if (item.has("architectures"))
      for (const YamlField& arch : item.child("architectures").items()) fabric.architectures.push_back(arch.text());
    if (item.has("systems"))
      for (const YamlField& system : item.child("systems").items()) fabric.systems.push_back(system.text());
    if (fabric.architectures.empty() && fabric.systems.empty())
      item.fail("a mesh fabric applies to architectures or systems: give at least one");
    fabric.peer_links = static_cast<int>(item.child("peer_links").positive_integer());
    if (item.has("efficiency")) {
      fabric.efficiency = item.child("efficiency").positive_number();
      if (*fabric.efficiency > 1) item.child("efficiency").fail("an efficiency is at most 1");
    }
    if (!item.child("source").is_map())
      item.child("source").fail("expected the source as title, url and figures");
    fabrics.push_back(std::move(fabric));
  }
  return fabrics;
}

void read_channel_tuning(const YamlField& field, CollectiveModel& model) {
  field.expect_keys({"source", "thread_threshold_bytes", "ring_ll_threshold_per_rank", "max_threads",
                     "ring_simple_threads_on_slow_ring", "min_traffic_per_channel_bytes",
                     "all_reduce_traffic_per_byte", "ll_traffic_factor"});
  if (!field.child("source").is_map())
    field.child("source").fail("expected the source as title, file, section");
  auto& out = model.channel_tuning;
  out.thread_threshold_bytes = read_per_protocol(field.child("thread_threshold_bytes"));
  out.max_threads = read_per_protocol(field.child("max_threads"));
  for (int p = 0; p < kProtocolCount; ++p) {
    if (out.thread_threshold_bytes[p] <= 0)
      field.child("thread_threshold_bytes").fail("expected positive values");
    if (out.max_threads[p] <= 0) field.child("max_threads").fail("expected positive values");
  }
  out.ring_ll_threshold_per_rank = field.child("ring_ll_threshold_per_rank").boolean();
  out.ring_simple_threads_on_slow_ring = field.child("ring_simple_threads_on_slow_ring").positive_number();
  out.min_traffic_per_channel_bytes = field.child("min_traffic_per_channel_bytes").positive_number();
  out.all_reduce_traffic_per_byte = field.child("all_reduce_traffic_per_byte").positive_number();
  out.ll_traffic_factor = field.child("ll_traffic_factor").positive_number();
}

void read_nvls_tree_chunking(const YamlField& field, CollectiveModel::Chunking& out) {
  field.expect_keys({"chunk_bytes", "max_chunk_bytes_from_nodes", "max_heads", "channels", "reductions"});
  out.nvls_tree_chunk_bytes = field.child("chunk_bytes").positive_number();
  const YamlField cap = field.child("max_chunk_bytes_from_nodes");
  cap.expect_keys({"nodes", "bytes"});
  out.nvls_tree_cap_nodes = static_cast<int>(cap.child("nodes").positive_integer());
  out.nvls_tree_cap_bytes = cap.child("bytes").positive_number();
  out.nvls_tree_max_heads = static_cast<int>(field.child("max_heads").positive_integer());
  const auto channels = read_four(field.child("channels"));
  for (std::size_t arch = 0; arch < channels.size(); ++arch) {
    if (channels[arch] < 0 || channels[arch] != std::floor(channels[arch]))
      field.child("channels").fail("expected whole channel counts >= 0");
    out.nvls_tree_channels[arch] = static_cast<int>(channels[arch]);
  }
  out.nvls_tree_reductions.clear();
  for (const YamlField& row : field.child("reductions").items()) {
    const auto cells = row.items();
    if (cells.size() != 2) row.fail("expected [loops, chunk bytes]");
    out.nvls_tree_reductions.push_back({cells[0].positive_number(), cells[1].positive_number()});
  }
}

void read_chunking(const YamlField& field, CollectiveModel& model) {
  field.expect_keys({"source", "steps", "buffer_bytes", "data_share", "grain_bytes", "ring_simple_steps",
                     "tree_ll128", "thread_halving_multiple", "nvls_tree"});
  if (!field.child("source").is_map())
    field.child("source").fail("expected the source as title, file, section");
  auto& out = model.chunking;
  out.steps = static_cast<int>(field.child("steps").positive_integer());
  out.buffer_bytes = read_per_protocol(field.child("buffer_bytes"));
  out.data_share = read_per_protocol(field.child("data_share"));
  out.grain_bytes = read_per_protocol(field.child("grain_bytes"));
  for (int p = 0; p < kProtocolCount; ++p) {
    if (out.buffer_bytes[p] <= 0) field.child("buffer_bytes").fail("expected positive sizes");
    if (out.data_share[p] <= 0 || out.data_share[p] > 1)
      field.child("data_share").fail("a payload share is above 0 and at most 1");
    if (out.grain_bytes[p] <= 0) field.child("grain_bytes").fail("expected positive sizes");
  }
  const YamlField ring = field.child("ring_simple_steps");
  ring.expect_keys({"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce"});
  for (std::size_t op = 0; op < out.ring_simple_steps.size(); ++op) {
    const YamlField steps = ring.child(kOpNames[op]);
    const auto items = steps.items();
    if (items.size() != 2) steps.fail("expected [chunk steps, slice steps]");
    const int chunk = static_cast<int>(items[0].positive_integer());
    const int slice = static_cast<int>(items[1].positive_integer());
    if (slice > chunk || chunk % slice != 0) steps.fail("a chunk is a whole number of slices");
    if (chunk > out.steps) steps.fail("a chunk cannot span more than NCCL_STEPS steps");
    out.ring_simple_steps[op] = {chunk, slice};
  }
  const YamlField tree = field.child("tree_ll128");
  tree.expect_keys({"steps_per_rank_per_node", "first", "second"});
  out.tree_ll128_steps_per_rank = tree.child("steps_per_rank_per_node").positive_number();
  out.tree_ll128_first_chunks = tree.child("first").child("chunks").positive_number();
  out.tree_ll128_first_above_bytes = tree.child("first").child("above_bytes").positive_number();
  out.tree_ll128_second_chunks = tree.child("second").child("chunks").positive_number();
  out.tree_ll128_second_above_bytes = tree.child("second").child("above_bytes").positive_number();
  out.thread_halving_multiple = static_cast<int>(field.child("thread_halving_multiple").positive_integer());
  read_nvls_tree_chunking(field.child("nvls_tree"), out);
}

CollectiveModel read_model(const YamlField& root) {
  CollectiveModel model;
  model.nccl_version = root.child("nccl_version").text();
  read_latency(root.child("latency"), model);
  read_caps(root.child("bandwidth_caps"), model);
  const YamlField correction = root.child("tree_correction");
  for (int p = 0; p < kProtocolCount; ++p) {
    for (const YamlField& value : correction.child(kProtocolNames[p]).items()) {
      model.tree_correction[p].push_back(value.positive_number());
    }
  }
  const YamlField topology = root.child("topology");
  model.nvlink_link_bandwidth_gbps = read_four(topology.child("nvlink_link_bandwidth"));
  model.pci_bandwidth_gbps = topology.child("pci_bandwidth").positive_number();
  model.max_channels = static_cast<int>(topology.child("max_channels").positive_integer());
  read_channel_tuning(root.child("channels"), model);
  read_chunking(root.child("chunking"), model);
  read_efficiency(root.child("efficiency"), model);
  const YamlField loop = root.child("nccl_tests_loop");
  loop.expect_keys({"source", "iters", "rank_average", "host_launch_us_per_gpu"});
  if (!loop.child("source").is_map())
    loop.child("source").fail("expected the source as title, file, section");
  model.nccl_tests_loop.iters = static_cast<int>(loop.child("iters").positive_integer());
  if (loop.child("rank_average").text() != "mean")
    loop.child("rank_average").fail("only 'mean' (nccl-tests' default -a 1) is modelled");
  const YamlField launch = loop.child("host_launch_us_per_gpu");
  launch.expect_keys({"value", "fitted_on"});
  model.nccl_tests_loop.host_launch_us_per_gpu = launch.child("value").number();
  if (model.nccl_tests_loop.host_launch_us_per_gpu < 0)
    launch.child("value").fail("expected a time >= 0 (microseconds)");
  const YamlField check = root.child("nvls_domain_check");
  check.expect_keys({"checked_up_to_ranks", "beyond", "source"});
  model.nvls_domain_check.checked_up_to_ranks =
      static_cast<int>(check.child("checked_up_to_ranks").positive_integer());
  model.nvls_domain_check.beyond = check.child("beyond").text();
  const YamlField factors = root.child("busbw_factors");
  for (std::size_t op = 0; op < kOpNames.size(); ++op)
    model.busbw_factor_text[op] = factors.child(kOpNames[op]).text();
  return model;
}

// LL128 is enabled by default only on NVLink paths (NCCL: untested elsewhere, risk of silent data
// corruption); a group with one GPU per domain has no intra-domain path, and NICs next to their GPUs
// (PIX/PXB) keep it enabled. Under MNNVL the path between trays of a domain is NVLink, so LL128 stays on.
bool protocol_enabled(const collectives::Topology& t, CollectiveProtocol p) {
  if (p != CollectiveProtocol::LL128) return true;
  return t.nvlink || t.ranks_per_domain == 1;
}

double time_us(const collectives::AlgorithmCost& cost, double bytes) {
  return cost.latency_us + bytes / (cost.algbw_gbps * kBytesPerGigabyte) * kMicrosecondsPerSecond;
}

CollectiveEstimate finish(CollectiveEstimate e, const collectives::AlgorithmCost& cost,
                          const collectives::Topology& t, double bytes) {
  e.latency_us = cost.latency_us;
  e.bandwidth_us = bytes / (cost.algbw_gbps * kBytesPerGigabyte) * kMicrosecondsPerSecond;
  e.time_us = e.latency_us + e.bandwidth_us;
  e.algbw_gbps = bytes / (e.time_us / kMicrosecondsPerSecond) / kBytesPerGigabyte;
  e.busbw_gbps = e.algbw_gbps * busbw_factor(e.op, t.ranks);
  e.channels_available = t.channels;
  e.link_busbw_gbps = cost.link_gbps;
  e.bottleneck = cost.bottleneck;
  return e;
}

}  // namespace

std::string_view collective_name(CollectiveOp op) {
  return kOpNames[static_cast<std::size_t>(op)];
}

std::optional<CollectiveOp> collective_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (name == kOpNames[i]) return static_cast<CollectiveOp>(i);
  }
  return std::nullopt;
}

std::string_view algorithm_name(CollectiveAlgorithm algorithm) {
  return kAlgorithmNames[static_cast<int>(algorithm)];
}
std::string_view protocol_name(CollectiveProtocol protocol) {
  return kProtocolNames[static_cast<int>(protocol)];
}

std::optional<CollectiveAlgorithm> algorithm_from_name(std::string_view name) {
  for (int i = 0; i < kAlgorithmCount; ++i) {
    if (equal_ignoring_case(name, kAlgorithmNames[i])) return static_cast<CollectiveAlgorithm>(i);
  }
  return std::nullopt;
}

std::optional<CollectiveProtocol> protocol_from_name(std::string_view name) {
  for (int i = 0; i < kProtocolCount; ++i) {
    if (equal_ignoring_case(name, kProtocolNames[i])) return static_cast<CollectiveProtocol>(i);
  }
  return std::nullopt;
}

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = std::max(1, ranks);
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::alltoall:
      return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::sendrecv:
      return 1;
  }
  return 1;
}

const CollectiveModel::MeshFabric* CollectiveModel::mesh_fabric(const std::string& system_id,
                                                                const std::string& architecture) const {
  for (const MeshFabric& fabric : mesh_fabrics)
    if (std::find(fabric.systems.begin(), fabric.systems.end(), system_id) != fabric.systems.end())
      return &fabric;
  for (const MeshFabric& fabric : mesh_fabrics) {
    if (std::find(fabric.architectures.begin(), fabric.architectures.end(), architecture) !=
        fabric.architectures.end())
      return &fabric;
  }
  return nullptr;
}

CollectiveGroup consecutive_group(const PerfHardware& hardware, int ranks) {
  const int n = std::max(1, ranks);
  return {n, std::min(n, std::max(1, hardware.gpus_per_node)), std::min(n, hardware.gpus_per_domain())};
}

int ranks_per_domain(const PerfHardware& hardware, CollectiveGroup group) {
  const int ranks = std::max(1, group.ranks);
  const int per_node = std::clamp(group.ranks_per_node, 1, ranks);
  const int asked =
      group.ranks_per_domain > 0 ? group.ranks_per_domain : per_node * hardware.nodes_per_domain();
  return std::clamp(asked, per_node, ranks);
}

Result<CollectiveModel> load_collective_model(const std::string& path) {
  try {
    CollectiveModel model = read_model(YamlDocument::load(path).root());
    // The mesh fabrics sit next to the NCCL model; a model file copied elsewhere without them knows none.
    const auto meshes = std::filesystem::path(path).parent_path() / kMeshFabricsFile;
    if (std::filesystem::exists(meshes))
      model.mesh_fabrics = read_mesh_fabrics(YamlDocument::load(meshes.string()).root());
    return model;
  } catch (const InputFailure& failure) {
    return failure.error();
  } catch (const std::exception& error) {
    return InputError{{path, 0, 0}, "", error.what()};
  }
}

namespace collectives {

const AlgorithmModel& algorithm_model(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::Tree:
      return tree_model();
    case CollectiveAlgorithm::Ring:
      return ring_model();
    case CollectiveAlgorithm::NVLS:
      return nvls_model();
    case CollectiveAlgorithm::NVLSTree:
      return nvls_tree_model();
    case CollectiveAlgorithm::PAT:
      return pat_model();
    case CollectiveAlgorithm::CollNetDirect:
    case CollectiveAlgorithm::CollNetChain:
      return collnet_model();
  }
  return collnet_model();
}

}  // namespace collectives

namespace {

struct Choice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  collectives::AlgorithmCost cost;
};

// NCCL's choice: the argmin of predicted time over the enabled (algorithm, protocol) pairs, or over the
// forced ones.
std::optional<Choice> choose(const collectives::Case& c, const CollectiveChoice& forced) {
  std::optional<Choice> best;
  double best_time = 0;
  for (int a = 0; a < kAlgorithmCount; ++a) {
    const auto algorithm = static_cast<CollectiveAlgorithm>(a);
    if (forced.algorithm && *forced.algorithm != algorithm) continue;
    for (int p = 0; p < kProtocolCount; ++p) {
      const auto protocol = static_cast<CollectiveProtocol>(p);
      if (forced.protocol ? *forced.protocol != protocol : !protocol_enabled(c.topo, protocol)) continue;
      const auto cost = collectives::algorithm_model(algorithm).cost(c, protocol);
      if (!cost.available()) continue;
      const double time = time_us(cost, c.bytes);
      if (!best || time < best_time) {
        best = Choice{algorithm, protocol, cost};
        best_time = time;
      }
    }
  }
  return best;
}

}  // namespace

CollectiveEstimate estimate_collective(const PerfHardware& hardware, const CollectiveModel& model,
                                       CollectiveOp op, ByteSize bytes, CollectiveGroup group,
                                       const CollectiveChoice& choice) {
  CollectiveEstimate estimate;
  estimate.op = op;
  estimate.bytes = bytes;
  estimate.group = group;
  const collectives::Topology topo = collectives::topology_of(hardware, model, group);
  estimate.channels = topo.channels;
  const double size = bytes.base();
  if (topo.ranks == 1 || size <= 0) {  // nothing moves: NCCL returns at once
    estimate.algorithm = estimate.protocol = "none";
    return estimate;
  }
  const collectives::Case c{model, topo, op, size};
  if (op == CollectiveOp::alltoall || op == CollectiveOp::sendrecv) {
    estimate.algorithm = "P2P";
    estimate.protocol = "Simple";
    return finish(estimate, collectives::point_to_point_cost(c), topo, size);
  }
  const auto chosen = choose(c, choice);
  if (!chosen) {
    estimate.available = false;
    return estimate;
  }
  estimate.algorithm = std::string(algorithm_name(chosen->algorithm));
  estimate.protocol = std::string(protocol_name(chosen->protocol));
  // NCCL chose with every channel; a small message then runs on fewer, each carrying its share of the links,
  // under the same protocol caps (a whole-operation cap such as LL's is still reached by a few channels).
  collectives::AlgorithmCost cost = chosen->cost;
  const int channels = collectives::channels_for_size(c, chosen->algorithm, chosen->protocol);
  if (channels < topo.channels) {
    const collectives::Topology narrowed = collectives::with_channels(topo, channels);
    const collectives::Case narrow{model, narrowed, op, size};
    cost.algbw_gbps =
        collectives::algorithm_model(chosen->algorithm).cost(narrow, chosen->protocol).algbw_gbps;
  }
  estimate = finish(estimate, cost, topo, size);
  estimate.channels = channels;
  // The chunks NCCL cuts the operation into, and what a store-and-forward pipeline pays for them (a rooted
  // Simple chain's first slice down the chain; NVLSTree's first loop through the switch and the tree of
  // domains); NCCL's cost model leaves this out, so the choice above does too.
  const auto plan = collectives::chunk_plan(c, chosen->algorithm, chosen->protocol, channels);
  estimate.threads_per_channel = collectives::ring_threads_for_size(c, chosen->algorithm, chosen->protocol);
  estimate.chunk_bytes = plan.chunk_bytes;
  estimate.slice_bytes = plan.slice_bytes;
  estimate.chunks_per_channel = plan.chunk_rounds;
  estimate.pipeline_fill_us =
      chosen->algorithm == CollectiveAlgorithm::NVLSTree
          ? collectives::nvls_tree_fill_us(c, plan)
          : collectives::chain_fill_us(c, chosen->algorithm, chosen->protocol, plan, channels);
  if (estimate.pipeline_fill_us > 0) {
    estimate.time_us += estimate.pipeline_fill_us;
    estimate.algbw_gbps = size / (estimate.time_us / kMicrosecondsPerSecond) / kBytesPerGigabyte;
    estimate.busbw_gbps = estimate.algbw_gbps * busbw_factor(op, topo.ranks);
  }
  return estimate;
}

}  // namespace gputwin
