#include "gputwin/design/cabling.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "gputwin/design/node_groups.hpp"

namespace gputwin {
namespace {

struct PortEnd {
  std::string cage;
  int ports_per_cage = 1;
  std::string end_class;  // where its transceivers are counted: switch, node, appliance, server
};

struct LinkChoice {
  Medium medium = Medium::passive_copper;
  const Cable* cable = nullptr;
  Length cable_length;
  int transceiver_a = -1;  // index into catalog transceivers; -1 for copper
  int transceiver_b = -1;
};

constexpr Medium kPreference[] = {Medium::passive_copper, Medium::active_copper, Medium::multimode,
                                  Medium::singlemode};

// The router's rules for one port end: its cage, the media a link may take, and which module it would pick.
// Shared by the router and by the bound placement reserves before any link has a length.
class PortRules {
 public:
  // A module serves min(its ports, the cage's ports) links: a single-port module in a twin-port cage serves
  // one.
  static int links_per_module(const Transceiver& module, const PortEnd& end) {
    return std::max(1, std::min(module.ports, end.ports_per_cage));
  }

  PortRules(const ClusterSpec& spec, const Catalog& catalog) : spec_(spec), catalog_(catalog) {}

  PortEnd end_of(const Device& device, const Fabric& fabric) const {
    if (device.kind == DeviceKind::network_switch) {
      const Switch& part = catalog_.get<Switch>(device.part);
      return {part.cage, part.ports_per_cage_at(fabric.link_speed), "switch"};
    }
    const Nics* nics = nullptr;
    if (const auto* system = catalog_.find<System>(device.part)) nics = &system->nics;
    if (const auto* appliance = catalog_.find<Appliance>(device.part)) nics = &appliance->nics;
    const std::string end_class = device.kind == DeviceKind::node ? "node" : device_kind_name(device.kind);
    if (nics != nullptr) {
      const auto found = nics->find(fabric.role);
      if (found != nics->end()) return {found->second.cage, found->second.ports_per_cage, end_class};
    }
    return {"", 1, end_class};
  }

  std::vector<Medium> candidate_media(const PortEnd& a, const PortEnd& b) const {
    if (a.cage == "RJ45" || b.cage == "RJ45") return {Medium::twisted_pair};
    std::vector<Medium> media;
    for (const Medium medium : kPreference) {
      const auto& allowed = spec_.cabling.allowed_media;
      if (allowed.empty() || std::find(allowed.begin(), allowed.end(), medium) != allowed.end()) {
        media.push_back(medium);
      }
    }
    return media;
  }

  // The shortest orderable cable of `medium` that carries `speed` over `length`.
  std::pair<const Cable*, Length> cable_for(Medium medium, DataRate speed, Length length) const {
    const Cable* best = nullptr;
    Length best_length;
    for (const auto& cable : catalog_.all<Cable>()) {
      if (cable.medium != medium || cable.speed < speed) continue;
      const auto fit = std::lower_bound(cable.lengths.begin(), cable.lengths.end(), length);
      if (fit == cable.lengths.end()) continue;
      const bool better =
          best == nullptr || cable.speed < best->speed || (cable.speed == best->speed && *fit < best_length);
      if (better) {
        best = &cable;
        best_length = *fit;
      }
    }
    return {best, best_length};
  }

