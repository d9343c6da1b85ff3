#include "gputwin/catalog/catalog_test_support.hpp"

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

}  // namespace gputwin::testing
