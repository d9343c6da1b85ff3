#include "gputwin/core/hostlist.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace gputwin {
namespace {

std::vector<std::string> expanded(std::string_view expression) {
  auto hosts = expand_hostlist(expression);
  EXPECT_TRUE(hosts.ok()) << hosts.error_text();
  return hosts.ok() ? hosts.value() : std::vector<std::string>{};
}

using Hosts = std::vector<std::string>;

TEST(Hostlist, ExpandsRangesListsAndPadding) {
  EXPECT_EQ(expanded("node-[001-003,7],login1"), (Hosts{"node-001", "node-002", "node-003", "node-7", "login1"}));
  EXPECT_EQ(expanded("gpu[08-10]"), (Hosts{"gpu08", "gpu09", "gpu10"}));
  EXPECT_EQ(expanded("n[9-11]"), (Hosts{"n9", "n10", "n11"}));
  EXPECT_EQ(expanded("plain"), (Hosts{"plain"}));
  EXPECT_EQ(expanded("r[1-2]n[1-2]"), (Hosts{"r1n1", "r1n2", "r2n1", "r2n2"}));
  EXPECT_EQ(expanded("su[1-2]-leaf"), (Hosts{"su1-leaf", "su2-leaf"}));
}

TEST(Hostlist, CompressesRunsKeepingOrderAndPadding) {
  EXPECT_EQ(compress_hostlist({"node-001", "node-002", "node-003", "node-007"}), "node-[001-003,007]");
  EXPECT_EQ(compress_hostlist({"n9", "n10", "n11"}), "n[9-11]");
  EXPECT_EQ(compress_hostlist({"n09", "n10"}), "n[09-10]");
  EXPECT_EQ(compress_hostlist({"n9", "n09"}), "n9,n09");  // different padding: two groups
  EXPECT_EQ(compress_hostlist({"b2", "b1"}), "b2,b1");    // order is kept, not sorted
  EXPECT_EQ(compress_hostlist({"login", "gpu1", "gpu2", "x"}), "login,gpu[1-2],x");
  EXPECT_EQ(compress_hostlist({"gpu5"}), "gpu5");
  EXPECT_EQ(compress_hostlist({}), "");
}

TEST(Hostlist, BadExpressionsSayWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"n[1-3", "'[' without ']'"},
      {"n1-3]", "']' without '['"},
      {"n[3-1]", "range '3-1' runs backwards"},
      {"n[a-b]", "expected a number, got 'a'"},
      {"n[1-]", "expected a number, got ''"},
      {"n[[1]]", "'[' inside brackets"},
      {"a,,b", "empty host name"},
      {"n[1-99999999999]", "names too many hosts"},
  };
  for (const auto& [expression, message] : cases) {
    const auto hosts = expand_hostlist(expression);
    ASSERT_FALSE(hosts.ok()) << expression;
    EXPECT_NE(hosts.error_text().find(message), std::string::npos) << expression << ": " << hosts.error_text();
  }
}

// Any list of distinct names survives compress then expand unchanged.
TEST(Hostlist, CompressThenExpandIsTheIdentity) {
  std::mt19937 random(7);
  const std::vector<std::string> prefixes = {"node-", "gpu", "r1n", "", "login"};
  for (int round = 0; round < 500; ++round) {
    Hosts hosts;
    std::set<std::string> seen;
    const int count = 1 + static_cast<int>(random() % 40);
    for (int i = 0; i < count; ++i) {
      const std::string& prefix = prefixes[random() % prefixes.size()];
      const int number = static_cast<int>(random() % 120);
      std::string digits = std::to_string(number);
      if (random() % 3 == 0) digits = std::string(3 - std::min<std::size_t>(3, digits.size()), '0') + digits;
      const std::string host = prefix.empty() && random() % 2 ? "x" + digits : prefix + digits;
      if (seen.insert(host).second) hosts.push_back(host);
    }
    const std::string text = compress_hostlist(hosts);
    EXPECT_EQ(expanded(text), hosts) << text;
  }
}

}  // namespace
}  // namespace gputwin
