// What the checks' code shares (internal to validate/): the collector that turns a rule id and its values
// into a Finding, the rule's severity and message taken from the checks data.
//
//   Findings out(checks);
//   out.add("ecc-uncorrectable", "node01", 3, {"node01/nvidia-smi.xml", 290, 0},
//           {{"volatile", "2"}, {"aggregate", "2"}});
//   std::vector<Finding> found = out.take();
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/validate/checks.hpp"

namespace gputwin::validate {

using FindingValues = std::map<std::string, std::string>;

class Findings {
 public:
  explicit Findings(const ChecksData& checks) : checks_(checks) {}

  void add(std::string_view rule_id, const std::string& node, std::optional<int> gpu, SourceLocation where,
           const FindingValues& values) {
    const CheckRule& rule = checks_.rule(rule_id);
    found_.push_back(
        {rule.id, rule.severity, node, gpu, std::move(where), render_message(rule.message, values)});
  }
  [[nodiscard]] const CheckRule& rule(std::string_view id) const { return checks_.rule(id); }
  std::vector<Finding> take() { return std::move(found_); }

 private:
  const ChecksData& checks_;
  std::vector<Finding> found_;
};

// The checks against the design (design_checks.cpp): GPU model, count and memory per node, node count.
void check_against_design(const Fleet& fleet, const DesignedFleet& design, Findings& out);

// The reporting checks (reporting_checks.cpp), over a range read: a node or GPU whose series stopped before
// the range's end, or were missing for part of it, by more than the tolerance.
void check_reporting(const FleetNode& node, const CheckOptions& options, Findings& out);

// The GPU models a node reports, one per GPU: its fact model's, else the device names of an nccl-tests run.
[[nodiscard]] std::vector<std::string> reported_gpu_models(const FleetNode& node);
// A GPU of the node is not the designed model (false when the design's product names are not known).
[[nodiscard]] bool gpu_model_differs(const FleetNode& node, const DesignedFleet& design);

}  // namespace gputwin::validate
