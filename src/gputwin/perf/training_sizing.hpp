// The planner's first question: per accelerator, how many GPUs (and which split) train a model on T tokens
// within D days, whether it fits, the expected MFU and, with GPU-hour prices, the cost.
//
//   SizingRequest request{&model, 15e12, 90, base_config, {"h100-sxm", "b200"}, prices};
//   std::vector<SizingRow> rows = size_training(catalog, collectives, calibration, request);
//
// Each accelerator is sized on the catalog platform that carries it (system_for_accelerator), with a
// non-blocking fabric (perf_hardware_of_system): the smallest node count whose fastest fitting split
// (search_training) finishes in time is the answer (smallest_node_count); in time means its time-to-train
// under failures (request.time_to_train) is within the days, or its work days when failures are excluded. The
// answer's racks are counted with systems_per_rack (data/perf/sizing-racks.yaml) and its power is the
// systems' maximum draw.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/training.hpp"

namespace gputwin {

// Sequences per step when the user gives none: 16M tokens, Llama 3 405B's final batch (Dubey et al. 2024,
// "The Llama 3 Herd of Models", 3.4.1), in sequences of `sequence` tokens.
[[nodiscard]] int default_global_batch(int sequence);

// One node count tried: the fastest split that fits in memory there and the days it takes, or none.
struct SizingTrial {
  int nodes = 0;
  int gpus = 0;
  std::optional<TrainingEstimate> estimate;  // empty when nothing fits in memory
  double days = 0;                           // work days: training days with `estimate`, no failure
  int unit_nodes = 1;  // the step nodes are bought in on this design (a scalable unit, one leaf's nodes)
  int racks = 0;       // rack-scale systems when the count is racks (nodes = racks x trays); 0 otherwise
  // Time-to-train under failures (the goodput model's work days / ETTR), when the deadline counts failures
  // (count_failures); the deadline is then held against it instead of the work days.
  std::optional<double> wall_days;
  bool failures_uncounted = false;  // the deadline asked for failures but the goodput model could not run

