// Physical quantities as types, so watts never mix with kilowatts, nor bits with bytes.
//
//   Power rack = kilowatts(40.8);
//   DataRate link = gigabits_per_second(400);
//   double kw = in_kilowatts(rack);          // 40.8
//   auto parsed = parse_quantity<Power>("10.2 kW");   // from spec and catalog text
//
// Each quantity stores one double in its base unit (W, m, bit/s, B, op/s, V, A, USD, USD/kWh, rack units).
// Conversions happen only at the edges: parsing text and printing reports.
#pragma once

#include <compare>
#include <string>
#include <string_view>
#include <variant>

namespace gputwin {

enum class Dimension {
  power,
  length,
  data_rate,
  byte_size,
  compute_rate,
  voltage,
  current,
  money,
  energy_price,
  rack_space,
};

template <Dimension D>
class Quantity {
 public:
  static constexpr Dimension dimension = D;
  constexpr Quantity() = default;
  static constexpr Quantity from_base(double value) { return Quantity(value); }
  [[nodiscard]] constexpr double base() const { return value_; }

  constexpr Quantity operator+(Quantity other) const { return Quantity(value_ + other.value_); }
  constexpr Quantity operator-(Quantity other) const { return Quantity(value_ - other.value_); }
  constexpr Quantity operator*(double factor) const { return Quantity(value_ * factor); }
  constexpr Quantity operator/(double divisor) const { return Quantity(value_ / divisor); }
  constexpr double operator/(Quantity other) const { return value_ / other.value_; }
  constexpr Quantity& operator+=(Quantity other) {
    value_ += other.value_;
    return *this;
  }
  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  constexpr explicit Quantity(double value) : value_(value) {}
  double value_ = 0.0;
};

template <Dimension D>
constexpr Quantity<D> operator*(double factor, Quantity<D> quantity) {
  return quantity * factor;
}

using Power = Quantity<Dimension::power>;
using Length = Quantity<Dimension::length>;
using DataRate = Quantity<Dimension::data_rate>;
using ByteSize = Quantity<Dimension::byte_size>;
using ComputeRate = Quantity<Dimension::compute_rate>;
using Voltage = Quantity<Dimension::voltage>;
using Current = Quantity<Dimension::current>;
using Money = Quantity<Dimension::money>;
using EnergyPrice = Quantity<Dimension::energy_price>;
using RackSpace = Quantity<Dimension::rack_space>;

constexpr Power watts(double value) {
  return Power::from_base(value);
}
constexpr Power kilowatts(double value) {
  return Power::from_base(value * 1e3);
}
constexpr double in_watts(Power power) {
  return power.base();
}
constexpr double in_kilowatts(Power power) {
  return power.base() / 1e3;
}

constexpr Length metres(double value) {
  return Length::from_base(value);
}
constexpr double in_metres(Length length) {
  return length.base();
}

constexpr DataRate gigabits_per_second(double value) {
  return DataRate::from_base(value * 1e9);
}
constexpr double in_gigabits_per_second(DataRate rate) {
  return rate.base() / 1e9;
}
constexpr double in_gigabytes_per_second(DataRate rate) {
  return rate.base() / 8e9;
}

constexpr ByteSize gigabytes(double value) {
  return ByteSize::from_base(value * 1e9);
}
constexpr double in_gigabytes(ByteSize size) {
  return size.base() / 1e9;
}

constexpr ComputeRate teraflops(double value) {
  return ComputeRate::from_base(value * 1e12);
}
constexpr double in_teraflops(ComputeRate rate) {
  return rate.base() / 1e12;
}

constexpr Voltage volts(double value) {
  return Voltage::from_base(value);
}
constexpr Current amperes(double value) {
  return Current::from_base(value);
}
constexpr Money usd(double value) {
  return Money::from_base(value);
}
constexpr double in_usd(Money money) {
  return money.base();
}
constexpr EnergyPrice usd_per_kwh(double value) {
  return EnergyPrice::from_base(value);
}
constexpr RackSpace rack_units(double value) {
  return RackSpace::from_base(value);
}
constexpr double in_rack_units(RackSpace space) {
  return space.base();
}

// Readable text for reports and messages: "10.2 kW", "8 U", "30 m", "400 Gb/s".
[[nodiscard]] std::string format_power(Power power);
[[nodiscard]] std::string format_rack_units(RackSpace space);
[[nodiscard]] std::string format_length(Length length);
[[nodiscard]] std::string format_data_rate(DataRate rate);
// Money as people read it, the one formatter every report uses: three significant figures with a k, M or B
// suffix ("$10.7M", "$355k"), cents below $1,000 ("$2.50") and three significant figures below $1 ("$0.383").
[[nodiscard]] std::string format_money(Money money);
// A difference of money with its sign: "+$9.3M", "-$250k", "$0".
[[nodiscard]] std::string format_money_change(Money change);
// Exact to the cent, with thousands separators, for bills of materials: "$250,000", "$2,499.99".
[[nodiscard]] std::string format_money_exact(Money money);
// Shortest decimal text for a value (no trailing zeros), rounded to `decimals`.
[[nodiscard]] std::string format_number(double value, int decimals = 2);

// A count with a K, M, B or T suffix, such as "70.6B" parameters or "15T" tokens; 0 when the text is not one.
[[nodiscard]] double parse_parameter_count(const std::string& text);

// Rounded to `decimals` places, halves away from zero (for report figures).
[[nodiscard]] double round_decimals(double value, int decimals);

// Dimensions with a readable name, for error messages ("expected a power such as '10 kW'").
[[nodiscard]] std::string_view dimension_name(Dimension dimension);
[[nodiscard]] std::string_view dimension_example(Dimension dimension);

// Parses "<number> <unit>" into the base unit of `expected`. Returns the value or a message saying what is
// wrong.
[[nodiscard]] std::variant<double, std::string> parse_quantity_text(std::string_view text,
                                                                    Dimension expected);

template <class Q>
[[nodiscard]] std::variant<Q, std::string> parse_quantity(std::string_view text) {
  auto parsed = parse_quantity_text(text, Q::dimension);
  if (auto* message = std::get_if<std::string>(&parsed)) return *message;
  return Q::from_base(std::get<double>(parsed));
}

}  // namespace gputwin
