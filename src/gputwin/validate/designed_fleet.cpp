#include "gputwin/validate/designed_fleet.hpp"

#include "gputwin/core/yaml_input.hpp"

namespace gputwin::validate {
namespace {

GpuProductNames read_names(const YamlDocument& document) {
  const YamlField root = document.root();
  root.expect_keys({"schema", "accelerators"});
  if (root.child("schema").text() != "gputwin.gpu-names/1")
    root.child("schema").fail("expected 'gputwin.gpu-names/1', got '" + root.child("schema").text() + "'");
  GpuProductNames names;
  for (const YamlField& item : root.child("accelerators").items()) {
    item.expect_keys({"id", "names", "source"});
    if (item.child("source").text_or_list().empty())
      item.child("source").fail("a name list needs its source");
    std::vector<std::string>& listed = names[item.child("id").text()];
    for (const YamlField& name : item.child("names").items()) listed.push_back(name.text());
    if (listed.empty()) item.child("names").fail("expected at least one product name");
  }
  return names;
}

}  // namespace

Result<GpuProductNames> load_gpu_product_names(const std::string& path) {
  return result_of<GpuProductNames>([&] { return read_names(YamlDocument::load(path)); });
}

DesignedFleet designed_fleet(const std::string& spec, const Cluster& cluster, const Catalog& catalog,
                             const GpuProductNames& names, const PcieLaneRates& pcie_lane_rates) {
  DesignedFleet design;
  design.spec = spec;
  design.pcie_lane_rates = pcie_lane_rates;
  for (const Device& device : cluster.devices)
    if (device.kind == DeviceKind::node) design.node_names.push_back(device.name);
  // The design's one node type; a cluster of several types is compared with its first node's type.
  const NodeType* type = cluster.sole_node_type();
  for (const Device& device : cluster.devices) {
    if (type == nullptr && device.kind == DeviceKind::node) type = cluster.node_type_of(device);
  }
  if (type == nullptr) return design;
  design.gpus_per_node = type->gpus;
  design.accelerator = type->accelerator;
  if (const Accelerator* accelerator = catalog.find<Accelerator>(type->accelerator)) {
    design.accelerator_name = accelerator->info.name;
    design.gpu_memory = accelerator->memory;
    if (accelerator->host_link) design.host_link = accelerator->host_link->type;
  }
  if (const auto known = names.find(type->accelerator); known != names.end())
    design.reported_names = known->second;
  return design;
}

}  // namespace gputwin::validate
