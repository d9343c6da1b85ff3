#include "gputwin/perf/training_search.hpp"

#include <array>
#include <vector>

namespace gputwin {
namespace {

std::vector<int> divisors_up_to(int value, int limit) {
  std::vector<int> divisors;
  for (int d = 1; d <= value && d <= limit; ++d) {
    if (value % d == 0) divisors.push_back(d);
  }
  return divisors;
}

std::vector<int> powers_of_two_up_to(int limit) {
  std::vector<int> powers;
  for (int p = 1; p <= limit; p *= 2) powers.push_back(p);
  return powers;
}

// The choices tried beside the split. Tensor parallelism stays inside the scale-up domain (its collectives
// run every layer); context parallelism up to 16 (beyond, the key/value exchange outgrows attention); FSDP
// (ZeRO-3) only without tensor or pipeline parallelism, where frameworks offer it.
constexpr std::array kMicroBatches{1, 2, 4, 8};
constexpr std::array kRecompute{Recompute::none, Recompute::selective, Recompute::full};
constexpr std::array kVirtualStages{1, 2, 3, 4};
constexpr int kMaxContextParallel = 16;

bool better(const TrainingEstimate& candidate, const std::optional<TrainingEstimate>& best) {
  return !best || candidate.step_time_s < best->step_time_s;
}

}  // namespace

TrainingSearch search_training(const PerfHardware& hardware, const CollectiveModel& collectives,
                               const TrainingCalibration& calibration, const TransformerModel& model,
                               const TrainingConfig& base, int gpus) {
  TrainingSearch search;
  const int max_tp = std::max(1, hardware.scale_up_domain);
  for (int tp : powers_of_two_up_to(max_tp)) {
    if (gpus % tp != 0) continue;
    for (int pp : divisors_up_to(gpus / tp, model.layers)) {
      for (int cp : powers_of_two_up_to(std::min(kMaxContextParallel, gpus / (tp * pp)))) {
        if (gpus % (tp * pp * cp) != 0) continue;
        for (int v : kVirtualStages) {
          if (v > 1 && pp == 1) break;
          for (int b : kMicroBatches) {
            for (int zero : {1, 3}) {
              if (zero == 3 && (tp > 1 || pp > 1)) continue;
              for (Recompute recompute : kRecompute) {
                TrainingConfig c = base;
                c.tp = tp;
                c.pp = pp;
                c.cp = cp;
                c.dp = 0;
                c.virtual_stages = v;
                c.micro_batch = b;
                c.zero = zero;
                c.recompute = recompute;
                if (!check_training_config(model, c, gpus).empty()) continue;
                ++search.candidates;
                if (!training_memory(model, c, hardware.accelerator.memory).fits()) continue;
                ++search.fitting;
                TrainingEstimate estimate = estimate_training(hardware, collectives, calibration, model, c);
                if (better(estimate, search.best)) search.best = std::move(estimate);
              }
            }
          }
        }
      }
    }
  }
  return search;
}

}  // namespace gputwin
