#include "gputwin/validate/pcie_links.hpp"

#include <regex>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin::validate {
namespace {

PcieLaneRates read_rates(const YamlDocument& document) {
  const YamlField root = document.root();
  root.expect_keys({"schema", "generations"});
  if (root.child("schema").text() != "gputwin.pcie-links/1")
    root.child("schema").fail("expected 'gputwin.pcie-links/1', got '" + root.child("schema").text() + "'");
  PcieLaneRates rates;
  for (const YamlField& item : root.child("generations").items()) {
    item.expect_keys({"generation", "transfer_rate_gt_per_s", "payload_bits", "line_bits", "source"});
    if (item.child("source").text_or_list().empty()) item.child("source").fail("a rate needs its source");
    const auto generation = static_cast<int>(item.child("generation").positive_integer());
    const double payload = static_cast<double>(item.child("payload_bits").positive_integer());
    const double line = static_cast<double>(item.child("line_bits").positive_integer());
    if (payload > line) item.child("payload_bits").fail("expected at most line_bits");
    if (rates.contains(generation)) item.child("generation").fail("generation listed twice");
    constexpr double kBitsPerByte = 8;
    rates[generation] =
        item.child("transfer_rate_gt_per_s").positive_number() * payload / line / kBitsPerByte;
  }
  if (rates.empty()) root.child("generations").fail("expected at least one generation");
  return rates;
}

}  // namespace

Result<PcieLaneRates> load_pcie_lane_rates(const std::string& path) {
  return result_of<PcieLaneRates>([&] { return read_rates(YamlDocument::load(path)); });
}

std::optional<PcieLinkShape> parse_pcie_link(std::string_view type) {
  static const std::regex kLink(R"(PCIe\s*Gen\s*(\d{1,2})\s*x(\d{1,2})\b.*)", std::regex::icase);
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_match(type.begin(), type.end(), match, kLink)) return std::nullopt;
  return PcieLinkShape{std::stoi(match[1].str()), std::stoi(match[2].str())};
}

std::optional<double> pcie_link_gigabytes_per_second(const PcieLaneRates& rates, PcieLinkShape link) {
  const auto rate = rates.find(link.generation);
  if (rate == rates.end() || link.lanes <= 0) return std::nullopt;
  return rate->second * link.lanes;
}

}  // namespace gputwin::validate
