// Typed, located reading of YAML: every value knows its file, line, column and field path, so any problem is
// reported precisely, and unknown keys are refused (a typo must not silently drop a figure).
//
//   YamlDocument doc = YamlDocument::load("spec.yaml");           // throws InputFailure on syntax errors
//   YamlField root = doc.root();
//   root.expect_keys({"name", "nodes"});
//   std::string name = root.child("name").text();
//   Power limit = root.child("facility").child("rack_power_limit").quantity<Power>();
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"

namespace gputwin {

class YamlField {
 public:
  YamlField(YAML::Node node, std::string file, std::string path);

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] SourceLocation location() const;
  [[nodiscard]] bool is_null() const { return node_.IsNull(); }
  [[nodiscard]] bool is_map() const { return node_.IsMap(); }
  [[nodiscard]] bool is_sequence() const { return node_.IsSequence(); }
  [[nodiscard]] bool is_scalar() const { return node_.IsScalar(); }

  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] YamlField child(std::string_view key) const;  // missing key is an error
  [[nodiscard]] std::optional<YamlField> optional_child(
      std::string_view key) const;                                               // absent or null -> empty
  [[nodiscard]] std::vector<YamlField> items() const;                            // a sequence's elements
  [[nodiscard]] std::vector<std::pair<std::string, YamlField>> entries() const;  // a map's keys and values

  [[nodiscard]] std::string text() const;
  [[nodiscard]] double number() const;
  [[nodiscard]] std::int64_t integer() const;
  [[nodiscard]] std::int64_t positive_integer() const;
  [[nodiscard]] std::int64_t non_negative_integer() const;
  [[nodiscard]] double positive_number() const;
  [[nodiscard]] bool boolean() const;
  [[nodiscard]] std::string one_of(std::initializer_list<std::string_view> choices) const;
  // A string or a list of strings, joined by "; " (used for sources).
  [[nodiscard]] std::string text_or_list() const;

  template <class Q>
  [[nodiscard]] Q quantity() const {
    return Q::from_base(quantity_base(Q::dimension));
  }
  template <class Q>
  [[nodiscard]] Q positive_quantity() const {
    const Q value = quantity<Q>();
    if (value.base() <= 0.0) fail("must be greater than zero, got '" + text() + "'");
    return value;
  }

  // Refuses keys not in `allowed` and keys given twice.
  void expect_keys(std::initializer_list<std::string_view> allowed) const;
  void expect_map() const;
  void expect_sequence() const;

  [[noreturn]] void fail(const std::string& message) const;

 private:
  [[nodiscard]] double quantity_base(Dimension dimension) const;
  [[nodiscard]] std::string child_path(std::string_view key) const;

  YAML::Node node_;
  std::string file_;
  std::string path_;
};

class YamlDocument {
 public:
  static YamlDocument load(const std::string& path);                     // throws InputFailure
  static YamlDocument parse(const std::string& text, std::string name);  // throws InputFailure
  [[nodiscard]] YamlField root() const { return {root_, name_, ""}; }

 private:
  YamlDocument(YAML::Node root, std::string name) : root_(std::move(root)), name_(std::move(name)) {}
  YAML::Node root_;
  std::string name_;
};

}  // namespace gputwin
