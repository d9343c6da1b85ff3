#include "gputwin/design/cabling.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

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

class CableRouter {
 public:
  CableRouter(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster)
      : spec_(spec), catalog_(catalog), cluster_(cluster) {}

  void route(std::size_t first_fabric) {
    for (std::size_t f = first_fabric; f < cluster_.fabrics.size(); ++f) route_fabric(cluster_.fabrics[f]);
  }

 private:
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

  int transceiver_for(const PortEnd& end, Medium medium, DataRate speed, Length length) const {
    const std::string grade = medium == Medium::singlemode ? "os2" : spec_.cabling.fiber_grade;
    const auto& parts = catalog_.all<Transceiver>();
    int best = -1;
    int best_score = -1;
    for (std::size_t t = 0; t < parts.size(); ++t) {
      const Transceiver& part = parts[t];
      if (part.medium != medium || part.port_speed != speed) continue;
      const auto reach = part.reach.find(grade);
      if (reach == part.reach.end() || reach->second < length) continue;
      // Prefer the module made for this cage and its number of ports (twin-port cages take twin-port optics).
      const int score = (part.cage == end.cage ? 2 : 0) + (part.ports == end.ports_per_cage ? 1 : 0);
      if (score > best_score) {
        best = static_cast<int>(t);
        best_score = score;
      }
    }
    return best;
  }

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
      // A module serves min(its ports, the cage's ports) links: a single-port module in a twin-port cage
      // serves one.
      const int links_per_module = std::max(1, std::min(module.ports, end.ports_per_cage));
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

}  // namespace gputwin
