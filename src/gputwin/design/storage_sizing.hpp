// How many storage appliances a spec's `storage:` section takes, and what they deliver together.
//
//   StorageSummary storage = size_storage(spec.storage_system, catalog, spec.node_count);
//   storage.appliances;                                  // max over the requirements of ceil(need / per
//   unit) storage.requirements[storage.binding].need;          // the one that set the count
//
// Each requirement alone needs ceil(amount / what one appliance gives) appliances: a checkpoint of S bytes
// written within T seconds needs S / T of write; the dataset read rate needs that much read; the capacity
// that much usable capacity; a reference architecture's tier needs its aggregate read and write at the
// design's scalable-unit count, ceil(nodes / the table's nodes per SU). The count is the largest of them.
#pragma once

#include <optional>
#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

// `spec.present` must be true and the spec checked (spec/cluster_spec does); the checkpoint size must be
// known (a workload-derived size is filled in by plan/workload_fit).
[[nodiscard]] StorageSummary size_storage(const StorageSpec& spec, const Catalog& catalog, int nodes);

// Warnings about a designed storage system: a node whose storage ports cannot carry the tier's per-node rate,
// and appliances whose storage ports at the fabric's speed carry less than their published read rate.
void warn_about_storage(const Catalog& catalog, Cluster& cluster);

// The time the designed storage takes to write the spec's checkpoint: its size over the appliances' aggregate
// write rate, and a note saying so. Empty when the design sizes no storage for a checkpoint (no storage, no
// checkpoint size, or an appliance that publishes no write rate). What `perf goodput --cluster` and
// `simulate replay --cluster` take as the checkpoint write time when none is given.
struct DesignedCheckpointWrite {
  double seconds = 0;
  std::string note;  // "written to the designed storage: 2.1 TB at 850 GB/s (4 x appliance)"
};
[[nodiscard]] std::optional<DesignedCheckpointWrite> designed_checkpoint_write(const StorageSummary& storage);

}  // namespace gputwin