  // The catalog transceivers of `medium` and `speed` in the order the router prefers them for `end`: the
  // module made for this cage and its number of ports first, then catalog order. It picks the first whose
  // reach covers the link.
  std::vector<int> transceivers_by_preference(const PortEnd& end, Medium medium, DataRate speed) const {
    const auto& parts = catalog_.all<Transceiver>();
    std::vector<std::pair<int, int>> ranked;  // (-score, index)
    for (std::size_t t = 0; t < parts.size(); ++t) {
      const Transceiver& part = parts[t];
      if (part.medium != medium || part.port_speed != speed) continue;
      const int score = (part.cage == end.cage ? 2 : 0) + (part.ports == end.ports_per_cage ? 1 : 0);
      ranked.emplace_back(-score, static_cast<int>(t));
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<int> order;
    for (const auto& [negative_score, index] : ranked) order.push_back(index);
    return order;
  }

  // The module's reach on the fiber grade a link of `medium` uses; none when the catalog gives none.
  std::optional<Length> reach_of(const Transceiver& part, Medium medium) const {
    const std::string grade = medium == Medium::singlemode ? "os2" : spec_.cabling.fiber_grade;
    const auto reach = part.reach.find(grade);
    if (reach == part.reach.end()) return std::nullopt;
    return reach->second;
  }

  int transceiver_for(const PortEnd& end, Medium medium, DataRate speed, Length length) const {
    const auto& parts = catalog_.all<Transceiver>();
    for (const int t : transceivers_by_preference(end, medium, speed)) {
      const auto reach = reach_of(parts[t], medium);
      if (reach && *reach >= length) return t;
    }
    return -1;
  }

  // The router's pick for a link of `length`: the first medium (in order of preference) with a cable that
  // reaches and, where it needs them, a transceiver at both ends that does.
  std::optional<LinkChoice> choose(const PortEnd& a, const PortEnd& b, DataRate speed, Length length) const {
    for (const Medium medium : candidate_media(a, b)) {
      LinkChoice choice;
      choice.medium = medium;
      std::tie(choice.cable, choice.cable_length) = cable_for(medium, speed, length);
      if (choice.cable == nullptr) continue;
      if (needs_transceivers(medium)) {
        choice.transceiver_a = transceiver_for(a, medium, speed, length);
        choice.transceiver_b = transceiver_for(b, medium, speed, length);
        if (choice.transceiver_a < 0 || choice.transceiver_b < 0) continue;
      }
      return choice;
    }
    return std::nullopt;
  }

  const ClusterSpec& spec() const { return spec_; }
  const Catalog& catalog() const { return catalog_; }

 private:
  const ClusterSpec& spec_;
  const Catalog& catalog_;
};

class CableRouter {
 public:
  CableRouter(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster)
      : spec_(spec), catalog_(catalog), cluster_(cluster), rules_(spec, catalog) {}

  void route(std::size_t first_fabric) {
    for (std::size_t f = first_fabric; f < cluster_.fabrics.size(); ++f) route_fabric(cluster_.fabrics[f]);
  }

 private:
  PortEnd end_of(const Device& device, const Fabric& fabric) const { return rules_.end_of(device, fabric); }
  std::optional<LinkChoice> choose(const PortEnd& a, const PortEnd& b, DataRate speed, Length length) const {
    return rules_.choose(a, b, speed, length);
  }

  // A link is measured from both ends' racks, and its modules draw in their hosts' racks: an end outside
  // every rack is a design step run out of order, never a user's input.
  const Device& placed(int index) const {
    const Device& device = cluster_.devices[index];
    if (device.rack < 0 || device.rack >= static_cast<int>(cluster_.racks.size()))
      throw std::logic_error("route_cables: " + device.name + " (" + device.part +
                             ") is in no rack; place_devices must run first");
    return device;
  }

