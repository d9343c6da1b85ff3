// Reading a gputwin JSON result document back: the text parsed (malformed JSON names line and column), the
// schema checked, then a reader that throws InputFailure naming the field by its JSON pointer. Shared by the
// readers beside each writer in report/ (plan, validate, sweep, infer, perf-size).
//
//   Result<PlanSummary> plan = read_json_document<PlanSummary>(text, "plan.json", plan_summary_from_json);
//   // plan.json:3:13: /totals/gpus: expected an integer
//
//   expect_schema(root, kPlanSchema, "plan --json");   // in a reader: /schema: expected gputwin.plan/1 ...
//   std::optional<double> price = optional_number(line.child("unit_price_usd"));   // null -> empty
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"

namespace gputwin {

// Fails at /schema unless the document is an object whose schema is `schema`; `written_by` names the command
// that writes it, for the message.
void expect_schema(const JsonField& root, std::string_view schema, std::string_view written_by);

[[nodiscard]] bool boolean_of(const JsonField& field);
// A number, or empty for null.
[[nodiscard]] std::optional<double> optional_number(const JsonField& field);
// An integer that fits an int.
[[nodiscard]] int int_of(const JsonField& field);

// Parses `text` and hands its root to `read` (a function of `const JsonField&` that throws InputFailure);
// every failure, including a JSON library error, becomes a located error of `source`.
template <class T, class Read>
[[nodiscard]] Result<T> read_json_document(std::string_view text, const std::string& source, Read read) {
  return guarded_parse<T>(source, [&]() -> T {
    const nlohmann::json document = parse_json(text, source);
    return read(JsonField::root(document, source, text));
  });
}

}  // namespace gputwin
