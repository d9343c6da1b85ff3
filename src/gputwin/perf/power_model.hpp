// What a GPU power limit does to throughput and power, phase by phase, and the energy of a step or a token.
//
//   Result<PowerModelData> data = load_power_model(bundled_data_dir() + "/power/power-model.yaml");
//   Result<PowerOperatingPoint> p = power_operating_point(data.value(), hw.accelerator,
//   Power::from_base(500)); PerfHardware capped = capped_hardware(hw, p.value());       // run
//   estimate_training / estimate_inference on it EnergyEstimate e = energy_of(training_phases(estimate),
//   p.value(), node_power, gpus);
//
// The rule (docs/perf-power.md, data/power/power-model.yaml): a phase that draws P_full at the default limit
// (the catalog tdp) runs at clock fraction f = 1 when the limit is at least P_full, else
// f = ((limit - idle) / (P_full - idle))^(1 / exponent), and draws min(limit, P_full). Compute-bound time
// (GEMMs) divides by the compute-bound phase's f (capped_hardware scales the dense peaks), memory-bound time
// by the memory-bound phase's f (it scales the HBM bandwidth). A memory-bound phase draws much less than the
// limit, so a cap costs it less: what the published measurements say. Communication is drawn as memory-bound,
// pipeline bubbles and host waits as idle (stated assumptions). NVLink and network bandwidths are not changed
// by a cap.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/perf/training.hpp"
#include "gputwin/perf/training_sizing.hpp"

