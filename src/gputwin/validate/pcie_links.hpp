// What a PCIe link carries, by generation and width, from data/validate/pcie-links.yaml (PCI-SIG's data rates
// and encodings): the measured link of a GPU and the design's host link are compared as one-way GB/s.
//
//   Result<PcieLaneRates> rates = load_pcie_lane_rates(bundled_data_dir() + "/validate/pcie-links.yaml");
//   pcie_link_gigabytes_per_second(rates.value(), {5, 16});   // 63.0 (32 GT/s x 128/130 / 8 x 16 lanes)
//   parse_pcie_link("PCIe Gen5 x16");                           // {5, 16}, as the catalog's host_link names
//   it
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"

namespace gputwin::validate {

struct PcieLinkShape {
  int generation = 0;
  int lanes = 0;
};

// Generation -> one lane's one-way data rate in GB/s.
using PcieLaneRates = std::map<int, double>;

[[nodiscard]] Result<PcieLaneRates> load_pcie_lane_rates(const std::string& path);

// "PCIe Gen5 x16" (the catalog's host_link type); nullopt when the text names no generation and width.
[[nodiscard]] std::optional<PcieLinkShape> parse_pcie_link(std::string_view type);

// One direction's GB/s; nullopt when the data has no such generation or the width is not positive.
[[nodiscard]] std::optional<double> pcie_link_gigabytes_per_second(const PcieLaneRates& rates,
                                                                   PcieLinkShape link);

}  // namespace gputwin::validate
