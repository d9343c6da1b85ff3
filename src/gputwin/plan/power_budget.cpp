#include "gputwin/plan/power_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gputwin/design/design.hpp"
#include "gputwin/perf/system_power.hpp"

namespace gputwin {
namespace {

[[noreturn]] void fail_at(const ClusterSpec& spec, const std::string& field, const std::string& message) {
  throw InputFailure(InputError{spec.where(field), field, message});
}

std::string watts_text(Power p) {
  return fmt::format("{:g} W", p.base());
}

// The caps tried on `accelerator`: its default limit, then every step below it down to its published
// minimum settable limit; the default limit alone without a published range.
std::vector<Power> caps_of(const PowerModelData& power, const Accelerator& accelerator) {
  std::vector<Power> caps{accelerator.tdp};
  const auto figures = power.accelerators.find(accelerator.info.id);
  if (figures == power.accelerators.end() || !figures->second.min_limit || !figures->second.max_limit)
    return caps;
  const Power lowest = *figures->second.min_limit;
  const double step = power.budget_cap_step.base();
  for (double w = accelerator.tdp.base() - step; w > lowest.base() + 1e-9; w -= step)
    caps.push_back(Power::from_base(w));
  if (lowest < accelerator.tdp) caps.push_back(lowest);
  return caps;
}

// One GPU's typical draw under training at `point` (the power model's training phase mix).
Power mix_draw(const PowerModelData& power, const PowerOperatingPoint& point) {
  const TrainingPhaseMix& mix = power.training_mix;
  return point.draw.compute * mix.compute + point.draw.memory * mix.memory + point.draw.idle * mix.idle;
}

PowerOperatingPoint operating_point(const PowerModelData& power, const Accelerator& accelerator,
                                    std::optional<Power> cap) {
  auto point = power_operating_point(power, accelerator, cap);
  if (!point.ok()) throw InputFailure(point.errors().front());
  return std::move(point).value();
}

// A system's maximum and typical power with its GPUs at `cap`.
struct CappedPower {
  Power power_max, typical;
  double typical_ratio = 1;  // of the typical power at the default limit
};

CappedPower capped_system(const PowerModelData& power, const System& system, const Accelerator& accelerator,
                          Power cap) {
  const Power saved = (accelerator.tdp - cap) * system.accelerators;
  const Power non_gpu = non_gpu_power(system, accelerator);
  const Power at_default =
      mix_draw(power, operating_point(power, accelerator, std::nullopt)) * system.accelerators + non_gpu;
  const Power at_cap =
      mix_draw(power, operating_point(power, accelerator, cap)) * system.accelerators + non_gpu;
  const double ratio = at_default > Power{} ? at_cap / at_default : 1.0;
  const Power power_max = system.power_max - saved;
  // Without a typical figure the maximum stands in for it (as plan does), so the capped maximum bounds it.
  const Power typical = std::min(system.power_typical.value_or(system.power_max) * ratio, power_max);
  return {power_max, typical, ratio};
}

// What one platform at one cap gives within the budget.
struct Sized {
  BudgetCandidate row;
  std::optional<SizingTrial> answer;
  std::vector<SizingTrial> trials;
  double one_count_kw = 0;  // the design of one node (or rack) and its fabric: the least it needs
};

class BudgetSearch {
 public:
  BudgetSearch(const ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs,
               const PowerOperatingPoint* point, int max_count)
      : spec_(spec), catalog_(catalog), inputs_(inputs), point_(point), max_count_(max_count) {}

