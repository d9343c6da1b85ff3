// Shared helpers for tests: the bundled catalog, extra test parts and paths into the source tree.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/test_text.hpp"

namespace gputwin::testing {

// The bundled catalog plus optional extra documents (name, text).
Catalog catalog_with(const std::vector<std::pair<std::string, std::string>>& extra = {});
const Catalog& bundled_catalog();
// A DGX B300-like system with 8 x 800 Gb/s compute ports, as in the XDR SuperPOD RA, for 800G fabrics.
const std::vector<std::pair<std::string, std::string>>& xdr_test_parts();

}  // namespace gputwin::testing