  [[nodiscard]] double deadline_days() const { return wall_days.value_or(days); }
  // The one deadline rule of `perf size` and `plan`: time-to-train when known, else work days.
  [[nodiscard]] bool in_time(double limit) const { return estimate && deadline_days() <= limit; }
};

// The time-to-train in days of `gpus` GPUs of `system` that need `work_days` of failure-free work, or empty
// when the failure model cannot run for them (plan/sizing_goodput gives the goodput model's).
using TimeToTrain = std::function<std::optional<double>(const System& system, int gpus, double work_days)>;

// Counts failures in a timed trial's deadline: sets wall_days from `time_to_train`, or failures_uncounted
// when it has no answer. Skipped when the work days alone miss `limit` (failures only add time) or when
// `time_to_train` is empty (the deadline excludes failures).
void count_failures(SizingTrial& trial, const System& system, double limit, const TimeToTrain& time_to_train);

struct NodeCountSearch {
  std::optional<SizingTrial> answer;  // the smallest count in time; empty when none up to the maximum is
  std::vector<SizingTrial> trials;    // every count tried, in the order tried
  int unit_nodes = 1;                 // the step of the bisection
};

// The smallest node count up to `max_nodes` whose trial finishes within `days`. Counts double from one node
// until one is in time; then the multiples of that design's unit_nodes between the last count that was not
// in time and the first that was are bisected, so that one unit fewer was tried and is not in time. (A count
// whose GPUs split badly can be slower than a smaller one; whole units split well, and bisection assumes
// more nodes never take longer. The answer is always a count that was tried and is in time.) The count is
// whatever is bought whole: nodes, or racks of a rack-scale system, whose trial then holds every tray of
// them as its nodes and gives its unit in racks.
[[nodiscard]] NodeCountSearch smallest_node_count(int max_nodes, double days,
                                                  const std::function<SizingTrial(int nodes)>& trial);

// The days `tokens` take at the estimate's throughput.
[[nodiscard]] double training_days(double tokens, const TrainingEstimate& estimate);

// How many of a catalog system share one rack (data/perf/sizing-racks.yaml): published counts per system, and
// the catalog cooling and facility whose limits bound every other system.
struct RackDensity {
  std::map<std::string, int> published_per_rack;  // system id -> systems in one rack of a published design
  std::map<std::string, std::string> sources;     // system id -> where that count comes from
  std::string default_cooling;                    // catalog cooling id: its max_rack_power bounds a rack
  std::string default_facility;                   // catalog facility_defaults id: its rack_units bound a rack
};

// Reads the rack-density file; an unknown system, cooling or facility id, or a count below one, is an error
// naming the file, line and field.
[[nodiscard]] Result<RackDensity> load_rack_density(const std::string& path, const Catalog& catalog);

struct SystemsPerRack {
  int systems = 1;
  std::string rule;  // how the count was found, for the output
};

// Systems in one rack: the published count; else one scale-up domain per rack when the domain spans several
// systems (an NVL72 of 18 trays); else as many as the default cooling's rack power and the default rack's
// height hold (at least one).
[[nodiscard]] SystemsPerRack systems_per_rack(const Catalog& catalog, const RackDensity& density,
                                              const System& system);

struct SizingRequest {
  const TransformerModel* model = nullptr;
  double tokens = 0;
  double days = 0;
  TrainingConfig base;  // sequence, global batch, precision
  std::vector<std::string> accelerators;
  std::map<std::string, Money> gpu_hour_prices;  // accelerator id -> price of one GPU-hour
  int max_gpus = 131072;
  MemoryReserve memory_reserve;              // the data's per-GPU reserve (memory.yaml), per accelerator
  std::optional<ByteSize> reserve_override;  // --memory-reserve: the same reserve on every accelerator
  RackDensity rack_density;                  // for the racks of each answer
  // --gemm-fraction: GEMM peak fractions the user assumes for architectures the data leaves unknown (cdna3,
  // cdna4); never replaces a fitted one.
  std::map<std::string, double> assumed_gemm_fractions;
  // How failures stretch a run: a count meets `days` only when its time-to-train does. Empty: the deadline
  // is held against the work days (--days-exclude-failures).
  TimeToTrain time_to_train;
};

struct SizingRow {
  std::string accelerator;
  std::string system;                        // the catalog system that carries it; empty when none does
  std::string note;                          // why there is no answer, when there is none
  std::optional<TrainingEstimate> estimate;  // the fastest fitting split on `gpus`
  int gpus = 0;
  int nodes = 0;                    // systems bought
  double days = 0;                  // work days (no failure)
  std::optional<double> wall_days;  // time-to-train under failures, when the deadline counted them
  bool failures_uncounted = false;  // the deadline asked for failures, the goodput model could not run
  std::optional<double> cost_usd;   // GPU-hours x the GPU-hour price
  int racks = 0;                    // compute racks of `nodes` systems
  SystemsPerRack per_rack;
  double power_kw = 0;                          // the systems' maximum draw (no fabric, storage or cooling)
  std::optional<double> assumed_gemm_fraction;  // set when the step time rests on a user-set fraction
  std::string caveat;  // what the model does not capture for this platform (empty when nothing is known)
};

[[nodiscard]] std::vector<SizingRow> size_training(const Catalog& catalog, const CollectiveModel& collectives,
                                                   const TrainingCalibration& calibration,
                                                   const SizingRequest& request);

// A GPU-hour price list, `gpu_hour: {h100-sxm: 2.50 USD, ...}` (one GPU-hour per catalog accelerator id); an
// id the catalog lacks or a price without a currency is an error naming the file, line and field.
[[nodiscard]] Result<std::map<std::string, Money>> load_gpu_hour_prices(const std::string& path,
                                                                        const Catalog& catalog);

// The catalog system sizing uses for an accelerator: a "dgx-" system when one carries it, else the one with
// the largest scale-up domain (a rack-scale tray over an 8-GPU server), else the first in catalog order.
[[nodiscard]] const System* system_for_accelerator(const Catalog& catalog, const std::string& accelerator_id);

}  // namespace gputwin
