// Test helpers for the readers of JSON result documents: a real document made wrong in one way at a time
// (another schema, cut short, one field removed), and the error text a reader gives for it.
//
//   const std::string text = plan_json(cluster).dump(2);
//   EXPECT_THAT(error_of(read_plan_json(without(text, "/totals/gpus"), "plan.json")), HasSubstr("/totals"));
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/core/error.hpp"

namespace gputwin::testing {

// The document with its schema field set to `schema`.
inline std::string with_schema(const std::string& text, const std::string& schema) {
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(text);
  document["schema"] = schema;
  return document.dump(2);
}

// The document with the value at `pointer` (an RFC 6901 JSON pointer such as "/rows/0/policy") removed.
inline std::string without(const std::string& text, const std::string& pointer) {
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(text);
  const nlohmann::ordered_json::json_pointer path(pointer);
  document[path.parent_pointer()].erase(path.back());
  return document.dump(2);
}

// The document cut in the middle, as a writer killed mid-write leaves it.
inline std::string truncated(const std::string& text) {
  return text.substr(0, text.size() / 2);
}

// The errors of a failed read ("" when it succeeded).
template <class T>
std::string error_of(const Result<T>& result) {
  return result.ok() ? std::string() : result.error_text();
}

}  // namespace gputwin::testing
