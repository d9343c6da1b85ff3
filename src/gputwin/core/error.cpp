#include "gputwin/core/error.hpp"

namespace gputwin {

std::string InputError::to_string() const {
  // An error with no file comes from the command line or a computation; its message names what is wrong.
  std::string text = where.file;
  if (where.line > 0) {
    text += ":" + std::to_string(where.line);
    if (where.column > 0) text += ":" + std::to_string(where.column);
  }
  if (!text.empty()) text += ": ";
  if (!field.empty()) text += field + ": ";
  return text + message;
}

InputFailure::InputFailure(InputError error)
    : std::runtime_error(error.to_string()), error_(std::move(error)) {}

std::string join_errors(const InputErrors& errors) {
  std::string text;
  for (const auto& error : errors) text += error.to_string() + "\n";
  return text;
}

}  // namespace gputwin
