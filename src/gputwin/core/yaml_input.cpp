#include "gputwin/core/yaml_input.hpp"

#include "gputwin/core/input_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace gputwin {
namespace {

SourceLocation location_of(const YAML::Mark& mark, const std::string& file) {
  if (mark.is_null() || mark.line < 0) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

std::string quoted_list(std::initializer_list<std::string_view> words) {
  std::string text;
  for (const auto word : words) {
    if (!text.empty()) text += ", ";
    text += "'" + std::string(word) + "'";
  }
  return text;
}

}  // namespace

YamlField::YamlField(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

SourceLocation YamlField::location() const {
  return location_of(node_.Mark(), file_);
}

void YamlField::fail(const std::string& message) const {
  throw InputFailure(InputError{location(), path_, message});
}

std::string YamlField::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool YamlField::has(std::string_view key) const {
  if (!node_.IsMap()) return false;
  const YAML::Node& node = node_;
  return static_cast<bool>(node[std::string(key)]);
}

YamlField YamlField::child(std::string_view key) const {
  expect_map();
  const YAML::Node& node = node_;
  const YAML::Node value = node[std::string(key)];
  if (!value) {
    throw InputFailure(InputError{location(), child_path(key), "missing required field"});
  }
  return {value, file_, child_path(key)};
}

std::optional<YamlField> YamlField::optional_child(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  YamlField value = child(key);
  if (value.is_null()) return std::nullopt;
  return value;
}

std::vector<YamlField> YamlField::items() const {
  expect_sequence();
  std::vector<YamlField> result;
  result.reserve(node_.size());
  for (std::size_t index = 0; index < node_.size(); ++index) {
    result.emplace_back(node_[index], file_, path_ + "[" + std::to_string(index) + "]");
  }
  return result;
}

std::vector<std::pair<std::string, YamlField>> YamlField::entries() const {
  expect_map();
  std::vector<std::pair<std::string, YamlField>> result;
  for (const auto& entry : node_) {
    const std::string key = entry.first.as<std::string>();
    result.emplace_back(key, YamlField(entry.second, file_, child_path(key)));
  }
  return result;
}

void YamlField::expect_map() const {
  if (!node_.IsMap()) fail("expected a mapping of fields");
}

void YamlField::expect_sequence() const {
  if (!node_.IsSequence()) fail("expected a list");
}

void YamlField::expect_keys(std::initializer_list<std::string_view> allowed) const {
  expect_map();
  std::set<std::string> seen;
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    const auto where = location_of(entry.first.Mark(), file_);
    if (!seen.insert(key).second) {
      throw InputFailure(InputError{where, child_path(key), "field given twice"});
    }
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      throw InputFailure(
          InputError{where, child_path(key), "unknown field; expected one of " + quoted_list(allowed)});
    }
  }
}

std::string YamlField::text() const {
  if (!node_.IsScalar()) fail("expected a single value");
  return node_.Scalar();
}

std::string YamlField::text_or_list() const {
  if (node_.IsScalar()) return node_.Scalar();
  std::string joined;
  for (const auto& item : items()) {
    if (!joined.empty()) joined += "; ";
    joined += item.text();
  }
  return joined;
}

double YamlField::number() const {
  const std::string value = text();
  double number = 0.0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(number)) {
    fail("expected a number, got '" + value + "'");
  }
  return number;
}

std::int64_t YamlField::integer() const {
  const std::string value = text();
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size()) {
    fail("expected a whole number, got '" + value + "'");
  }
  return number;
}

std::int64_t YamlField::positive_integer() const {
  const auto value = integer();
  if (value <= 0) fail("must be a whole number greater than zero, got " + std::to_string(value));
  return value;
}

std::int64_t YamlField::non_negative_integer() const {
  const auto value = integer();
  if (value < 0) fail("must not be negative, got " + std::to_string(value));
  return value;
}

double YamlField::positive_number() const {
  const double value = number();
  if (value <= 0.0) fail("must be greater than zero, got '" + text() + "'");
  return value;
}

bool YamlField::boolean() const {
  const std::string value = text();
  if (value == "true") return true;
  if (value == "false") return false;
  fail("expected true or false, got '" + value + "'");
}

std::string YamlField::one_of(std::initializer_list<std::string_view> choices) const {
  std::string value = text();
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    fail("expected one of " + quoted_list(choices) + ", got '" + value + "'");
  }
  return value;
}

double YamlField::quantity_base(Dimension dimension) const {
  if (!node_.IsScalar())
    fail("expected " + std::string(dimension_name(dimension)) + " such as '" +
         std::string(dimension_example(dimension)) + "'");
  auto parsed = parse_quantity_text(node_.Scalar(), dimension);
  if (auto* message = std::get_if<std::string>(&parsed)) fail(*message);
  return std::get<double>(parsed);
}

YamlDocument YamlDocument::parse(const std::string& text, std::string name) {
  try {
    YAML::Node root = YAML::Load(text);
    return {root, std::move(name)};
  } catch (const YAML::Exception& error) {
    throw InputFailure(InputError{location_of(error.mark, name), "", "YAML syntax error: " + error.msg});
  }
}

YamlDocument YamlDocument::load(const std::string& path) {
  return parse(read_input_file(path), path);
}

}  // namespace gputwin
