#include "gputwin/design/design_test_support.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gputwin::testing {

Catalog catalog_with(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> documents;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("data/catalog"))) {
    std::ifstream stream(entry.path());
    std::ostringstream text;
    text << stream.rdbuf();
    documents.emplace_back(entry.path().string(), text.str());
  }
  documents.insert(documents.end(), extra.begin(), extra.end());
  auto loaded = Catalog::parse(documents);
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.error_text();
    return {};
  }
  return std::move(loaded).value();
}

const Catalog& bundled_catalog() {
  static const Catalog catalog = catalog_with();
  return catalog;
}

const std::vector<std::pair<std::string, std::string>>& xdr_test_parts() {
  static const std::vector<std::pair<std::string, std::string>> parts = {{"test-parts.yaml", R"yaml(
systems:
  - id: test-dgx-b300-xdr
    name: "DGX B300 as in the XDR SuperPOD RA (8 x 800 Gb/s compute ports)"
    source: "NVIDIA SuperPOD with DGX B300 Systems, Quantum-X800 InfiniBand (XDR), RA-11339-001 (test part)"
    accelerator: b200
    accelerators: 8
    rack_units: 10 U
    power_max: 14.3 kW
    nics:
      compute: {ports: 8, speed: 800 Gb/s, ports_per_cage: 1, cage: OSFP}
)yaml"}};
  return parts;
}

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
