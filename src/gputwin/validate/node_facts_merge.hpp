// One fact model per node from every output that describes it: nvidia-smi XML, --query-gpu CSV, the default
// table, an nvidia_gpu_exporter capture's sections, a dcgm-exporter scrape. Checks then read the merged
// facts, whatever file kind each fact came from.
//
//   std::vector<NodeFacts> sources = {xml_facts, table_facts, scrape_facts};   // richest first
//   NodeFacts node = merge_node_facts(std::move(sources));
//   node.gpus[0].last_xid;        // from the scrape: the XML has no XID counter
//   node.disagreements;           // facts two sources report differently
//
// GPUs are matched by UUID, else PCI bus id, else index. Per fact:
//   - a source that is silent (no value, no MIG instances listed) never hides another's value;
//   - settings and identity (model, memory, MIG mode and instances, power limits, versions): the first
//     (richest) source's value is used, and a different value elsewhere is a FactDisagreement;
//   - faults (ECC, retired pages, row remapping, XID, PCIe replays, NVLink errors): the worst value any
//     source saw is used (a fault seen once is not hidden by a source read earlier), and a difference is a
//     FactDisagreement;
//   - readings of the moment (temperatures, clocks, power draw, performance state, link speed now): the first
//     source's value, with no disagreement (outputs taken at different moments differ by nature).
#pragma once

#include <vector>

#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

// `sources` richest first; empty sources give empty facts.
[[nodiscard]] NodeFacts merge_node_facts(std::vector<NodeFacts> sources);

}  // namespace gputwin::validate