  void route_fabric(Fabric& fabric) {
    std::map<std::pair<int, int>, int> ports_by_device_and_part;
    std::map<std::pair<int, std::string>, int> active_ends_by_device;  // by device and cable id
    int unreachable = 0;
    Length longest_unreachable;
    for (auto& bundle : fabric.bundles) {
      const Device& a = placed(bundle.device_a);
      const Device& b = placed(bundle.device_b);
      bundle.length = link_length(spec_.facility.layout, spec_.facility.rack_units, cluster_.racks[a.rack], a,
                                  cluster_.racks[b.rack], b);
      const PortEnd end_a = end_of(a, fabric);
      const PortEnd end_b = end_of(b, fabric);
      const auto choice = choose(end_a, end_b, fabric.link_speed, bundle.length);
      if (!choice) {
        ++unreachable;
        longest_unreachable = std::max(longest_unreachable, bundle.length);
        continue;
      }
      bundle.medium = choice->medium;
      bundle.cable_part = choice->cable->info.id;
      bundle.cable_length = choice->cable_length;
      if (choice->transceiver_a >= 0)
        ports_by_device_and_part[{bundle.device_a, choice->transceiver_a}] += bundle.links;
      if (choice->transceiver_b >= 0)
        ports_by_device_and_part[{bundle.device_b, choice->transceiver_b}] += bundle.links;
      if (choice->cable->power_max && *choice->cable->power_max > Power{}) {  // one cable, one end a side
        active_ends_by_device[{bundle.device_a, choice->cable->info.id}] += bundle.links;
        active_ends_by_device[{bundle.device_b, choice->cable->info.id}] += bundle.links;
      }
    }
    const auto& parts = catalog_.all<Transceiver>();
    for (const auto& [key, ports] : ports_by_device_and_part) {
      const auto& [device, part] = key;
      const Transceiver& module = parts[part];
      const PortEnd end = end_of(cluster_.devices[device], fabric);
      const int links_per_module = PortRules::links_per_module(module, end);
      const int modules = (ports + links_per_module - 1) / links_per_module;
      fabric.transceivers[end.end_class][module.info.id] += modules;
      if (module.power_max) {
        fabric.module_loads.push_back({device, module.info.id, false, modules, *module.power_max,
                                       module.power_typical.value_or(*module.power_max)});
      }
    }
    for (const auto& [key, ends] : active_ends_by_device) {
      const auto& [device, id] = key;
      const Power each = *catalog_.get<Cable>(id).power_max;
      fabric.module_loads.push_back({device, id, true, ends, each, each});
    }
    if (unreachable > 0) {
      cluster_.warnings.push_back(
          {"link-beyond-reach",
           std::to_string(unreachable) + " " + fabric_name(cluster_, fabric) + " links (longest " +
               format_length(longest_unreachable) +
               ") are beyond the reach of every allowed cable and transceiver in the catalog"});
    }
  }

  const ClusterSpec& spec_;
  const Catalog& catalog_;
  Cluster& cluster_;
  PortRules rules_;
};

// The most the modules in each device's cages could draw once routed, before placement gives any link a
// length: for each link end, the costliest pick the router makes at any length a link of this design can have
// (it picks by comparing lengths with cable lengths and module reaches, so trying each of those, and the
// longest a link can be, tries every pick), plus one partly used multi-port module of each part picked,
// because the router buys whole modules.
class ModulePowerBound {
 public:
  ModulePowerBound(const ClusterSpec& spec, const Catalog& catalog, const Cluster& cluster)
      : rules_(spec, catalog), cluster_(cluster), lengths_(lengths_to_try()) {}

  std::vector<Power> bound(std::size_t first_fabric) {
    std::vector<Power> most(cluster_.devices.size());
    for (std::size_t f = first_fabric; f < cluster_.fabrics.size(); ++f) {
      const Fabric& fabric = cluster_.fabrics[f];
      std::map<int, std::set<int>> shared_parts_by_device;  // multi-port modules a device's cages may take
      for (const auto& bundle : fabric.bundles) {
        const int ends[2] = {bundle.device_a, bundle.device_b};
        const PortEnd a = rules_.end_of(cluster_.devices[ends[0]], fabric);
        const PortEnd b = rules_.end_of(cluster_.devices[ends[1]], fabric);
        const EndBounds& bounds = bounds_for(a, b, fabric.link_speed);
        for (int side = 0; side < 2; ++side) {
          most[ends[side]] += bounds.per_link[side] * bundle.links;
          shared_parts_by_device[ends[side]].insert(bounds.shared[side].begin(), bounds.shared[side].end());
        }
      }
      const auto& parts = rules_.catalog().all<Transceiver>();
      for (const auto& [device, shared] : shared_parts_by_device) {
        const PortEnd end = rules_.end_of(cluster_.devices[device], fabric);
        for (const int t : shared) {
          const int links = PortRules::links_per_module(parts[t], end);
          most[device] += *parts[t].power_max * (static_cast<double>(links - 1) / links);
        }
      }
    }
    return most;
  }

 private:
  struct EndBounds {
    Power per_link[2];        // the most one link adds at end a and at end b
    std::set<int> shared[2];  // multi-port modules with a power figure the router may pick there
  };

