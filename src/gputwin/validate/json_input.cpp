#include "gputwin/validate/json_input.hpp"

#include <cmath>

#include "gputwin/core/error.hpp"

namespace gputwin::validate {
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
  }
}

void JsonField::fail(const std::string& message) const {
  throw InputFailure(InputError{{source_, 0, 0}, path_.empty() ? "/" : path_, message});
}

bool JsonField::has(std::string_view key) const {
  return value_.is_object() && value_.contains(std::string(key));
}

JsonField JsonField::child(std::string_view key) const {
  if (!value_.is_object()) fail("expected an object");
  const auto found = value_.find(std::string(key));
  if (found == value_.end()) fail("missing field '" + std::string(key) + "'");
  return JsonField(*found, source_, path_ + "/" + std::string(key));
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
  return JsonField(value_[index], source_, path_ + "/" + std::to_string(index));
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

}  // namespace gputwin::validate
