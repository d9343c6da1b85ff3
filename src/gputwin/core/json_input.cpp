#include "gputwin/core/json_input.hpp"

#include <cmath>

#include "gputwin/core/error.hpp"

namespace gputwin {
namespace {

SourceLocation location_of_byte(std::string_view text, std::size_t byte, const std::string& source) {
  byte = std::min(byte, text.size());
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i + 1 < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {source, line, column};
}

// Finds where the value at `steps` starts in `text`, a document nlohmann already parsed, so it is valid JSON.
// Walks the text token by token; returns npos when the path is not found (a duplicate key, say).
class ValueFinder {
 public:
  explicit ValueFinder(std::string_view text) : text_(text) {}

  template <class Steps>
  std::size_t find(const Steps& steps) {
    skip_blanks();
    for (const auto& step : steps) {
      if (done()) return std::string_view::npos;
      if (step.is_index ? !enter_element(step.index) : !enter_member(step.key)) return std::string_view::npos;
    }
    return position_;
  }

 private:
  bool done() const { return position_ >= text_.size(); }
  char peek() const { return done() ? '\0' : text_[position_]; }
  void skip_blanks() {
    while (!done() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++position_;
  }
  std::string_view string_token() {  // at '"'; returns the raw text between the quotes
    const std::size_t start = ++position_;
    while (!done() && peek() != '"') position_ += peek() == '\\' ? 2 : 1;
    const std::size_t end = std::min(position_, text_.size());
    ++position_;
    return text_.substr(start, end - start);
  }
  void skip_value() {
    skip_blanks();
    if (peek() == '"') {
      string_token();
    } else if (peek() == '{' || peek() == '[') {
      int depth = 0;
      while (!done()) {
        if (peek() == '"') {
          string_token();
          continue;
        }
        if (peek() == '{' || peek() == '[') ++depth;
        if (peek() == '}' || peek() == ']') --depth;
        ++position_;
        if (depth == 0) break;
      }
    } else {
      while (!done() && peek() != ',' && peek() != '}' && peek() != ']') ++position_;
    }
    skip_blanks();
  }
  bool enter_member(const std::string& key) {
    if (peek() != '{') return false;
    ++position_;
    for (skip_blanks(); peek() == '"'; skip_blanks()) {
      const std::string_view name = string_token();
      skip_blanks();
      ++position_;  // ':'
      skip_blanks();
      if (name == key) return true;
      skip_value();
      if (peek() == ',') ++position_;
    }
    return false;
  }
  bool enter_element(std::size_t index) {
    if (peek() != '[') return false;
    ++position_;
    skip_blanks();
    for (std::size_t i = 0; i < index; ++i) {
      skip_value();
      if (peek() != ',') return false;
      ++position_;
      skip_blanks();
    }
    return !done() && peek() != ']';
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& source) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    std::string message = error.what();
    // nlohmann's text repeats "[json.exception.parse_error.101] parse error at line 1, column 2:"; keep the
    // cause.
    if (const auto colon = message.find(": ", message.find("parse error")); colon != std::string::npos)
      message = message.substr(colon + 2);
    throw InputFailure(
        InputError{location_of_byte(text, error.byte, source), "", "malformed JSON: " + message});
  } catch (const nlohmann::json::out_of_range& error) {
    // A number no double holds ("number overflow parsing '1e999'"): nlohmann gives no byte, so the number is
    // located by its own text, quoted in the message.
    std::string message = error.what();
    if (const auto cause = message.find("] "); cause != std::string::npos)
      message = message.substr(cause + 2);
    std::size_t byte = 0;
    const auto open = message.find('\''), close = message.rfind('\'');
    if (open != std::string::npos && close > open) {
      if (const auto at = text.find(message.substr(open + 1, close - open - 1)); at != std::string_view::npos)
        byte = at + 1;  // location_of_byte counts 1-based bytes
    }
    throw InputFailure(InputError{location_of_byte(text, byte, source), "", "malformed JSON: " + message});
  }
}

JsonField JsonField::root(const nlohmann::json& document, const std::string& source, std::string_view text) {
  return JsonField(document, source, text, "", {});
}

JsonField JsonField::step_to(const nlohmann::json& value, Step step) const {
  std::vector<Step> steps = steps_;
  const std::string shown = step.is_index ? std::to_string(step.index) : step.key;
  steps.push_back(std::move(step));
  return JsonField(value, source_, text_, path_ + "/" + shown, std::move(steps));
}

void JsonField::fail(const std::string& message) const {
  const std::size_t offset = ValueFinder(text_).find(steps_);
  // location_of_byte counts 1-based bytes (nlohmann's convention), hence + 1.
  const SourceLocation where = offset == std::string_view::npos
                                   ? SourceLocation{source_, 0, 0}
                                   : location_of_byte(text_, offset + 1, source_);
  throw InputFailure(InputError{where, path_.empty() ? "/" : path_, message});
}

bool JsonField::has(std::string_view key) const {
  return value_.is_object() && value_.contains(std::string(key));
}

JsonField JsonField::child(std::string_view key) const {
  if (!value_.is_object()) fail("expected an object");
  const auto found = value_.find(std::string(key));
  if (found == value_.end()) fail("missing field '" + std::string(key) + "'");
  return step_to(*found, Step{std::string(key), 0, false});
}

std::optional<JsonField> JsonField::optional_child(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return child(key);
}

std::size_t JsonField::array_size() const {
  if (!value_.is_array()) fail("expected an array");
  return value_.size();
}

JsonField JsonField::element(std::size_t index) const {
  if (!value_.is_array() || index >= value_.size())
    fail("expected an array element " + std::to_string(index));
  return step_to(value_[index], Step{"", index, true});
}

std::string JsonField::string() const {
  if (!value_.is_string()) fail(std::string("expected a string, got ") + value_.type_name());
  return value_.get<std::string>();
}

double JsonField::number() const {
  if (!value_.is_number()) fail(std::string("expected a number, got ") + value_.type_name());
  const double value = value_.get<double>();
  if (!std::isfinite(value)) fail("expected a finite number");
  return value;
}

std::int64_t JsonField::integer() const {
  if (!value_.is_number_integer()) fail(std::string("expected a whole number, got ") + value_.type_name());
  return value_.get<std::int64_t>();
}

}  // namespace gputwin
