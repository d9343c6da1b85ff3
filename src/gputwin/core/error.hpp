// Input errors that name where they come from: file, line, column, the field path and what was expected.
//
//   InputError error{{"spec.yaml", 12, 5}, "fabrics.compute.switch", "unknown switch 'qm9800'"};
//   std::cerr << error.to_string();   // spec.yaml:12:5: fabrics.compute.switch: unknown switch 'qm9800'
//
// Loaders throw InputFailure internally and return Result<T> at their public boundary.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gputwin {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
};

struct InputError {
  SourceLocation where;
  std::string field;  // dotted path such as "fabrics.compute.oversubscription"; empty when not a field
  std::string message;

  [[nodiscard]] std::string to_string() const;
};

using InputErrors = std::vector<InputError>;

class InputFailure : public std::runtime_error {
 public:
  explicit InputFailure(InputError error);
  [[nodiscard]] const InputError& error() const { return error_; }

 private:
  InputError error_;
};

// A value or the errors that prevented it.
template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}                        // NOLINT(google-explicit-constructor)
  Result(InputErrors errors) : state_(std::move(errors)) {}            // NOLINT(google-explicit-constructor)
  Result(InputError error) : state_(InputErrors{std::move(error)}) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  [[nodiscard]] const T& value() const& { return std::get<T>(state_); }
  [[nodiscard]] T&& value() && { return std::get<T>(std::move(state_)); }
  [[nodiscard]] const InputErrors& errors() const { return std::get<InputErrors>(state_); }
  [[nodiscard]] std::string error_text() const;

 private:
  std::variant<T, InputErrors> state_;
};

[[nodiscard]] std::string join_errors(const InputErrors& errors);

// Runs a reader that throws InputFailure and turns the failure into a Result: the module-boundary conversion.
template <class T, class Read>
[[nodiscard]] Result<T> result_of(Read read) {
  try {
    return read();
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

template <class T>
std::string Result<T>::error_text() const {
  return ok() ? std::string() : join_errors(errors());
}

}  // namespace gputwin
