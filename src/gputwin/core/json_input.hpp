// Typed access to a parsed JSON document for readers of tool outputs (validate, sacct): a missing or mistyped field is an error
// naming the file and the field's JSON path; malformed JSON names the line and column.
//
//   nlohmann::json document = parse_json(text, "diag.json");             // throws InputFailure
//   JsonField root{document, "diag.json", ""};
//   std::string status = root.child("status").string();               // diag.json: /status: expected a
//   string
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gputwin {

[[nodiscard]] nlohmann::json parse_json(std::string_view text, const std::string& source);

class JsonField {
 public:
  // `text` is the document's text, used only to find the line of a field an error names.
  [[nodiscard]] static JsonField root(const nlohmann::json& document, const std::string& source,
                                      std::string_view text);

  [[nodiscard]] const nlohmann::json& json() const { return value_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] JsonField child(std::string_view key) const;  // throws when missing
  [[nodiscard]] std::optional<JsonField> optional_child(std::string_view key) const;
  [[nodiscard]] JsonField element(std::size_t index) const;
  [[nodiscard]] std::size_t array_size() const;  // throws unless an array
  [[nodiscard]] std::string string() const;
  [[nodiscard]] double number() const;
  [[nodiscard]] std::int64_t integer() const;
  [[noreturn]] void fail(const std::string& message) const;

 private:
  // One step from the root: an object key or an array index.
  struct Step {
    std::string key;
    std::size_t index = 0;
    bool is_index = false;
  };

  JsonField(const nlohmann::json& value, const std::string& source, std::string_view text, std::string path,
            std::vector<Step> steps)
      : value_(value), source_(source), text_(text), path_(std::move(path)), steps_(std::move(steps)) {}
  [[nodiscard]] JsonField step_to(const nlohmann::json& value, Step step) const;

  const nlohmann::json& value_;
  const std::string& source_;
  std::string_view text_;
  std::string path_;
  std::vector<Step> steps_;
};

}  // namespace gputwin
