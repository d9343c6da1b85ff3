// Terminal listings of the catalog: one line per part, or every figure of one part with its source.
//
//   std::cout << catalog_list(catalog, "switch");
//   std::cout << catalog_show(catalog, "qm9700");
#pragma once

#include <string>

#include "gputwin/catalog/catalog.hpp"

namespace gputwin {

[[nodiscard]] std::string catalog_list(const Catalog& catalog, const std::string& kind_filter);
// Empty when no part has this id.
[[nodiscard]] std::string catalog_show(const Catalog& catalog, const std::string& id);

}  // namespace gputwin
