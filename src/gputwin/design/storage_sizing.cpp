#include "gputwin/design/storage_sizing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gputwin {
namespace {

constexpr double kBytesPerGigabyte = 1e9;
constexpr double kBytesPerTerabyte = 1e12;

double gigabytes_per_second(DataRate rate) {
  return rate.base() / 8.0 / kBytesPerGigabyte;
}

// ceil(amount / per_unit), with a relative tolerance so that a need of exactly k units is k, not k + 1.
int units_for(double amount, double per_unit) {
  return static_cast<int>(std::ceil(amount / per_unit - 1e-9));
}

}  // namespace

const char* storage_need_name(StorageNeed need) {
  switch (need) {
    case StorageNeed::checkpoint_write:
      return "checkpoint_write";
    case StorageNeed::dataset_read:
      return "dataset_read";
    case StorageNeed::capacity:
      return "capacity";
    case StorageNeed::tier_read:
      return "tier_read";
    case StorageNeed::tier_write:
      return "tier_write";
  }
  return "?";
}

bool is_capacity(StorageNeed need) {
  return need == StorageNeed::capacity;
}

StorageSummary size_storage(const StorageSpec& spec, const Catalog& catalog, int nodes) {
  const Appliance& appliance = catalog.get<Appliance>(spec.appliance);
  const StoragePerformance& unit = *appliance.storage;
  StorageSummary summary;
  summary.appliance = spec.appliance;
  summary.filesystem = unit.filesystem;
  summary.checkpoint_size = spec.checkpoint_size;
  summary.checkpoint_write_seconds = spec.checkpoint_write_seconds;
  summary.checkpoint_from_workload = spec.checkpoint_from_workload;
  const double read = gigabytes_per_second(unit.read_bandwidth);
  const double write = unit.write_bandwidth ? gigabytes_per_second(*unit.write_bandwidth) : 0.0;
  auto require = [&](StorageNeed need, double amount, double per_unit) {
    summary.requirements.push_back({need, amount, per_unit, units_for(amount, per_unit)});
  };
  if (spec.checkpoint_write_seconds > 0.0 && spec.checkpoint_size) {
    const double rate = spec.checkpoint_size->base() / kBytesPerGigabyte / spec.checkpoint_write_seconds;
    require(StorageNeed::checkpoint_write, rate, write);
  }
  if (spec.dataset_read) require(StorageNeed::dataset_read, gigabytes_per_second(*spec.dataset_read), read);
  if (spec.capacity) {
    require(StorageNeed::capacity, spec.capacity->base() / kBytesPerTerabyte,
            unit.usable_capacity->base() / kBytesPerTerabyte);
  }
  if (spec.tier) {
    const StorageTierTable& table = catalog.get<StorageTierTable>(spec.tier_table);
    summary.tier = storage_tier_name(*spec.tier);
    summary.tier_table = spec.tier_table;
    summary.scalable_units = (nodes + table.nodes_per_scalable_unit - 1) / table.nodes_per_scalable_unit;
    const StorageRates rates = table.aggregate_at(*spec.tier, summary.scalable_units);
    require(StorageNeed::tier_read, gigabytes_per_second(rates.read), read);
    require(StorageNeed::tier_write, gigabytes_per_second(rates.write), write);
  }
  for (std::size_t r = 0; r < summary.requirements.size(); ++r) {
    if (summary.binding < 0 ||
        summary.requirements[r].appliances > summary.requirements[summary.binding].appliances)
      summary.binding = static_cast<int>(r);
  }
  summary.appliances =
      summary.binding < 0 ? 0 : std::max(1, summary.requirements[summary.binding].appliances);
  summary.read_bandwidth = unit.read_bandwidth * summary.appliances;
  if (unit.write_bandwidth) summary.write_bandwidth = *unit.write_bandwidth * summary.appliances;
  if (unit.usable_capacity) summary.capacity = *unit.usable_capacity * summary.appliances;
  return summary;
}

void warn_about_storage(const Catalog& catalog, Cluster& cluster) {
  const StorageSummary& storage = cluster.storage;
  if (!storage.present()) return;
  const Fabric* fabric = cluster.fabric(NetworkRole::storage);
  const Appliance& appliance = catalog.get<Appliance>(storage.appliance);
  const NicGroup& ports = appliance.nics.at(NetworkRole::storage);
  if (fabric != nullptr) {
    const DataRate line = std::min(ports.speed, fabric->link_speed) * ports.ports;
    if (line < appliance.storage->read_bandwidth) {
      cluster.warnings.push_back(
          {"storage-ports-slower",
           "each " + storage.appliance + " has " + std::to_string(ports.ports) + " storage ports carrying " +
               format_number(gigabytes_per_second(line), 1) + " GB/s at the fabric's " +
               format_data_rate(fabric->link_speed) + ", less than its published " +
               format_number(gigabytes_per_second(appliance.storage->read_bandwidth), 1) + " GB/s read"});
    }
  }
  if (storage.tier.empty()) return;
  const StorageTierTable& table = catalog.get<StorageTierTable>(storage.tier_table);
  const StorageTier tier = storage.tier == "good"     ? StorageTier::good
                           : storage.tier == "better" ? StorageTier::better
                                                      : StorageTier::best;
  const NodeType* node = cluster.sole_node_type();
  if (node == nullptr) return;
  const auto nic = node->nics.find(NetworkRole::storage);
  const DataRate per_node = table.per_node.at(tier).read;
  const DataRate node_line = nic == node->nics.end() || fabric == nullptr
                                 ? DataRate()
                                 : std::min(nic->second.speed, fabric->link_speed) * nic->second.ports;
  if (node_line < per_node) {
    cluster.warnings.push_back(
        {"storage-node-ports", "a " + node->system + "'s storage ports carry " +
                                   format_number(gigabytes_per_second(node_line), 1) +
                                   " GB/s, less than the " + storage.tier + " tier's " +
                                   format_number(gigabytes_per_second(per_node), 1) +
                                   " GB/s read per node (" + storage.tier_table + ")"});
  }
}

std::optional<DesignedCheckpointWrite> designed_checkpoint_write(const StorageSummary& storage) {
  if (!storage.present() || !storage.checkpoint_size || !storage.write_bandwidth) return std::nullopt;
  const double bytes = storage.checkpoint_size->base();
  const double bytes_per_s = storage.write_bandwidth->base() / 8;
  if (!(bytes_per_s > 0)) return std::nullopt;
  return DesignedCheckpointWrite{
      bytes / bytes_per_s,
      fmt::format("written to the designed storage: {:.3g} TB at {:.4g} GB/s ({} x {})", bytes / 1e12,
                  bytes_per_s / 1e9, storage.appliances, storage.appliance)};
}

}  // namespace gputwin
