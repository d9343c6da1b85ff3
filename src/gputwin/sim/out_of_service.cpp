#include "gputwin/sim/out_of_service.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "gputwin/core/json_input.hpp"

namespace gputwin {
namespace {

// The number a host name ends in ("node01" -> 1, "node-017" -> 17); empty when none.
std::optional<long> trailing_number(const std::string& name) {
  std::size_t start = name.size();
  while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1])) != 0) --start;
  constexpr std::size_t kLongestNumber = 9;
  if (start == name.size() || name.size() - start > kLongestNumber) return std::nullopt;
  return std::stol(name.substr(start));
}

// The pool node a measured host stands for, as `validate --cluster` matches them
// (validate/design_checks.cpp): the same name, else the designed name ending in the same number (node01 for
// the design's node-1).
std::optional<int> node_of(const std::string& host, const ReplayTopology& topology) {
  const auto& names = topology.host_names;
  for (std::size_t n = 0; n < names.size(); ++n) {
    if (names[n] == host) return static_cast<int>(n);
  }
  const auto number = trailing_number(host);
  if (!number) return std::nullopt;
  for (std::size_t n = 0; n < names.size(); ++n) {
    if (trailing_number(names[n]) == number) return static_cast<int>(n);
  }
  return std::nullopt;
}

}  // namespace

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
    std::map<int, std::string> drained;
    const JsonField findings = root.child("findings");
    for (std::size_t f = 0; f < findings.array_size(); ++f) {
      const JsonField finding = findings.element(f);
      const std::string rule = finding.child("rule").string();
      if (std::find(drain_rules().begin(), drain_rules().end(), rule) == drain_rules().end()) continue;
      const JsonField host = finding.child("node");
      const auto node = node_of(host.string(), topology);
      if (!node) {
        host.fail("host '" + host.string() + "' is not a node of the replayed cluster" +
                  (topology.host_names.empty()
                       ? " (give the cluster with --cluster SPEC: a node count has no host names)"
                       : ""));
      }
      drained.try_emplace(*node, rule + " on " + host.string());
    }
    return std::vector<std::pair<int, std::string>>(drained.begin(), drained.end());
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

}  // namespace gputwin
