#include "gputwin/report/json_document.hpp"

#include <cstdint>
#include <limits>

namespace gputwin {

void expect_schema(const JsonField& root, std::string_view schema, std::string_view written_by) {
  const std::string expected = std::string(schema) + " (" + std::string(written_by) + ")";
  if (!root.json().is_object() || !root.has("schema"))
    root.fail("expected a gputwin JSON result with a schema field: " + expected);
  const JsonField field = root.child("schema");
  const std::string found = field.string();
  if (found != schema) field.fail("expected " + expected + ", found '" + found + "'");
}

bool boolean_of(const JsonField& field) {
  if (!field.json().is_boolean())
    field.fail(std::string("expected true or false, got ") + field.json().type_name());
  return field.json().get<bool>();
}

std::optional<double> optional_number(const JsonField& field) {
  if (field.json().is_null()) return std::nullopt;
  return field.number();
}

int int_of(const JsonField& field) {
  const std::int64_t value = field.integer();
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    field.fail("expected an integer of at most " + std::to_string(std::numeric_limits<int>::max()));
  return static_cast<int>(value);
}

}  // namespace gputwin
