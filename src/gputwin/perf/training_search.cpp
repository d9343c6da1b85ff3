#include "gputwin/perf/training_search.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace gputwin {
namespace {

std::vector<int> powers_of_two_up_to(int limit) {
  std::vector<int> powers;
  for (int p = 1; p <= limit; p *= 2) powers.push_back(p);
  return powers;
}

std::vector<int> range(int first, int last) {
  std::vector<int> values;
  for (int v = first; v <= last; ++v) values.push_back(v);
  return values;
}

// Pipeline stages whose layers split evenly (or with lighter first/last stages) under some interleaving.
bool balanced_pipeline(const TransformerModel& model, int pp, int max_virtual_stages) {
  for (int v = 1; v <= std::max(1, std::min(max_virtual_stages, model.layers / pp)); ++v) {
    if (pp == 1 || layer_split(model, pp, v) != LayerSplit::uneven) return true;
  }
  return false;
}

std::string named(const char* name, int value) {
  return std::string(name) + " " + std::to_string(value);
}

std::string format_number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// A split the generator produced, with what the search needs to rank it without keeping its whole estimate.
struct Record {
  TrainingConfig config;
  double step_time_s = 0;
  double memory_bytes = 0;
  bool fits = false;
};

int recompute_rank(Recompute r) {
  return static_cast<int>(r);
}

// The key of the practitioner's order (smaller is preferred).
auto preference_key(const TrainingConfig& c) {
  return std::make_tuple(c.tp, c.pp, c.cp, recompute_rank(c.recompute), -c.micro_batch, c.virtual_stages,
                         c.zero, c.ep);
}

// The term that grew most from `winner` to `other`, as "(name +x s)".
std::string largest_growth(const TrainingEstimate& other, const TrainingEstimate& winner) {
  std::string name;
  double growth = 0;
  for (const TimeTerm& term : other.terms) {
    for (const TimeTerm& base : winner.terms) {
      if (base.name == term.name && term.seconds - base.seconds > growth) {
        growth = term.seconds - base.seconds;
        name = term.name;
      }
    }
  }
  return name.empty() ? "" : " (" + name + " +" + format_number("%.3f", growth) + " s)";
}

}  // namespace

bool simpler_split(const TrainingConfig& a, const TrainingConfig& b) {
  return preference_key(a) < preference_key(b);
}

