// The inventory of a measured fleet: per node, the GPUs nvidia-smi reported and short health notes.
//
//   Result<Inventory> fleet = read_inventory("measured/");   // measured/<node>/... or measured/<node>.xml
//   for (const NodeInventory& node : fleet.value().nodes) node.facts.gpus.size();
//
// A node is a subdirectory (its nvidia-smi output inside) or a file directly in the directory (named by its
// stem). Per node the first readable of: `nvidia-smi -q -x` XML (*.xml), `--query-gpu` CSV (*.csv), an
// nvidia_gpu_exporter capture or a default nvidia-smi table (*.txt). Files that fail to read are kept as
// errors of their node, so one bad capture never hides the rest of the fleet.
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

struct NodeInventory {
  std::string node;
  NodeFacts facts;  // empty GPUs when no file could be read
  InputErrors errors;
};

struct Inventory {
  std::vector<NodeInventory> nodes;  // by node name
};

[[nodiscard]] Result<Inventory> read_inventory(const std::string& directory);

// Facts worth a look, in words: "DBE 2", "row remap pending", "PCIe gen 1 of 4", "x8 of x16", "persistence
// off", "throttled (sw_power_cap)". Empty when nothing stands out. (The severity rules are issue 5's checks.)
[[nodiscard]] std::vector<std::string> health_notes(const GpuFacts& gpu);

}  // namespace gputwin::validate
