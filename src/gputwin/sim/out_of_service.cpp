#include "gputwin/sim/out_of_service.hpp"

#include <algorithm>
#include <map>

#include "gputwin/core/json_input.hpp"

namespace gputwin {

const std::vector<std::string>& drain_rules() {
  static const std::vector<std::string> rules{"ecc-uncorrectable", "row-remap-failure", "dcgm-diag-fail"};
  return rules;
}

Result<std::vector<std::pair<int, std::string>>> out_of_service_nodes(std::string_view text,
                                                                      const std::string& source,
                                                                      const ReplayTopology& topology) {
  try {
    const nlohmann::json document = parse_json(text, source);
    const JsonField root = JsonField::root(document, source, text);
    const JsonField schema = root.child("schema");
    if (schema.string() != "gputwin.validate/1")
      schema.fail("expected gputwin.validate/1 (gputwin validate --json)");
    std::map<std::string, int> node_of_host;
    for (std::size_t n = 0; n < topology.host_names.size(); ++n)
      node_of_host[topology.host_names[n]] = static_cast<int>(n);
    std::map<int, std::string> drained;
    const JsonField findings = root.child("findings");
    for (std::size_t f = 0; f < findings.array_size(); ++f) {
      const JsonField finding = findings.element(f);
      const std::string rule = finding.child("rule").string();
      if (std::find(drain_rules().begin(), drain_rules().end(), rule) == drain_rules().end()) continue;
      const JsonField host = finding.child("node");
      const auto node = node_of_host.find(host.string());
      if (node == node_of_host.end()) {
        host.fail("host '" + host.string() + "' is not a whole-GPU node of the replayed cluster" +
                  (topology.host_names.empty()
                       ? " (give the cluster with --cluster SPEC: a node count has no host names)"
                       : ""));
      }
      drained.try_emplace(node->second, rule + " on " + host.string());
    }
    return std::vector<std::pair<int, std::string>>(drained.begin(), drained.end());
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

}  // namespace gputwin