std::vector<SearchAxis> search_axes(const PerfHardware& hardware, const TransformerModel& model,
                                    const TrainingConfig& base, int gpus, const SearchSpace& space) {
  // Tensor parallelism stays inside the scale-up domain (NVLink), across trays when the domain spans nodes; a
  // size that does not tile a multi-node domain (16 in 72) would leave groups straddling two domains.
  const int max_tp = std::max(1, hardware.scale_up_domain);
  const int node = std::max(1, hardware.gpus_per_node);
  const int domain = hardware.placement_domain();
  auto tiles_domain = [=](int tp) { return tp <= node || domain % tp == 0; };
  std::vector<SearchAxis> axes;
  axes.push_back({"tp",
                  [=](const TrainingConfig&) {
                    std::vector<int> values;
                    for (int tp : powers_of_two_up_to(std::min(max_tp, gpus))) {
                      if (tiles_domain(tp) && model.heads % tp == 0 &&
                          (tp <= model.kv_heads || tp % model.kv_heads == 0))
                        values.push_back(tp);
                    }
                    return values;
                  },
                  [](TrainingConfig& c, int v) { c.tp = v; }, [](int v) { return named("tp", v); }});
  axes.push_back({"pp",
                  [=](const TrainingConfig& c) {
                    std::vector<int> values;
                    for (int pp : range(1, std::min(model.layers, gpus / c.tp)))
                      if (balanced_pipeline(model, pp, space.max_virtual_stages)) values.push_back(pp);
                    return values;
                  },
                  [](TrainingConfig& c, int v) { c.pp = v; }, [](int v) { return named("pp", v); }});
  axes.push_back({"vp",
                  [=](const TrainingConfig& c) {
                    if (c.pp == 1) return std::vector<int>{1};
                    std::vector<int> values;
                    for (int v : range(1, std::min(space.max_virtual_stages, model.layers / c.pp)))
                      if (layer_split(model, c.pp, v) != LayerSplit::uneven) values.push_back(v);
                    return values;
                  },
                  [](TrainingConfig& c, int v) { c.virtual_stages = v; },
                  [](int v) { return named("vp", v); }});
  axes.push_back({"cp",
                  [=](const TrainingConfig& c) {
                    std::vector<int> values;
                    for (int cp :
                         powers_of_two_up_to(std::min(space.max_context_parallel, gpus / (c.tp * c.pp))))
                      if (base.sequence % cp == 0) values.push_back(cp);
                    return values;
                  },
                  [](TrainingConfig& c, int v) { c.cp = v; }, [](int v) { return named("cp", v); }});
  // Expert parallelism: powers of two that divide the routed experts (1 only for a dense model); the dp
  // axis then keeps d c divisible by it (Megatron carves ep out of d x c).
  axes.push_back({"ep",
                  [=](const TrainingConfig& c) {
                    std::vector<int> values{1};
                    if (!model.is_moe()) return values;
                    for (int ep = 2; ep <= std::min(model.moe.experts, gpus / c.model_parallel()); ep *= 2)
                      if (model.moe.experts % ep == 0) values.push_back(ep);
                    return values;
                  },
                  [](TrainingConfig& c, int v) { c.ep = v; }, [](int v) { return named("ep", v); }});
  // ZeRO 1: Megatron's distributed optimizer (sharding strategy `optim`: optimizer state only, the gradient
  // buffer whole). ZeRO 2 wherever there is data parallelism to shard over, with any tp and pp: gradients and
  // optimizer state sharded, the weights whole (Megatron FSDP's `optim_grads`, PyTorch FSDP's
  // SHARD_GRAD_OP; Meta's Llama 3.1 405B at TP 8 PP 16). FSDP (ZeRO-3) only without tensor or pipeline
  // parallelism, where frameworks offer it.
  axes.push_back({"zero",
                  [=](const TrainingConfig& c) {
                    std::vector<int> stages{1};
                    if (gpus / c.model_parallel() > 1) stages.push_back(2);
                    if (c.tp == 1 && c.pp == 1) stages.push_back(3);
                    return stages;
                  },
                  [](TrainingConfig& c, int v) { c.zero = v; }, [](int v) { return named("ZeRO", v); }});
  axes.push_back({"micro-batch", [=](const TrainingConfig&) { return space.micro_batches; },
                  [](TrainingConfig& c, int v) { c.micro_batch = v; },
                  [](int v) { return named("micro-batch", v); }});
  axes.push_back(
      {"recompute",
       [](const TrainingConfig&) {
         return std::vector<int>{0, 1, 2};
       },
       [](TrainingConfig& c, int v) { c.recompute = static_cast<Recompute>(v); },
       [](int v) { return "recompute " + std::string(recompute_name(static_cast<Recompute>(v))); }});
  // The largest data-parallel size the GPUs hold whose micro-batches divide the global batch (and whose d c
  // the expert-parallel size divides).
  axes.push_back({"dp",
                  [=](const TrainingConfig& c) {
                    for (int d = gpus / c.model_parallel(); d >= 1; --d) {
                      if (base.global_batch % (c.micro_batch * d) == 0 && (d * c.cp) % c.ep == 0)
                        return std::vector<int>{d};
                    }
                    return std::vector<int>{};
                  },
                  [](TrainingConfig& c, int v) { c.dp = v; }, [](int v) { return named("dp", v); }});
  return axes;
}

void for_each_split(const std::vector<SearchAxis>& axes, const TrainingConfig& base,
                    const std::function<void(const TrainingConfig&)>& visit) {
  const std::function<void(std::size_t, TrainingConfig&)> expand = [&](std::size_t axis, TrainingConfig& c) {
    if (axis == axes.size()) {
      visit(c);
      return;
    }
    for (int value : axes[axis].values(c)) {
      axes[axis].set(c, value);
      expand(axis + 1, c);
    }
  };
  TrainingConfig config = base;
  expand(0, config);
}