  void run(const WorkloadSetup& setup, Sized& sized) {
    const Power budget = *spec_.facility.power_budget;
    const auto one = design_count(spec_, catalog_, 1);  // a design error at one count is the spec's error
    sized.one_count_kw = in_kilowatts(one.power.facility_max);
    if (one.power.facility_max > budget) {
      sized.row.note =
          fmt::format("one {} and its fabric need {} of facility power, over the budget",
                      spec_.rack_system.empty() ? "node" : "rack", format_power(one.power.facility_max));
      return;
    }
    const int largest = largest_fitting(budget);
    const Cluster design = design_count(spec_, catalog_, largest);
    SizingTrial best = time_design(design, spec_, catalog_, inputs_, setup, largest, point_);
    sized.trials.push_back(best);
    const int unit = std::max(1, best.unit_nodes);
    const int whole = largest / unit * unit;
    if (whole > 0 && whole < largest) {
      SizingTrial units = time_count(spec_, catalog_, inputs_, setup, whole, point_);
      sized.trials.push_back(units);
      if (units.estimate &&
          (!best.estimate || units.estimate->tokens_per_second > best.estimate->tokens_per_second)) {
        best = units;
      }
    }
    const int count = spec_.rack_system.empty() ? best.nodes : best.racks;
    const Cluster chosen = count == largest ? design : design_count(spec_, catalog_, count);
    BudgetCandidate& row = sized.row;
    row.nodes = best.nodes;
    row.gpus = best.gpus;
    row.rack_systems = best.racks;
    row.racks = static_cast<int>(chosen.racks.size());
    row.facility_kw = in_kilowatts(chosen.power.facility_max);
    row.it_kw = in_kilowatts(chosen.power.it_max);
    if (!best.estimate) {
      row.note = fmt::format("{} does not fit in memory on the {} GPUs the budget allows", setup.model.name,
                             best.gpus);
      return;
    }
    row.fits = true;
    row.tokens_per_second = best.estimate->tokens_per_second;
    row.days = best.days;
    row.mfu = best.estimate->mfu;
    sized.answer = best;
  }

 private:
  bool fits(int count, Power budget) {
    try {
      return design_count(spec_, catalog_, count).power.facility_max <= budget;
    } catch (const InputFailure&) {
      return false;  // a count the spec's fabric cannot build (a fourth tier) is past what it allows
    }
  }

  // The largest count whose design fits: doubling from one (which fits), then bisection.
  int largest_fitting(Power budget) {
    int fitting = 1;
    int over = 0;
    while (over == 0) {
      const int next = std::min(fitting * 2, max_count_);
      if (next == fitting) return fitting;
      if (fits(next, budget)) {
        fitting = next;
      } else {
        over = next;
      }
    }
    while (over - fitting > 1) {
      const int middle = fitting + (over - fitting) / 2;
      (fits(middle, budget) ? fitting : over) = middle;
    }
    return fitting;
  }

  const ClusterSpec& spec_;
  const Catalog& catalog_;
  const WorkloadFitInputs& inputs_;
  const PowerOperatingPoint* point_;
  int max_count_;
};

// Fields whose failure means a platform cannot train the workload at all (it loses).
bool is_a_loss(const InputError& error) {
  return error.field == "nodes.workload.precision" || error.field == "nodes.workload.memory_reserve";
}

Sized size_candidate(const ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs,
                     Power cap) {
  const System& system = catalog.get<System>(spec.node_system);
  const Accelerator& accelerator = catalog.get<Accelerator>(system.accelerator);
  Sized sized;
  sized.row.system = spec.rack_system.empty() ? spec.node_system : spec.rack_system;
  sized.row.accelerator = accelerator.info.id;
  sized.row.cap = cap;
  sized.row.capped = cap < accelerator.tdp;
  std::optional<Catalog> capped;
  std::optional<PowerOperatingPoint> point;
  if (sized.row.capped) {
    capped = capped_catalog(catalog, *inputs.power, spec, cap);
    point = operating_point(*inputs.power, accelerator, cap);
  }
  const Catalog& used = capped ? *capped : catalog;
  WorkloadSetup setup;
  try {
    setup = workload_setup(spec, used, inputs);
  } catch (const InputFailure& failure) {
    if (!is_a_loss(failure.error())) throw;
    sized.row.note = failure.error().message;
    return sized;
  }
  const int gpus_per_count = system.accelerators * nodes_per_count(spec, catalog);
  BudgetSearch(spec, used, inputs, point ? &*point : nullptr, std::max(1, inputs.max_gpus / gpus_per_count))
      .run(setup, sized);
  return sized;
}

// The highest throughput wins; ties go to the lower facility power, then the listed order.
std::size_t choose(std::vector<BudgetCandidate>& rows) {
  std::size_t best = rows.size();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].fits) continue;
    if (best == rows.size() || rows[i].tokens_per_second > rows[best].tokens_per_second ||
        (rows[i].tokens_per_second == rows[best].tokens_per_second &&
         rows[i].facility_kw < rows[best].facility_kw))
      best = i;
  }
  if (best == rows.size()) return best;
  const BudgetCandidate& won = rows[best];
  rows[best].chosen = true;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    BudgetCandidate& row = rows[i];
    if (i == best) continue;
    if (!row.fits) {
      row.lost = row.note;
    } else if (row.tokens_per_second < won.tokens_per_second) {
      row.lost = fmt::format("{:.1f} % fewer tokens/s than {} at {}",
                             100 * (1 - row.tokens_per_second / won.tokens_per_second), won.system,
                             watts_text(won.cap));
    } else {
      row.lost = fmt::format("as fast, more facility power than {} at {}", won.system, watts_text(won.cap));
    }
  }
  return best;
}

