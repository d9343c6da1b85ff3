// The storage a plan sized, as the reports show it: plan --json's `storage` object read back field for field,
// the text's Storage section and the HTML report's storage section naming the requirement that binds. (Kept
// beside the design tests, which link the report library, so it builds without the report tests.)
#include <gtest/gtest.h>

#include "gputwin/design/design_test_support.hpp"
#include "gputwin/report/html/html_report.hpp"
#include "gputwin/report/plan_report.hpp"

namespace gputwin {
namespace {

using testing::plan_file;

TEST(StorageReport, PlanJsonRoundTripKeepsTheSizedStorage) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su-storage.yaml");
  ASSERT_TRUE(cluster.storage.present());
  const auto read = read_plan_json(plan_json(cluster).dump(2), "plan.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  ASSERT_TRUE(read.value().storage.has_value());
  const PlanStorageSummary& storage = *read.value().storage;
  EXPECT_EQ(storage.appliance, cluster.storage.appliance);
  EXPECT_EQ(storage.appliances, cluster.storage.appliances);
  EXPECT_NEAR(storage.read_gb_per_s, in_gigabytes_per_second(cluster.storage.read_bandwidth), 1e-3);
  ASSERT_TRUE(storage.write_gb_per_s.has_value());
  EXPECT_NEAR(*storage.write_gb_per_s, in_gigabytes_per_second(*cluster.storage.write_bandwidth), 1e-3);
  ASSERT_TRUE(storage.capacity_tb.has_value());
  EXPECT_NEAR(*storage.capacity_tb, cluster.storage.capacity->base() / 1e12, 1e-3);
  EXPECT_EQ(storage.binding,
            storage_need_name(cluster.storage.requirements.at(cluster.storage.binding).need));
  ASSERT_EQ(storage.requirements.size(), cluster.storage.requirements.size());
  for (std::size_t i = 0; i < storage.requirements.size(); ++i) {
    EXPECT_EQ(storage.requirements[i].need, storage_need_name(cluster.storage.requirements[i].need));
    EXPECT_EQ(storage.requirements[i].appliances, cluster.storage.requirements[i].appliances);
  }
  // A design without a storage section writes no storage object, and reads back none.
  const Cluster plain = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const auto none = read_plan_json(plan_json(plain).dump(2), "plan.json");
  ASSERT_TRUE(none.ok()) << none.error_text();
  EXPECT_FALSE(none.value().storage.has_value());
  EXPECT_EQ(plan_text(plain).find("\nStorage\n"), std::string::npos);
}

TEST(StorageReport, TextAndHtmlNameTheBindingRequirement) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su-storage.yaml");
  const std::string binding =
      storage_need_name(cluster.storage.requirements.at(cluster.storage.binding).need);
  const std::string text = plan_text(cluster);
  const auto section = text.find("\nStorage\n");
  ASSERT_NE(section, std::string::npos) << text;
  const std::string storage_text = text.substr(section, text.find("\nCables by medium") - section);
  const auto binds = storage_text.find("binds");
  ASSERT_NE(binds, std::string::npos) << storage_text;
  const auto line_start = storage_text.rfind('\n', binds) + 1;
  EXPECT_EQ(storage_text.compare(line_start + 2, binding.size(), binding), 0) << storage_text;

  const std::string html = html_report(cluster, {}, "");
  EXPECT_NE(html.find("<section id=\"storage\" data-appliances=\"" +
                      std::to_string(cluster.storage.appliances) + "\" data-binding=\"" + binding + "\">"),
            std::string::npos);
}

}  // namespace
}  // namespace gputwin
