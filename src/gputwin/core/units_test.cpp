#include "gputwin/core/units.hpp"

#include <gtest/gtest.h>

namespace gputwin {
namespace {

template <class Q>
double parsed_base(std::string_view text) {
  const auto parsed = parse_quantity<Q>(text);
  EXPECT_TRUE(std::holds_alternative<Q>(parsed)) << text << ": " << std::get<std::string>(parsed);
  return std::get<Q>(parsed).base();
}

template <class Q>
std::string parse_error(std::string_view text) {
  const auto parsed = parse_quantity<Q>(text);
  EXPECT_TRUE(std::holds_alternative<std::string>(parsed)) << text << " should not parse";
  return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
}

TEST(Units, ParsesPowerInEveryPrefix) {
  EXPECT_DOUBLE_EQ(parsed_base<Power>("700 W"), 700.0);
  EXPECT_DOUBLE_EQ(parsed_base<Power>("10.2 kW"), 10200.0);
  EXPECT_DOUBLE_EQ(parsed_base<Power>("1.2 MW"), 1.2e6);
  EXPECT_DOUBLE_EQ(parsed_base<Power>("  45kW "), 45000.0);
}

TEST(Units, BitsAndBytesDifferByEight) {
  EXPECT_DOUBLE_EQ(parsed_base<DataRate>("400 Gb/s"), 400e9);
  EXPECT_DOUBLE_EQ(parsed_base<DataRate>("900 GB/s"), 900e9 * 8);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(gigabits_per_second(400)), 50.0);
}

TEST(Units, DecimalAndBinaryMemoryDiffer) {
  EXPECT_DOUBLE_EQ(parsed_base<ByteSize>("80 GB"), 80e9);
  EXPECT_DOUBLE_EQ(parsed_base<ByteSize>("80 GiB"), 80.0 * 1073741824.0);
}

TEST(Units, RejectsMissingWrongAndAmbiguousUnits) {
  EXPECT_NE(parse_error<Power>("10.2").find("missing unit"), std::string::npos);
  EXPECT_NE(parse_error<Power>("10 m").find("which is a length"), std::string::npos);
  EXPECT_NE(parse_error<DataRate>("400 Gbps").find("ambiguous"), std::string::npos);
  EXPECT_NE(parse_error<Power>("ten kW").find("expected a power"), std::string::npos);
  EXPECT_NE(parse_error<Power>("10 kWh").find("unknown unit"), std::string::npos);
}

TEST(Units, FormatsForReports) {
  EXPECT_EQ(format_power(kilowatts(40.8)), "40.8 kW");
  EXPECT_EQ(format_power(watts(747)), "747 W");
  EXPECT_EQ(format_power(kilowatts(1520)), "1.52 MW");
  EXPECT_EQ(format_data_rate(gigabits_per_second(400)), "400 Gb/s");
  EXPECT_EQ(format_number(2.50, 2), "2.5");
}

TEST(Units, FormatsMoneyAsMoney) {
  EXPECT_EQ(format_money(usd(1.07e7)), "$10.7M");
  EXPECT_EQ(format_money(usd(12'345'678)), "$12.3M");
  EXPECT_EQ(format_money(usd(355121)), "$355k");
  EXPECT_EQ(format_money(usd(999'600)), "$1M");  // rounds up into the next suffix, not "$1000k"
  EXPECT_EQ(format_money(usd(2.5e9)), "$2.5B");
  EXPECT_EQ(format_money(usd(2.5)), "$2.50");
  EXPECT_EQ(format_money(usd(0.3831)), "$0.383");
  EXPECT_EQ(format_money(usd(0.5)), "$0.50");
  EXPECT_EQ(format_money(usd(0)), "$0");
  EXPECT_EQ(format_money(usd(-250'000)), "-$250k");
  EXPECT_EQ(format_money_change(usd(9.3e6)), "+$9.3M");
  EXPECT_EQ(format_money_change(usd(-1500)), "-$1.5k");
  EXPECT_EQ(format_money_exact(usd(250'000)), "$250,000");
  EXPECT_EQ(format_money_exact(usd(2499.99)), "$2,499.99");
  EXPECT_EQ(format_money_exact(usd(999)), "$999");
}

TEST(Units, ArithmeticKeepsTheUnit) {
  const Power rack = kilowatts(10.2) * 4;
  EXPECT_DOUBLE_EQ(in_kilowatts(rack), 40.8);
  EXPECT_DOUBLE_EQ(kilowatts(45) / kilowatts(10.2), 45.0 / 10.2);
  EXPECT_LT(kilowatts(40.8), kilowatts(45));
}

}  // namespace
}  // namespace gputwin