std::string cap_rule_of(const std::vector<ClusterSpec>& platforms, const Catalog& catalog,
                        const PowerModelData& power) {
  std::string rule;
  std::vector<std::string> seen;
  for (const ClusterSpec& platform : platforms) {
    const Accelerator& accelerator =
        catalog.get<Accelerator>(catalog.get<System>(platform.node_system).accelerator);
    if (std::find(seen.begin(), seen.end(), accelerator.info.id) != seen.end()) continue;
    seen.push_back(accelerator.info.id);
    const std::vector<Power> caps = caps_of(power, accelerator);
    rule += (rule.empty() ? "" : "; ") + accelerator.info.id + ": ";
    rule += caps.size() == 1
                ? fmt::format("{} only (no published settable range)", watts_text(caps.front()))
                : fmt::format("{} down to {} in {} steps (published range)", watts_text(caps.front()),
                              watts_text(caps.back()), watts_text(power.budget_cap_step));
  }
  return rule;
}

}  // namespace

Catalog capped_catalog(const Catalog& catalog, const PowerModelData& power, const ClusterSpec& spec,
                       Power cap) {
  Catalog capped = catalog;
  const System& system = catalog.get<System>(spec.node_system);
  const Accelerator& accelerator = catalog.get<Accelerator>(system.accelerator);
  const CappedPower node = capped_system(power, system, accelerator, cap);
  const auto note = [&](const std::string& basis) {
    TypicalPowerNote n;
    const std::string old_basis = system.typical_note ? system.typical_note->basis : "catalog";
    n.basis = fmt::format("{}, GPUs capped at {}", old_basis, watts_text(cap));
    n.confidence = system.typical_note ? system.typical_note->confidence : "derived";
    n.source = fmt::format(
        "{}: power_max less {} GPUs x ({} TDP - {} cap); typical x {:.3f}, the power model's training mix at "
        "the cap over at the default limit ({})",
        basis, system.accelerators, watts_text(accelerator.tdp), watts_text(cap), node.typical_ratio,
        power.file_label);
    return n;
  };
  const auto set = [&](const std::string& id, Power power_max, Power typical, TypicalPowerNote n) {
    const auto done = capped.set_capped_power(id, power_max, typical, std::move(n));
    if (!done.ok()) throw InputFailure(done.errors().front());
  };
  set(system.info.id, node.power_max, node.typical, note(system.info.id));
  if (!spec.rack_system.empty()) {
    const RackSystem& rack = catalog.get<RackSystem>(spec.rack_system);
    const Power trays_saved = (system.power_max - node.power_max) * rack.compute_trays;
    const Power tray_typical = system.power_typical.value_or(system.power_max);
    const Power typical =
        rack.power_typical.value_or(rack.power_max) - (tray_typical - node.typical) * rack.compute_trays;
    set(rack.info.id, rack.power_max - trays_saved, typical, note(rack.info.id));
  }
  return capped;
}

