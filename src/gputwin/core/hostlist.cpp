#include "gputwin/core/hostlist.hpp"

#include <charconv>
#include <cstdint>
#include <optional>

namespace gputwin {
namespace {

struct Failure {
  std::string message;
};

// Top-level pieces of "a[1-2],b,c[3]": split at commas outside brackets.
std::vector<std::string_view> split_expressions(std::string_view text) {
  std::vector<std::string_view> pieces;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']') --depth;
    if (depth < 0) throw Failure{"']' without '[' at character " + std::to_string(i + 1)};
    if (depth > 1) throw Failure{"'[' inside brackets at character " + std::to_string(i + 1)};
    if (text[i] == ',' && depth == 0) {
      pieces.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) throw Failure{"'[' without ']'"};
  pieces.push_back(text.substr(start));
  return pieces;
}

std::uint64_t number_of(std::string_view digits) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    throw Failure{"expected a number, got '" + std::string(digits) + "'"};
  }
  return value;
}

std::string padded(std::uint64_t value, std::size_t width) {
  std::string text = std::to_string(value);
  return text.size() < width ? std::string(width - text.size(), '0') + text : text;
}

// "001-003,7" -> 001 002 003 7
std::vector<std::string> bracket_values(std::string_view inside, std::size_t max_hosts) {
  std::vector<std::string> values;
  std::size_t start = 0;
  while (start <= inside.size()) {
    const std::size_t comma = std::min(inside.find(',', start), inside.size());
    const std::string_view item = inside.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    const std::string_view first = item.substr(0, dash);
    const std::uint64_t low = number_of(first);
    const std::uint64_t high = dash == std::string_view::npos ? low : number_of(item.substr(dash + 1));
    if (high < low) throw Failure{"range '" + std::string(item) + "' runs backwards"};
    if (high - low >= max_hosts) throw Failure{"range '" + std::string(item) + "' names too many hosts"};
    for (std::uint64_t n = low; n <= high; ++n) values.push_back(padded(n, first.size()));
    start = comma + 1;
  }
  return values;
}

void expand_one(std::string_view expression, std::vector<std::string>& hosts, std::size_t max_hosts) {
  std::vector<std::string> names{""};
  std::size_t at = 0;
  while (at < expression.size()) {
    const std::size_t open = expression.find('[', at);
    const std::string_view literal = expression.substr(at, open - at);
    for (auto& name : names) name += literal;
    if (open == std::string_view::npos) break;
    const std::size_t close = expression.find(']', open);
    const auto values = bracket_values(expression.substr(open + 1, close - open - 1), max_hosts);
    std::vector<std::string> product;
    if (names.size() * values.size() > max_hosts) throw Failure{"names more than " + std::to_string(max_hosts) + " hosts"};
    for (const auto& name : names)
      for (const auto& value : values) product.push_back(name + value);
    names = std::move(product);
    at = close + 1;
  }
  if (names.size() == 1 && names.front().empty()) throw Failure{"empty host name"};
  hosts.insert(hosts.end(), names.begin(), names.end());
  if (hosts.size() > max_hosts) throw Failure{"names more than " + std::to_string(max_hosts) + " hosts"};
}

// A host split into its prefix and trailing digits ("node-007" -> "node-", "007").
struct HostName {
  std::string_view prefix;
  std::string_view digits;
};

HostName split_host(std::string_view host) {
  std::size_t start = host.size();
  while (start > 0 && host[start - 1] >= '0' && host[start - 1] <= '9') --start;
  // Numbers longer than 18 digits stay literal text: they would not round-trip through a 64-bit value.
  if (host.size() - start > 18) start = host.size();
  return {host.substr(0, start), host.substr(start)};
}

// The padding a number is written with: 0 when written without leading zeros, else its width.
std::size_t padding_of(std::string_view digits) {
  return digits.size() > 1 && digits.front() == '0' ? digits.size() : 0;
}

bool fits_padding(std::string_view digits, std::size_t padding) {
  return padding == 0 ? padding_of(digits) == 0 : digits.size() == padding;
}

struct Group {
  std::string prefix;
  std::size_t padding = 0;
  std::vector<std::uint64_t> numbers;
};

std::string render(const Group& group) {
  if (group.numbers.empty()) return group.prefix;
  if (group.numbers.size() == 1) return group.prefix + padded(group.numbers.front(), group.padding);
  std::string ranges;
  for (std::size_t i = 0; i < group.numbers.size();) {
    std::size_t j = i;
    while (j + 1 < group.numbers.size() && group.numbers[j + 1] == group.numbers[j] + 1) ++j;
    ranges += (ranges.empty() ? "" : ",") + padded(group.numbers[i], group.padding);
    if (j > i) ranges += "-" + padded(group.numbers[j], group.padding);
    i = j + 1;
  }
  return group.prefix + "[" + ranges + "]";
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view expression, std::size_t max_hosts) {
  try {
    std::vector<std::string> hosts;
    for (const auto piece : split_expressions(expression)) expand_one(piece, hosts, max_hosts);
    return hosts;
  } catch (const Failure& failure) {
    return InputError{{}, "", "hostlist '" + std::string(expression) + "': " + failure.message};
  }
}

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  std::vector<Group> groups;
  for (const std::string& host : hosts) {
    const HostName name = split_host(host);
    Group* last = groups.empty() ? nullptr : &groups.back();
    if (name.digits.empty()) {
      groups.push_back({host, 0, {}});
    } else if (last != nullptr && !last->numbers.empty() && last->prefix == name.prefix &&
               fits_padding(name.digits, last->padding) && std::stoull(std::string(name.digits)) > last->numbers.back()) {
      last->numbers.push_back(std::stoull(std::string(name.digits)));
    } else {
      groups.push_back({std::string(name.prefix), padding_of(name.digits), {std::stoull(std::string(name.digits))}});
    }
  }
  std::string text;
  for (const Group& group : groups) text += (text.empty() ? "" : ",") + render(group);
  return text;
}

}  // namespace gputwin
