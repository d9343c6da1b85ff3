// The catalog listing's kinds: every kind the loader gives a part is one --kind can ask for, and asking for it
// lists exactly the parts of that kind.
#include "gputwin/report/catalog_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "gputwin/catalog/catalog_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;

bool is_listable_kind(const std::string& kind) {
  const auto kinds = catalog_kinds();
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// The parts of each kind as the listing's first column counts them.
std::map<std::string, int> listed_kinds(const std::string& listing) {
  std::map<std::string, int> counts;
  std::istringstream lines(listing);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    if (!line.empty()) ++counts[line.substr(0, line.find(' '))];
  }
  return counts;
}

TEST(CatalogReport, EveryKindOfTheBundledCatalogIsOneListCanFilterBy) {
  const Catalog& catalog = bundled_catalog();
  std::map<std::string, int> parts_by_kind;
  for (const auto& id : catalog.ids()) ++parts_by_kind[catalog.kind_of(id)];
  for (const auto& [kind, parts] : parts_by_kind) {
    EXPECT_TRUE(is_listable_kind(kind)) << kind << " parts exist but --kind cannot name them";
    const auto listed = listed_kinds(catalog_list(catalog, kind));
    ASSERT_EQ(listed.size(), 1U) << kind;
    EXPECT_EQ(listed.begin()->first, kind);
    EXPECT_EQ(listed.begin()->second, parts) << kind;
  }
  EXPECT_EQ(listed_kinds(catalog_list(catalog, "")), parts_by_kind) << "no filter lists every part";
}

TEST(CatalogReport, KindsAreNamedOnceEach) {
  auto kinds = catalog_kinds();
  const std::size_t count = kinds.size();
  std::sort(kinds.begin(), kinds.end());
  EXPECT_EQ(std::unique(kinds.begin(), kinds.end()) - kinds.begin(), static_cast<std::ptrdiff_t>(count));
  EXPECT_EQ(count, 16U) << "the sixteen top-level lists of docs/catalog.md";
}

}  // namespace
}  // namespace gputwin
