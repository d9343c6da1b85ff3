#include "gputwin/design/design_test_support.hpp"

#include <sstream>

namespace gputwin::testing {

namespace {

Cluster design_or_fail(const Result<ClusterSpec>& spec, const Catalog& catalog) {
  if (!spec.ok()) {
    ADD_FAILURE() << spec.error_text();
    return {};
  }
  auto cluster = design_cluster(spec.value(), catalog);
  if (!cluster.ok()) {
    ADD_FAILURE() << cluster.error_text();
    return {};
  }
  return std::move(cluster).value();
}

}  // namespace

Cluster plan_file(const std::string& relative_path, const Catalog& catalog) {
  return design_or_fail(load_cluster_spec(source_path(relative_path), catalog), catalog);
}

Cluster plan_text(const std::string& yaml, const Catalog& catalog) {
  return design_or_fail(parse_cluster_spec(yaml, "test.yaml", catalog), catalog);
}

std::string plan_errors(const std::string& yaml, const Catalog& catalog) {
  const auto spec = parse_cluster_spec(yaml, "test.yaml", catalog);
  if (!spec.ok()) return spec.error_text();
  const auto cluster = design_cluster(spec.value(), catalog);
  return cluster.ok() ? std::string() : cluster.error_text();
}

std::vector<std::string> warning_messages(const Cluster& cluster, const std::string& code) {
  std::vector<std::string> messages;
  for (const Warning& warning : cluster.warnings) {
    if (warning.code == code) messages.push_back(warning.message);
  }
  return messages;
}

std::string rail_spec(const RailSpec& spec) {
  std::ostringstream yaml;
  yaml << "name: generated\n"
       << "nodes: {system: " << spec.system << ", count: " << spec.nodes << "}\n"
       << "fabrics:\n"
       << "  compute:\n"
       << "    topology: rail_optimized\n"
       << "    switch: " << spec.switch_id << "\n"
       << "    link_speed: " << spec.link_speed << "\n"
       << "    scalable_unit: " << spec.scalable_unit << "\n"
       << "    oversubscription: \"" << spec.oversubscription << "\"\n"
       << spec.extra_compute << "facility:\n"
       << "  rack_power_limit: 60 kW\n"
       << "  max_nodes_per_rack: 4\n"
       << "  pdu: px3-5878i2r\n"
       << "  cooling: direct-liquid\n"
       << "  layout: {racks_per_row: 24}\n"
       << "cabling: {media: [multimode, singlemode]}\n";
  return yaml.str();
}

}  // namespace gputwin::testing