TrainingSearch search_training(const PerfHardware& hardware, const CollectiveModel& collectives,
                               const TrainingCalibration& calibration, const TransformerModel& model,
                               const TrainingConfig& base, int gpus, const SearchSpace& space) {
  TrainingSearch search;
  search.tie_tolerance = space.tie_tolerance;
  const std::vector<SearchAxis> axes = search_axes(hardware, model, base, gpus, space);
  // Axis values read back from a config, in the order of `axes`.
  const auto value_of = [](const TrainingConfig& c, std::size_t axis) {
    const int values[] = {
        c.tp, c.pp, c.virtual_stages, c.cp, c.ep, c.zero, c.micro_batch, recompute_rank(c.recompute), c.dp};
    return values[axis];
  };
  std::vector<Record> fitting;
  // Without the explanation only the winner is kept, so a record slower than the tie limit of the fastest so
  // far is dropped (the fastest only gets faster, so it can never tie or win); with it, every record is kept
  // for the top few.
  double fastest_so_far = std::numeric_limits<double>::infinity();
  const auto keep_if_it_may_tie = [&](const Record& record) {
    if (space.explain) {
      fitting.push_back(record);
      return;
    }
    if (record.step_time_s > fastest_so_far * (1 + space.tie_tolerance)) return;
    if (record.step_time_s < fastest_so_far) {
      fastest_so_far = record.step_time_s;
      const double limit = fastest_so_far * (1 + space.tie_tolerance);
      std::erase_if(fitting, [&](const Record& kept) { return kept.step_time_s > limit; });
    }
    fitting.push_back(record);
  };
  // Per axis and value: the fastest fitting record, and the least over-full one when none fits.
  std::map<std::pair<std::size_t, int>, Record> fastest, least_over;
  for (int tp : axes.front().values(base)) {
    for (int pp : range(1, std::min(model.layers, gpus / tp)))
      if (!balanced_pipeline(model, pp, space.max_virtual_stages)) ++search.unbalanced;
  }
  for_each_split(axes, base, [&](const TrainingConfig& split) {
    TrainingConfig c = split;
    if (!check_training_config(model, c, gpus).empty()) return;
    ++search.candidates;
    const MemoryFootprint memory = training_memory(model, c, hardware.accelerator.memory);
    Record record{c, 0, memory.total().base(), memory.fits()};
    if (record.fits) {
      record.step_time_s = estimate_training(hardware, collectives, calibration, model, c).step_time_s;
      ++search.fitting;
      keep_if_it_may_tie(record);
    }
    for (std::size_t axis = 0; space.explain && axis + 1 < axes.size(); ++axis) {
      const auto key = std::make_pair(axis, value_of(c, axis));
      if (record.fits) {
        auto [it, inserted] = fastest.try_emplace(key, record);
        if (!inserted && record.step_time_s < it->second.step_time_s) it->second = record;
      } else {
        auto [it, inserted] = least_over.try_emplace(key, record);
        if (!inserted && record.memory_bytes < it->second.memory_bytes) it->second = record;
      }
    }
  });
  if (fitting.empty()) return search;

  const double fastest_s =
      std::min_element(fitting.begin(), fitting.end(), [](const Record& a, const Record& b) {
        return a.step_time_s < b.step_time_s;
      })->step_time_s;
  const double tie_limit = fastest_s * (1 + space.tie_tolerance);
  // Ties first in the practitioner's order, then the rest by step time.
  std::sort(fitting.begin(), fitting.end(), [&](const Record& a, const Record& b) {
    const bool a_ties = a.step_time_s <= tie_limit, b_ties = b.step_time_s <= tie_limit;
    if (a_ties != b_ties) return a_ties;
    if (a_ties) return simpler_split(a.config, b.config);
    if (a.step_time_s != b.step_time_s) return a.step_time_s < b.step_time_s;
    return simpler_split(a.config, b.config);
  });
  search.ties = static_cast<int>(std::count_if(fitting.begin(), fitting.end(),
                                               [&](const Record& r) { return r.step_time_s <= tie_limit; }));
  const auto estimate = [&](const TrainingConfig& c) {
    return estimate_training(hardware, collectives, calibration, model, c);
  };
  const int keep = space.explain ? std::max(1, space.top) : 1;
  for (std::size_t i = 0; i < fitting.size() && static_cast<int>(i) < keep; ++i) {
    search.top.push_back(estimate(fitting[i].config));
  }
  search.best = search.top.front();
  const TrainingEstimate& winner = *search.best;
  const TrainingConfig& chosen = winner.config;
  for (std::size_t axis = 0; space.explain && axis + 1 < axes.size(); ++axis) {
    std::vector<int> seen;
    for (const auto& [key, record] : fastest) {
      if (key.first == axis) seen.push_back(key.second);
    }
    for (const auto& [key, record] : least_over) {
      if (key.first == axis && std::find(seen.begin(), seen.end(), key.second) == seen.end())
        seen.push_back(key.second);
    }
    std::sort(seen.begin(), seen.end());
    for (int value : seen) {
      if (value == value_of(chosen, axis)) continue;
      AxisAlternative alternative;
      alternative.axis = axes[axis].name;
      alternative.value = axes[axis].label(value);
      const auto fit = fastest.find({axis, value});
      if (fit != fastest.end()) {
        alternative.best = estimate(fit->second.config);
        const double slower = alternative.best->step_time_s / winner.step_time_s - 1;
        alternative.reason = slower <= space.tie_tolerance
                                 ? "ties within " + format_number("%.0f", 100 * space.tie_tolerance) +
                                       " % (" + format_number("%+.1f", 100 * slower) +
                                       " %); the simpler split wins"
                                 : format_number("%+.1f", 100 * slower) + " % step time" +
                                       largest_growth(*alternative.best, winner);
      } else {
        const Record& over = least_over.at({axis, value});
        alternative.reason = "does not fit: " + format_number("%.1f", over.memory_bytes / 1e9) + " of " +
                             format_number("%.1f", in_gigabytes(hardware.accelerator.memory)) + " GB at best";
      }
      search.alternatives.push_back(std::move(alternative));
    }
  }
  return search;
}

}  // namespace gputwin
