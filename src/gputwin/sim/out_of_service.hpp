// Nodes out of service at the start of a replay, from measurements: a `gputwin validate --json` document
// (gputwin.validate/1) whose findings say a node should be drained (an uncorrectable ECC error, a row-remap
// failure, a failed DCGM diagnostic) puts that node out for the whole replay (issue 17 item 6).
//
//   auto nodes = out_of_service_nodes(read_text("validate.json"), "validate.json", cluster.topology);
//   models.out_of_service = nodes.value();   // (node, "ecc-uncorrectable on node-003")
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/sim/replay_models.hpp"

namespace gputwin {

// The finding rules (data/validate/checks.yaml ids) that drain a node: each rule's source there says the GPU
// is not fit for service until it is reset, repaired or replaced.
[[nodiscard]] const std::vector<std::string>& drain_rules();

// The nodes (pool index, the finding that drains it) of `topology` that the document's findings drain, each
// once, ascending. A finding's host that is not a node of the topology is an error at its field (file, line,
// path), as is a document that is not gputwin.validate/1.
[[nodiscard]] Result<std::vector<std::pair<int, std::string>>> out_of_service_nodes(
    std::string_view text, const std::string& source, const ReplayTopology& topology);

}  // namespace gputwin