  // Every link length that can change the router's pick, up to the longest link this design can have.
  std::vector<Length> lengths_to_try() const {
    const Length longest = longest_link();
    std::vector<Length> lengths{longest};
    for (const auto& cable : rules_.catalog().all<Cable>()) {
      for (const Length length : cable.lengths) lengths.push_back(length);
    }
    for (const auto& part : rules_.catalog().all<Transceiver>()) {
      for (const auto& [grade, reach] : part.reach) lengths.push_back(reach);
    }
    std::vector<Length> kept;
    for (const Length length : lengths) {
      if (length <= longest) kept.push_back(length);
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    return kept;
  }

  // No link is longer than the route between the farthest two racks the design can have (each device placed
  // now may open one more rack), from the floor of one to the floor of the other (link_length's terms at
  // their largest).
  Length longest_link() const {
    const ClusterSpec& spec = rules_.spec();
    const RowLayout& layout = spec.facility.layout;
    int unplaced = 0;
    for (const Device& device : cluster_.devices) unplaced += device.rack < 0 ? 1 : 0;
    const int racks = std::max(1, static_cast<int>(cluster_.racks.size()) + unplaced);
    const int per_row = layout.racks_per_row > 0 ? std::min(racks, layout.racks_per_row) : racks;
    const int rows = (racks + per_row - 1) / per_row;
    // link_length itself, between the two racks farthest apart, each end at the floor (the farthest from the
    // tray), so the bound follows every term the router measures.
    Rack first;
    Rack last;
    last.slot = per_row - 1;
    last.row = rows - 1;
    Device at_floor;
    at_floor.rack_unit = 1;
    return link_length(layout, spec.facility.rack_units, first, at_floor, last, at_floor);
  }

  const EndBounds& bounds_for(const PortEnd& a, const PortEnd& b, DataRate speed) {
    const auto key =
        std::make_tuple(a.cage, a.ports_per_cage, b.cage, b.ports_per_cage, in_gigabits_per_second(speed));
    auto found = cache_.find(key);
    if (found != cache_.end()) return found->second;
    EndBounds bounds;
    const PortEnd ends[2] = {a, b};
    const auto& parts = rules_.catalog().all<Transceiver>();
    for (const Length length : lengths_) {
      const auto choice = rules_.choose(a, b, speed, length);
      if (!choice) continue;
      const int picked[2] = {choice->transceiver_a, choice->transceiver_b};
      const Power cable_end = choice->cable->power_max.value_or(Power{});
      for (int side = 0; side < 2; ++side) {
        Power per_link = cable_end;
        if (picked[side] >= 0 && parts[picked[side]].power_max) {
          const int links = PortRules::links_per_module(parts[picked[side]], ends[side]);
          per_link += *parts[picked[side]].power_max / static_cast<double>(links);
          if (links > 1) bounds.shared[side].insert(picked[side]);
        }
        bounds.per_link[side] = std::max(bounds.per_link[side], per_link);
      }
    }
    return cache_.emplace(key, std::move(bounds)).first->second;
  }

  PortRules rules_;
  const Cluster& cluster_;
  std::vector<Length> lengths_;
  std::map<std::tuple<std::string, int, std::string, int, double>, EndBounds> cache_;
};

double centre_height(const RowLayout& layout, const Device& device) {
  return ((device.rack_unit - 1) + in_rack_units(device.height) / 2.0) * in_metres(layout.rack_unit_height);
}

}  // namespace

Length link_length(const RowLayout& layout, RackSpace rack_units, const Rack& rack_a, const Device& device_a,
                   const Rack& rack_b, const Device& device_b) {
  const double za = centre_height(layout, device_a);
  const double zb = centre_height(layout, device_b);
  const double slack = in_metres(layout.cable_slack);
  if (&rack_a == &rack_b) return metres(std::abs(za - zb) + slack);
  const double rack_height = in_rack_units(rack_units) * in_metres(layout.rack_unit_height);
  const double tray = in_metres(layout.tray_height);
  const double along_row = std::abs(rack_a.slot - rack_b.slot) * in_metres(layout.rack_width);
  const double across_rows = std::abs(rack_a.row - rack_b.row) * in_metres(layout.row_pitch);
  return metres((rack_height - za) + tray + along_row + across_rows + tray + (rack_height - zb) + slack);
}

void route_cables(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster,
                  std::size_t first_fabric) {
  CableRouter(spec, catalog, cluster).route(first_fabric);
}

std::vector<Power> most_module_power(const ClusterSpec& spec, const Catalog& catalog, const Cluster& cluster,
                                     std::size_t first_fabric) {
  return ModulePowerBound(spec, catalog, cluster).bound(first_fabric);
}

}  // namespace gputwin
