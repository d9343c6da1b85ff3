// Shared helpers for design tests: planning an example and generating specs (the bundled catalog is in
// catalog/catalog_test_support.hpp).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin::testing {

// Plans a spec file or text; fails the test (and returns an empty cluster) on any error.
Cluster plan_file(const std::string& relative_path, const Catalog& catalog = bundled_catalog());
Cluster plan_text(const std::string& yaml, const Catalog& catalog = bundled_catalog());
// The errors a spec text produces, from parsing or from designing; empty when it plans cleanly.
std::string plan_errors(const std::string& yaml, const Catalog& catalog = bundled_catalog());

// The messages of the design's warnings with this code ("boundary-step", ...), in the order given.
std::vector<std::string> warning_messages(const Cluster& cluster, const std::string& code);

struct RailSpec {
  std::string system = "dgx-h100";
  int nodes = 0;
  std::string switch_id = "qm9700";
  std::string link_speed = "400 Gb/s";
  int scalable_unit = 32;
  std::string oversubscription = "1:1";
  std::string extra_compute;  // more YAML lines under fabrics.compute, indented 4 spaces
};

// A minimal spec with only a rail-optimized compute fabric.
std::string rail_spec(const RailSpec& spec);

}  // namespace gputwin::testing
