#include "gputwin/core/units.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace gputwin {
namespace {

struct UnitSpelling {
  std::string_view symbol;
  Dimension dimension;
  double to_base;  // multiply a value in this unit to get the base unit
};

// Bytes and bits differ by 8, decimal and binary prefixes by ~7 % at GB scale: both are spelled out.
constexpr std::array kUnits{
    UnitSpelling{"W", Dimension::power, 1.0},
    UnitSpelling{"kW", Dimension::power, 1e3},
    UnitSpelling{"MW", Dimension::power, 1e6},
    UnitSpelling{"mm", Dimension::length, 1e-3},
    UnitSpelling{"cm", Dimension::length, 1e-2},
    UnitSpelling{"m", Dimension::length, 1.0},
    UnitSpelling{"km", Dimension::length, 1e3},
    UnitSpelling{"Mb/s", Dimension::data_rate, 1e6},
    UnitSpelling{"Gb/s", Dimension::data_rate, 1e9},
    UnitSpelling{"Tb/s", Dimension::data_rate, 1e12},
    UnitSpelling{"MB/s", Dimension::data_rate, 8e6},
    UnitSpelling{"GB/s", Dimension::data_rate, 8e9},
    UnitSpelling{"TB/s", Dimension::data_rate, 8e12},
    UnitSpelling{"MB", Dimension::byte_size, 1e6},
    UnitSpelling{"GB", Dimension::byte_size, 1e9},
    UnitSpelling{"TB", Dimension::byte_size, 1e12},
    UnitSpelling{"PB", Dimension::byte_size, 1e15},
    UnitSpelling{"MiB", Dimension::byte_size, 1048576.0},
    UnitSpelling{"GiB", Dimension::byte_size, 1073741824.0},
    UnitSpelling{"TiB", Dimension::byte_size, 1099511627776.0},
    UnitSpelling{"PiB", Dimension::byte_size, 1125899906842624.0},
    UnitSpelling{"TFLOP/s", Dimension::compute_rate, 1e12},
    UnitSpelling{"PFLOP/s", Dimension::compute_rate, 1e15},
    UnitSpelling{"TOP/s", Dimension::compute_rate, 1e12},
    UnitSpelling{"POP/s", Dimension::compute_rate, 1e15},
    UnitSpelling{"V", Dimension::voltage, 1.0},
    UnitSpelling{"A", Dimension::current, 1.0},
    UnitSpelling{"USD", Dimension::money, 1.0},
    UnitSpelling{"USD/kWh", Dimension::energy_price, 1.0},
    UnitSpelling{"U", Dimension::rack_space, 1.0},
};

constexpr std::array<std::string_view, 4> kAmbiguous{"Gbps", "GBps", "Tbps", "TBps"};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::string format_number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string text = buffer;
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

std::string format_money(Money money) {
  const double amount = in_usd(money);
  const std::string sign = amount < 0 ? "-" : "";
  const double size = std::abs(amount);
  if (size < 1.0) {
    // Three significant figures: a price per GPU-hour reads "$0.383".
    if (size == 0.0) return "$0";
    const int decimals = std::max(2, 2 - static_cast<int>(std::floor(std::log10(size))));
    char digits[32];
    std::snprintf(digits, sizeof digits, "%.*f", decimals, size);
    std::string text = digits;
    while (text.size() > 4 && text.back() == '0') text.pop_back();  // keep the cents: "0.50"
    return sign + "$" + text;
  }
  if (size < 1000.0) {
    char cents[32];
    std::snprintf(cents, sizeof cents, "%.2f", size);
    if (std::string(cents) != "1000.00") return sign + "$" + cents;
  }
  // Three significant figures of a scaled amount; a rounding that reaches 1000 moves to the next suffix.
  constexpr std::array<std::pair<double, std::string_view>, 4> kScales{
      {{1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}}};
  for (std::size_t s = 0; s < kScales.size(); ++s) {
    const double scaled = size / kScales[s].first;
    const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::max(scaled, 1.0)))));
    const double rounded = round_decimals(scaled, decimals);
    if (rounded < 1000.0 || s + 1 == kScales.size()) {
      return sign + "$" + format_number(rounded, decimals) + std::string(kScales[s].second);
    }
  }
  return sign + "$" + format_number(size, 0);
}

std::string format_money_change(Money change) {
  const std::string text = format_money(change);
  return in_usd(change) > 0 && text != "$0" ? "+" + text : text;
}