namespace gputwin {

// A published figure's place in the data file, for error messages that point at it.
struct FigureLocation {
  int line = 0;
  std::string field;  // "accelerators[h100-sxm].min_limit"
};

// Published power figures of one accelerator (data/power/power-model.yaml `accelerators`).
struct AcceleratorPowerFigures {
  std::string accelerator;  // catalog id
  std::optional<Power> min_limit, max_limit;
  FigureLocation min_limit_at, max_limit_at;
  std::optional<Power> idle;
  std::optional<Power> compute_bound_draw;  // a GEMM-bound phase's (prefill's) draw at the default limit
  std::optional<Power> memory_bound_draw;   // a bandwidth-bound kernel's draw at the default limit
  std::optional<Power> loaded_decode_draw;  // a loaded inference server's draw (large-batch decode)
  std::optional<double> min_sm_clock_mhz, max_sm_clock_mhz;  // the SM clock range --clock-limit may lock in
  FigureLocation min_sm_clock_at, max_sm_clock_at;
  std::string confidence;
  std::string source;
};

// A published draw of a whole system under a workload, for comparison (not used by the model).
struct SystemPowerFigure {
  std::string system;
  Power training_typical;
  std::string source;
  std::string confidence;
};

// The share of a typical training step in each phase (a parameter: data/power/power-model.yaml).
struct TrainingPhaseMix {
  double compute = 0, memory = 0, idle = 0;
  std::string source;
};

// The exponent fitted for one GPU architecture (data/power/power-model.yaml `architecture_exponents`).
struct ArchitectureExponent {
  std::string architecture;  // the catalog's accelerator architecture: hopper, blackwell, ...
  double value = 3;
  std::vector<std::string> fit_rows;  // the data/reference/power-published.yaml rows it was fitted on
  FigureLocation value_at;
  std::string source;
};

struct PowerModelData {
  double dynamic_power_exponent = 3;       // parameter: power above idle grows as clock^exponent
  std::map<std::string, ArchitectureExponent> architecture_exponents;  // fitted, by architecture
  double compute_bound_draw_fraction = 1;  // parameter: a GEMM-bound phase's draw / default limit
  TrainingPhaseMix training_mix;
  Power budget_cap_step;  // parameter: the step of the caps a power-budget plan tries (budget_cap_step_w)
  double generic_idle_fraction = 0;          // of tdp, for accelerators without figures
  double generic_memory_bound_fraction = 0;  // of tdp
  std::map<std::string, AcceleratorPowerFigures> accelerators;
  std::map<std::string, SystemPowerFigure> systems;
  std::string file_label = "data/power/power-model.yaml";  // how errors name the file
};

// Reads the power model file; a bad field is a located error (file, line, field).
[[nodiscard]] Result<PowerModelData> load_power_model(const std::string& path);

// Power drawn per GPU in each phase at an operating point.
struct PhaseDraw {
  Power compute, memory, communication, idle;
};

struct PowerOperatingPoint {
  std::string accelerator;
  Power default_limit;        // the catalog tdp
  Power limit;                // the cap, or the default limit
  bool capped = false;        // limit below the default
  double compute_factor = 1;  // throughput of compute-bound time relative to the default limit
  double memory_factor = 1;   // of memory-bound time
  PhaseDraw draw;
  std::optional<double> clock_limit_mhz;  // --clock-limit: the SM clock locked at this (limit: the default)
  double max_clock_mhz = 0;               // with clock_limit_mhz: the part's maximum SM clock
  bool generic = false;  // idle and memory-bound draws are the generic fractions (no published figures)
  std::string basis;     // where the figures come from, one line
};

// The exponent of `accelerator`: its architecture's fitted one, else the generic dynamic_power_exponent.
[[nodiscard]] double exponent_for(const PowerModelData& data, const Accelerator& accelerator);

// Clock fraction a phase drawing `full` at the default limit keeps under `limit` (1 when it fits).
[[nodiscard]] double clock_fraction(Power limit, Power full, Power idle, double exponent);

// The operating point of `accelerator` under `cap` (none: the default limit). A cap on an accelerator without
// a published minimum settable limit, below that minimum or above the maximum is an error naming the
// accelerator, the figure and where it is.
[[nodiscard]] Result<PowerOperatingPoint> power_operating_point(const PowerModelData& data,
                                                                const Accelerator& accelerator,
                                                                std::optional<Power> cap);

// The operating point of `accelerator` with its SM clock locked at `clock_mhz` (--clock-limit): compute-bound
// time at f = clock / max_sm_clock_mhz, its draw idle + (P_full - idle) f^k (the cap rule inverted, k =
// exponent_for),
// memory-bound time unchanged at a draw no higher than the compute-bound one. `capped` is set when f < 1 (the
// point is below the default). An accelerator without a published SM clock range, or a clock outside it, is
// an error naming the accelerator, the figure and where it is.
[[nodiscard]] Result<PowerOperatingPoint> clock_limited_operating_point(const PowerModelData& data,
                                                                        const Accelerator& accelerator,
                                                                        double clock_mhz);

// The hardware as the performance models see it under the operating point: every dense peak times
// compute_factor, the HBM bandwidth times memory_factor.
[[nodiscard]] PerfHardware capped_hardware(PerfHardware hardware, const PowerOperatingPoint& point);

// A training estimate made on capped_hardware, with MFU, HFU and the peak put back against the datasheet peak
// (the capped peak is the model's device, not the GPU's rating).
[[nodiscard]] TrainingEstimate at_datasheet_peak(TrainingEstimate estimate, const PowerOperatingPoint& point);

enum class PowerPhase { compute, memory, communication, idle };
[[nodiscard]] const char* phase_name(PowerPhase phase);

struct PhaseTime {
  PowerPhase phase = PowerPhase::compute;
  double seconds = 0;
};

// A training step's terms as phases: compute and recompute are compute-bound, the optimizer memory-bound, the
// pipeline bubble idle, every communication term communication.
[[nodiscard]] std::vector<PhaseTime> training_phases(const TrainingEstimate& estimate);

// One unit of inference at `sequences` concurrent sequences: the prefill of every prompt and output_tokens
// decode steps. Each StepTime's bound part (the larger of compute and memory) is that phase, its
// communication communication, its host time idle.
[[nodiscard]] std::vector<PhaseTime> inference_phases(const InferenceEstimate& estimate, int output_tokens);

// The power outside the GPUs: a node's non-GPU draw and how many nodes share a rack.
struct NodePower {
  int gpus_per_node = 1;
  Power non_gpu;  // per node
  std::string non_gpu_rule;
  int nodes_per_rack = 1;
  std::string rack_rule;
};

// Non-GPU power of a catalog system: power_max - accelerators x tdp (its maximum: CPUs, memory, NICs, fans),
// never below zero.
[[nodiscard]] Power non_gpu_power(const System& system, const Accelerator& accelerator);

// A catalog system's node power: its GPUs, its non-GPU power (above) and the systems in one rack as perf size
// counts them (systems_per_rack: published count, one scale-up domain, or the default rack's power limit).
[[nodiscard]] NodePower node_power_of(const Catalog& catalog, const RackDensity& density,
                                      const System& system, const Accelerator& accelerator);

struct EnergyEstimate {
  double seconds = 0;  // of the unit (a step, or an inference unit)
  Power gpu_average, gpu_peak;
  Power node_average, node_peak;
  Power rack_average, rack_peak;
  int gpus = 0, nodes = 0;
  double gpu_energy_j = 0;  // all GPUs, one unit
  double energy_j = 0;      // GPUs and the nodes' non-GPU power, one unit
};

// Energy of one unit on `gpus` GPUs (whole nodes of node.gpus_per_node): each phase at its draw, plus the
// nodes' non-GPU power for the whole unit.
[[nodiscard]] EnergyEstimate energy_of(const std::vector<PhaseTime>& phases, const PowerOperatingPoint& point,
                                       const NodePower& node, int gpus);

}  // namespace gputwin
