// Terminal listings of the catalog: one line per part, or every figure of one part with its source.
//
//   std::cout << catalog_list(catalog, "switch");
//   std::cout << catalog_show(catalog, "qm9700");
#pragma once

#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"

namespace gputwin {

// The kinds of part, as the first column of catalog_list names them, in its order.
[[nodiscard]] std::vector<std::string> catalog_kinds();
// Every part, or those of one kind of catalog_kinds() (an empty filter keeps all).
[[nodiscard]] std::string catalog_list(const Catalog& catalog, const std::string& kind_filter);
// Empty when no part has this id.
[[nodiscard]] std::string catalog_show(const Catalog& catalog, const std::string& id);

}  // namespace gputwin
