#include "gputwin/design/boundary_step.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gputwin/design/node_groups.hpp"

namespace gputwin {
namespace {

template <typename Spec>  // ClusterSpec or const ClusterSpec
auto& fabric_spec(Spec& spec, NetworkRole role) {
  switch (role) {
    case NetworkRole::storage:
      return spec.storage;
    case NetworkRole::inband:
      return spec.inband;
    case NetworkRole::oob:
      return spec.oob;
    default:
      return spec.compute;
  }
}

int switches_of(const Fabric& fabric) {
  return fabric.switches_in(Tier::leaf) + fabric.switches_in(Tier::spine) + fabric.switches_in(Tier::core);
}

std::string ordinal(int n) {
  static const char* const kWords[] = {"zeroth", "first", "second", "third", "fourth"};
  if (n >= 0 && n <= 4) return kWords[n];
  const int tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

std::string plural(int count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

std::string signed_count(int change) {
  return (change > 0 ? "+" : "") + std::to_string(change);
}

// What one fabric's step buys: its switches, the transceivers in their ports and the cables between
// switches, priced at the spec's prices. The endpoints' own links and optics are left out: they come with
// the nodes and appliances, not with the step.
struct StepParts {
  int switches = 0;
  int transceivers = 0;
  int cables = 0;
  Money capex;                 // priced parts only
  bool capex_complete = true;  // every part counted has a price

  StepParts(const Cluster& cluster, const Fabric& fabric) {
    std::map<std::string, std::optional<Money>> prices;
    for (const auto& line : cluster.bom) prices[line.part] = line.unit_price;
    auto add = [&](const std::string& part, int count) {
      const auto price = prices.find(part);
      if (price != prices.end() && price->second) {
        capex += *price->second * count;
      } else {
        capex_complete = false;
      }
    };
    switches = switches_of(fabric);
    add(fabric.switch_part, switches);
    const auto at_switches = fabric.transceivers.find("switch");
    if (at_switches != fabric.transceivers.end()) {
      for (const auto& [part, count] : at_switches->second) {
        transceivers += count;
        add(part, count);
      }
    }
    for (const auto& bundle : fabric.bundles) {
      if (bundle.tier_a == Tier::endpoint) continue;
      cables += bundle.links;
      if (!bundle.cable_part.empty()) add(bundle.cable_part, bundle.links);
    }
  }
};

class BoundaryStep {
 public:
  // `group`: with several node groups, the index of the group whose compute fabric this is (its own count
  // and appliances change in the variants); -1 for a design of one group, or a fabric every group shares.
  BoundaryStep(const ClusterSpec& spec, const Cluster& cluster, const Fabric& fabric, int past,
               const Redesign& redesign, int group = -1)
      : spec_(spec), cluster_(cluster), fabric_(fabric), past_(past), redesign_(redesign), group_(group) {}

  // The warning, when designing without the slots past the boundary gives a smaller fabric.
  std::optional<Warning> warning() {
    fewer_nodes_ = fewer_nodes();
    appliances_moved_ = appliances_moved();
    // The few ports to compare against: the appliances when they alone cross, else the last nodes.
    const std::optional<Cluster>& without = appliances_moved_ ? appliances_moved_ : fewer_nodes_;
    if (!without) return std::nullopt;
    return Warning{"boundary-step",
                   what_crosses() + ", " + step(*without) + ". Alternatives: " + alternatives() + ".", true};
  }

 private:
  const Fabric* same_fabric(const Cluster& variant) const {
    if (!spec_.several_groups()) return variant.fabric(fabric_.role);
    const std::string name = fabric_name(cluster_, fabric_);  // "compute:dgx-h100"
    for (const Fabric& fabric : variant.fabrics) {
      if (fabric_name(variant, fabric) == name) return &fabric;
    }
    return nullptr;
  }

  // The variant, when it designs and its fabric has fewer switches than this one.
  std::optional<Cluster> smaller(const ClusterSpec& variant) const {
    std::optional<Cluster> designed = redesign_(variant);
    if (!designed) return std::nullopt;
    const Fabric* fabric = same_fabric(*designed);
    if (fabric == nullptr || switches_of(*fabric) >= switches_of(fabric_)) return std::nullopt;
    return designed;
  }

  int nodes_removed() const { return (past_ + fabric_.node_slots - 1) / fabric_.node_slots; }

  std::optional<Cluster> fewer_nodes() const {
    if (spec_.several_groups()) {
      // Only the group whose own compute fabric steps shrinks; a shared fabric has no rule for which group
      // would, and a rack-scale group is bought a rack at a time.
      if (group_ < 0) return std::nullopt;
      ClusterSpec variant = spec_;
      NodeGroupSpec& group = variant.node_groups[static_cast<std::size_t>(group_)];
      if (!group.rack_system.empty() || nodes_removed() >= group.node_count) return std::nullopt;
      group.node_count -= nodes_removed();
      group.count -= nodes_removed();
      variant.node_count -= nodes_removed();
      return smaller(variant);
    }
    // Rack-scale trays are bought a rack at a time: no single tray is removed.
    if (!spec_.rack_system.empty() || nodes_removed() >= spec_.node_count) return std::nullopt;
    ClusterSpec variant = spec_;
    variant.node_count -= nodes_removed();
    variant.target_gpus.reset();
    return smaller(variant);
  }

  std::optional<Cluster> appliances_moved() const {
    if (fabric_.appliance_slots < past_) return std::nullopt;
    ClusterSpec variant = spec_;
    fabric_spec(variant, fabric_.role).appliances.clear();
    if (group_ >= 0) variant.node_groups[static_cast<std::size_t>(group_)].compute_appliances.clear();
    return smaller(variant);
  }

  bool rail() const { return fabric_.topology == "rail_optimized"; }
  std::string slots(int count) const { return plural(count, rail() ? "node slot" : "port"); }

  // "4 ufm-3.1"
  std::string appliances() const {
    std::string parts;
    const auto& requests = group_ >= 0
                               ? spec_.node_groups[static_cast<std::size_t>(group_)].compute_appliances
                               : fabric_spec(spec_, fabric_.role).appliances;
    for (const auto& request : requests)
      parts += (parts.empty() ? "" : ", ") + std::to_string(request.count) + " " + request.appliance;
    return parts;
  }

  // "the 4 appliance ports (4 ufm-3.1) take 1 node slot past the 256 of 8 full scalable units"
  std::string what_crosses() const {
    const std::string role = fabric_name(cluster_, fabric_);  // "compute", or "compute:dgx-h100"
    const std::string who =
        appliances_moved_ ? "the ports of " + appliances() + " take " + slots(past_)
                          : slots(past_) + " of the " + std::to_string(fabric_.slots_used) + " in use sit";
    const std::string boundary =
        rail() ? "the " + std::to_string(fabric_.boundary_slots) + " of " +
                     plural(fabric_.boundary_slots / fabric_.unit_slots, "full scalable unit")
        : fabric_.tiers == 2
            ? "the " + std::to_string(fabric_.boundary_slots) + " ports one " + fabric_.switch_part + " holds"
            : "the " + std::to_string(fabric_.boundary_slots) + " ports a two-tier " + fabric_.switch_part +
                  " fabric holds";
    return "On the " + role + " fabric, " + who + " past " + boundary;
  }

  // "a 9th scalable unit and a third tier: 232 qm9700 instead of 96 (+136), +3328 transceivers, ..."
  std::string step(const Cluster& without) const {
    const Fabric& smaller = *same_fabric(without);
    std::vector<std::string> opened;
    if (rail() && fabric_.scalable_units > smaller.scalable_units)
      opened.push_back("a " + ordinal(fabric_.scalable_units) + " scalable unit");
    if (fabric_.tiers > smaller.tiers) opened.push_back("a " + ordinal(fabric_.tiers) + " tier");
    std::string text = "which opens " + (opened.empty() ? "more switches" : opened.front());
    if (opened.size() > 1) text += " and " + opened.back();
    text += ": " + std::to_string(switches_of(fabric_)) + " " + fabric_.switch_part + " instead of " +
            std::to_string(switches_of(smaller)) + " (" +
            signed_count(switches_of(fabric_) - switches_of(smaller)) + ")";
    const StepParts with(cluster_, fabric_);
    const StepParts without_step(without, smaller);
    text += ", " + signed_count(with.transceivers - without_step.transceivers) + " switch transceivers, " +
            signed_count(with.cables - without_step.cables) + " switch-to-switch cables";
    if (spec_.cost.has_prices) {
      text += ", " + format_money_change(with.capex - without_step.capex) + " capex" +
              (with.capex_complete && without_step.capex_complete ? "" : " for the priced parts only");
    }
    return text;
  }

  std::string alternatives() const {
    std::vector<std::string> options;
    if (fewer_nodes_ && group_ >= 0) {
      const Fabric& fabric = *same_fabric(*fewer_nodes_);
      const NodeGroupSpec& group = spec_.node_groups[static_cast<std::size_t>(group_)];
      options.push_back(std::to_string(group.node_count - nodes_removed()) + " " + group.system + " nodes (" +
                        std::to_string(cluster_.nodes - fewer_nodes_->nodes) + " fewer, " +
                        std::to_string(cluster_.gpus - fewer_nodes_->gpus) + " GPUs fewer) on " +
                        std::to_string(switches_of(fabric)) + " " + fabric.switch_part);
    } else if (fewer_nodes_) {
      const Fabric& fabric = *same_fabric(*fewer_nodes_);
      options.push_back(std::to_string(fewer_nodes_->nodes) + " nodes (" +
                        std::to_string(cluster_.nodes - fewer_nodes_->nodes) + " fewer, " +
                        std::to_string(fewer_nodes_->gpus) + " GPUs) on " +
                        std::to_string(switches_of(fabric)) + " " + fabric.switch_part);
    }
    if (appliances_moved_) {
      const Fabric& fabric = *same_fabric(*appliances_moved_);
      options.push_back("all " + std::to_string(cluster_.nodes) + " nodes on " +
                        (group_ >= 0 ? std::string("its ") : std::string()) +
                        std::to_string(switches_of(fabric)) + " " + fabric.switch_part +
                        " with the appliances on free spine or leaf ports or a management leaf, where the "
                        "reference architecture allows it (that design has " +
                        std::to_string(fabric.ports_total - fabric.ports_used) + " free " +
                        role_name(fabric_.role) + " switch ports)");
    }
    std::string text;
    for (std::size_t i = 0; i < options.size(); ++i) text += (i == 0 ? "" : "; or ") + options[i];
    return text;
  }

  const ClusterSpec& spec_;
  const Cluster& cluster_;
  const Fabric& fabric_;
  int past_;
  const Redesign& redesign_;
  int group_ = -1;
  std::optional<Cluster> fewer_nodes_;
  std::optional<Cluster> appliances_moved_;
};

}  // namespace

int handful_past_boundary(const Fabric& fabric) {
  if (fabric.role == NetworkRole::oob || fabric.boundary_slots <= 0 || fabric.unit_slots <= 0) return 0;
  const int past = fabric.slots_used - fabric.boundary_slots;
  if (past <= 0 || past * kHandfulShareOfUnit > fabric.unit_slots) return 0;
  return past;
}

void warn_about_boundary_steps(const ClusterSpec& spec, Cluster& cluster, const Redesign& redesign) {
  std::vector<Warning> steps;
  for (const auto& fabric : cluster.fabrics) {
    const int past = handful_past_boundary(fabric);
    if (past == 0) continue;
    // With several node groups, a compute fabric is one group's: its variants change that group alone.
    int group = -1;
    if (spec.several_groups() && fabric.role == NetworkRole::compute) {
      const std::string name = fabric_node_group(cluster, fabric);
      for (std::size_t g = 0; g < spec.node_groups.size(); ++g) {
        if (spec.node_groups[g].system == name) group = static_cast<int>(g);
      }
      if (group < 0) continue;
    }
    if (auto warning = BoundaryStep(spec, cluster, fabric, past, redesign, group).warning()) {
      steps.push_back(std::move(*warning));
    }
  }
  cluster.warnings.insert(cluster.warnings.begin(), steps.begin(), steps.end());
}

}  // namespace gputwin
