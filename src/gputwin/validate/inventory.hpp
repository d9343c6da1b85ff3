// The inventory of a measured fleet (`gputwin validate inventory`): per node its GPUs, model and driver, and
// its health as the checks judge it. The fleet is read exactly as `gputwin validate` reads it (read_fleet:
// each file's kind found from its content, every output merged into one fact model), and health is the
// findings of the same checks (evaluate_checks, without a design), so the two commands never disagree.
//
//   Result<Inventory> inventory = take_inventory("measured/", checks);
//   for (const FleetNode& node : inventory.value().fleet.nodes)
//     health_of_node(inventory.value(), node.name);   // {"GPU 3: ecc-uncorrectable", ...}; empty = healthy
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/fleet.hpp"

namespace gputwin::validate {

struct Inventory {
  Fleet fleet;
  std::vector<Finding> findings;  // the checks' findings, as evaluate_checks sorts them
};

[[nodiscard]] Result<Inventory> take_inventory(const std::string& directory, const ChecksData& checks);

// The rules a node's findings of severity warning or above name, per GPU ("GPU 3: ecc-uncorrectable,
// row-remap-failure") and for the node as a whole ("node: version-mismatch"); empty when none.
[[nodiscard]] std::vector<std::string> health_of_node(const Inventory& inventory, const std::string& node);

// A file of the fleet could not be read, or a node had nothing readable.
[[nodiscard]] bool inventory_has_input_errors(const Inventory& inventory);

}  // namespace gputwin::validate
