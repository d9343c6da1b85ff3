// The checks of `gputwin validate` evaluated over a measured fleet: per GPU (ECC, retired pages, row
// remapping, XID, temperature, PCIe and NVLink errors, PCIe link, clock events, power limit, persistence, MIG
// layout), per node (DCGM diag results, nccl-tests correctness and busbw against the design, outputs that
// disagree, nothing readable; over a Prometheus range, series that stopped or went missing), across the fleet
// (driver, CUDA and VBIOS versions) and against the design (node count, GPU model, count and memory per
// node).
//
//   Result<ChecksData> checks = load_checks_data(bundled_data_dir() + "/validate/checks.yaml");
//   CheckOptions options;
//   options.predict_busbw = design_busbw_predictor(hw, model);   // optional: compare busbw with the design
//   options.design = designed_fleet(spec, cluster, catalog, names); // optional: compare the hardware
//   std::vector<Finding> findings = evaluate_checks(fleet, checks.value(), options);
//
// Severities and messages come from the data; the code only decides whether each rule's condition holds and
// fills its message's placeholders with the measured and expected values. Findings are sorted by severity
// (critical first), node, GPU, rule, file and line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/validate/checks_data.hpp"
#include "gputwin/validate/designed_fleet.hpp"
#include "gputwin/validate/fleet.hpp"
#include "gputwin/validate/nccl_busbw.hpp"

namespace gputwin::validate {

struct Finding {
  std::string rule;
  Severity severity = Severity::warning;
  std::string node;
  std::optional<int> gpu;
  SourceLocation where;  // file and line when known (line 0: the file as a whole)
  std::string message;
};

// The MIG partition every GPU of the fleet should have: instance memory sizes are what nvidia-smi shows, so
// the layout is compared as the multiset of its instances' nominal memory (measured sizes are rounded to the
// nearest nominal size of the profile set).
struct IntendedMig {
  std::string layout;                      // as written: "3g.40gb+2g.20gb+1g.10gb+1g.10gb"
  std::vector<double> instance_memory_gb;  // nominal, sorted descending
  std::vector<double> profile_memory_gb;   // every nominal size of the set
};

// Throws std::invalid_argument (from the MIG layout parser) when the layout cannot exist on the set's GPU.
[[nodiscard]] IntendedMig intended_mig(const std::string& layout, const MigProfileSet& set);

struct CheckOptions {
  std::optional<double> busbw_margin;   // overrides the data's nccl-busbw-below-prediction margin
  BusbwPredictor predict_busbw;         // empty: no design to compare with (busbw is then not judged)
  std::optional<IntendedMig> mig;       // empty: MIG layout not checked
  std::optional<DesignedFleet> design;  // empty: the fleet is not compared with a design
  // Over a range read: a run of more steps than this without a sample is a finding (node or GPU stopped
  // reporting, or missing for part of the range); empty: the checks data's (node-stopped-reporting's
  // tolerance_steps).
  std::optional<double> gap_tolerance_steps;
};

// The tolerance the reporting checks use: the options', else the checks data's.
[[nodiscard]] double gap_tolerance_steps(const ChecksData& checks, const CheckOptions& options);

[[nodiscard]] std::vector<Finding> evaluate_checks(const Fleet& fleet, const ChecksData& checks,
                                                   const CheckOptions& options);

}  // namespace gputwin::validate
