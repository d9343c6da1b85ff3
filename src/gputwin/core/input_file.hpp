// Reads a whole input file (specs, traces, tool outputs), and runs a parser so that every failure becomes a
// located error.
//
//   std::string text = read_input_file("node017/nvidia-smi.xml");   // throws InputFailure naming the file
//   return guarded_parse<NodeFacts>(source, [&] { return parse_node(text); });
#pragma once

#include <exception>
#include <string>

#include "gputwin/core/error.hpp"

namespace gputwin {

[[nodiscard]] std::string read_input_file(const std::string& path);

// Runs `parse`; an InputFailure becomes its error, and any other exception (a JSON library's type error, a
// failed allocation) becomes an error of `source`, so malformed input never escapes as a crash.
template <class T, class Parse>
[[nodiscard]] Result<T> guarded_parse(const std::string& source, Parse parse) {
  try {
    return parse();
  } catch (const InputFailure& failure) {
    return failure.error();
  } catch (const std::exception& other) {
    return InputError{{source, 0, 0}, "", std::string("unreadable input: ") + other.what()};
  }
}

}  // namespace gputwin
