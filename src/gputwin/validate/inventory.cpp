#include "gputwin/validate/inventory.hpp"

#include <map>
#include <set>

namespace gputwin::validate {

Result<Inventory> take_inventory(const std::string& directory, const ChecksData& checks) {
  auto fleet = read_fleet(directory);
  if (!fleet.ok()) return fleet.errors();
  Inventory inventory{std::move(fleet).value(), {}};
  inventory.findings = evaluate_checks(inventory.fleet, checks, {});
  return inventory;
}

std::vector<std::string> health_of_node(const Inventory& inventory, const std::string& node) {
  std::map<int, std::set<std::string>> rules_by_gpu;  // -1: the node as a whole
  for (const Finding& finding : inventory.findings)
    if (finding.node == node && finding.severity >= Severity::warning)
      rules_by_gpu[finding.gpu.value_or(-1)].insert(finding.rule);
  std::vector<std::string> health;
  for (const auto& [gpu, rules] : rules_by_gpu) {
    std::string text = gpu < 0 ? std::string("node") : "GPU " + std::to_string(gpu);
    for (const std::string& rule : rules) text += (&rule == &*rules.begin() ? ": " : ", ") + rule;
    health.push_back(std::move(text));
  }
  return health;
}

bool inventory_has_input_errors(const Inventory& inventory) {
  for (const FleetNode& node : inventory.fleet.nodes)
    if (!node.errors.empty() || !has_readable_capture(node)) return true;
  return false;
}

}  // namespace gputwin::validate
