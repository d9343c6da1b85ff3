// Renders a `gputwin validate` run: the terminal report (inventory, findings by severity, outliers, summary)
// and its JSON (schema gputwin.validate/1, docs/validate.md); and the table of `gputwin validate inventory`.
//
//   ValidateRun run{&fleet, findings, outliers, "cluster.yaml", Severity::critical, 3.5};
//   std::cout << validate_text(run);
//   int status = validate_failed(run) ? 1 : 0;
//   std::cout << validate_inventory_text(take_inventory("measured/", checks).value());
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/fleet.hpp"
#include "gputwin/validate/inventory.hpp"
#include "gputwin/validate/outliers.hpp"

namespace gputwin {

inline constexpr const char* kValidateSchema = "gputwin.validate/1";

struct ValidateRun {
  const validate::Fleet* fleet = nullptr;
  std::vector<validate::Finding> findings;  // sorted by evaluate_checks
  std::vector<validate::Outlier> outliers;
  std::string cluster;  // the spec compared with; empty when none
  validate::Severity fail_on = validate::Severity::critical;
  double outlier_threshold = 0;
};

// A finding at or above the --fail-on severity exists.
[[nodiscard]] bool validate_failed(const ValidateRun& run);
[[nodiscard]] std::string validate_text(const ValidateRun& run);
[[nodiscard]] nlohmann::ordered_json validate_json(const ValidateRun& run);
// One line per node: node, GPUs, model, driver, health ("ok", or per GPU the rules of its findings).
[[nodiscard]] std::string validate_inventory_text(const validate::Inventory& inventory);

}  // namespace gputwin