BudgetFit fit_power_budget(const ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs) {
  if (inputs.power == nullptr) {
    fail_at(spec, "facility.power_budget", "planning within a power budget needs the power model");
  }
  const std::vector<ClusterSpec> platforms =
      spec.candidates.empty() ? std::vector<ClusterSpec>{spec} : spec.candidates;
  std::vector<Sized> sized;
  for (const ClusterSpec& platform : platforms) {
    const Accelerator& accelerator =
        catalog.get<Accelerator>(catalog.get<System>(platform.node_system).accelerator);
    for (const Power cap : caps_of(*inputs.power, accelerator)) {
      try {
        sized.push_back(size_candidate(platform, catalog, inputs, cap));
      } catch (const InputFailure& failure) {
        InputError error = failure.error();
        const std::string id = platform.rack_system.empty() ? platform.node_system : platform.rack_system;
        error.message = fmt::format("for {} at a {} cap: {}", id, watts_text(cap), error.message);
        throw InputFailure(error);
      }
    }
  }
  std::vector<BudgetCandidate> rows;
  for (const Sized& s : sized) rows.push_back(s.row);
  BudgetFit fit;
  fit.plan.budget = *spec.facility.power_budget;
  fit.plan.cap_rule = cap_rule_of(platforms, catalog, *inputs.power);
  const std::size_t best = choose(rows);
  if (best == rows.size()) {
    const bool none_fits_budget = std::all_of(sized.begin(), sized.end(), [](const Sized& s) {
      return s.one_count_kw > 0 && s.row.note.find("over the budget") != std::string::npos;
    });
    if (none_fits_budget) {
      const auto smallest = std::min_element(sized.begin(), sized.end(), [](const Sized& a, const Sized& b) {
        return a.one_count_kw < b.one_count_kw;
      });
      fail_at(
          spec, "facility.power_budget",
          fmt::format("{} is too small for one node of any platform: the smallest design, one {}{} with its "
                      "fabric and racks, needs {} of facility power (IT at maximum x PUE); give at least "
                      "that",
                      format_power(*spec.facility.power_budget), smallest->row.system,
                      smallest->row.capped ? " at a " + watts_text(smallest->row.cap) + " cap" : "",
                      format_power(Power::from_base(smallest->one_count_kw * 1000))));
    }
    std::string reasons;
    for (const BudgetCandidate& row : rows)
      reasons += fmt::format("{}{} at {}: {}", reasons.empty() ? "" : "; ", row.system, watts_text(row.cap),
                             row.note);
    fail_at(spec, "facility.power_budget",
            "no design within " + format_power(*spec.facility.power_budget) + " trains the workload (" +
                reasons + ")");
  }
  fit.plan.candidates = rows;
  fit.plan.chosen = best;
  const Sized& won = sized[best];
  if (won.row.capped) fit.plan.cap = won.row.cap;
  std::size_t platform = 0;
  for (std::size_t i = 0; i < platforms.size(); ++i) {
    const ClusterSpec& p = platforms[i];
    if ((p.rack_system.empty() ? p.node_system : p.rack_system) == won.row.system) platform = i;
  }
  fit.spec = with_count(platforms[platform], catalog,
                        platforms[platform].rack_system.empty() ? won.answer->nodes : won.answer->racks);
  fit.spec.candidates.clear();
  fit.setup = workload_setup(fit.spec, catalog, inputs);
  fit.answer = *won.answer;
  fit.trials = won.trials;
  fit.plan.meets_days = fit.setup.target.days <= 0 || fit.answer.days <= fit.setup.target.days;
  return fit;
}

}  // namespace gputwin