std::string format_money_exact(Money money) {
  const double amount = in_usd(money);
  const long long cents = std::llround(std::abs(amount) * 100.0);
  std::string whole = std::to_string(cents / 100);
  for (int at = static_cast<int>(whole.size()) - 3; at > 0; at -= 3) whole.insert(at, ",");
  std::string text = (amount < 0 && cents != 0 ? "-$" : "$") + whole;
  if (cents % 100 != 0) {
    char fraction[8];
    std::snprintf(fraction, sizeof fraction, ".%02lld", cents % 100);
    text += fraction;
  }
  return text;
}

double round_decimals(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

std::string format_power(Power power) {
  const double watts_value = in_watts(power);
  if (std::abs(watts_value) >= 1e6) return format_number(watts_value / 1e6, 3) + " MW";
  if (std::abs(watts_value) >= 1e3) return format_number(watts_value / 1e3, 2) + " kW";
  return format_number(watts_value, 1) + " W";
}

std::string format_rack_units(RackSpace space) {
  return format_number(in_rack_units(space), 1) + " U";
}

std::string format_length(Length length) {
  return format_number(in_metres(length), 2) + " m";
}

std::string format_data_rate(DataRate rate) {
  const double gbit = in_gigabits_per_second(rate);
  if (gbit >= 1000) return format_number(gbit / 1000, 2) + " Tb/s";
  if (gbit < 1) return format_number(gbit * 1000, 0) + " Mb/s";
  return format_number(gbit, 2) + " Gb/s";
}

std::string_view dimension_name(Dimension dimension) {
  switch (dimension) {
    case Dimension::power:
      return "a power";
    case Dimension::length:
      return "a length";
    case Dimension::data_rate:
      return "a data rate";
    case Dimension::byte_size:
      return "a memory size";
    case Dimension::compute_rate:
      return "a compute rate";
    case Dimension::voltage:
      return "a voltage";
    case Dimension::current:
      return "a current";
    case Dimension::money:
      return "an amount of money";
    case Dimension::energy_price:
      return "an energy price";
    case Dimension::rack_space:
      return "a rack height";
  }
  return "a quantity";
}

std::string_view dimension_example(Dimension dimension) {
  switch (dimension) {
    case Dimension::power:
      return "10.2 kW";
    case Dimension::length:
      return "30 m";
    case Dimension::data_rate:
      return "400 Gb/s";
    case Dimension::byte_size:
      return "80 GB";
    case Dimension::compute_rate:
      return "989 TFLOP/s";
    case Dimension::voltage:
      return "415 V";
    case Dimension::current:
      return "60 A";
    case Dimension::money:
      return "25000 USD";
    case Dimension::energy_price:
      return "0.08 USD/kWh";
    case Dimension::rack_space:
      return "8 U";
  }
  return "";
}

std::variant<double, std::string> parse_quantity_text(std::string_view text, Dimension expected) {
  const std::string expectation = std::string("expected ") + std::string(dimension_name(expected)) +
                                  " with a unit, such as '" + std::string(dimension_example(expected)) + "'";
  text = trim(text);
  double number = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || !std::isfinite(number)) {
    return expectation + ", got '" + std::string(text) + "'";
  }
  const std::string_view unit = trim(std::string_view(end, text.data() + text.size() - end));
  if (unit.empty()) return expectation + ", got a bare number '" + std::string(text) + "' (missing unit)";
  for (const auto ambiguous : kAmbiguous) {
    if (unit == ambiguous) {
      return "ambiguous unit '" + std::string(unit) + "': write Gb/s (bits) or GB/s (bytes)";
    }
  }
  for (const auto& spelling : kUnits) {
    if (spelling.symbol != unit) continue;
    if (spelling.dimension != expected) {
      return expectation + ", got '" + std::string(text) + "' which is " +
             std::string(dimension_name(spelling.dimension));
    }
    return number * spelling.to_base;
  }
  return expectation + ", got unknown unit '" + std::string(unit) + "'";
}

double parse_parameter_count(const std::string& text) {
  if (text.size() < 2) return 0;
  const char suffix = text.back();
  const double scale = suffix == 'T'   ? 1e12
                       : suffix == 'B' ? 1e9
                       : suffix == 'M' ? 1e6
                       : suffix == 'K' ? 1e3
                                       : 0;
  if (scale == 0) return 0;
  const std::string number = text.substr(0, text.size() - 1);
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !(value > 0)) return 0;
  return value * scale;
}

}  // namespace gputwin
