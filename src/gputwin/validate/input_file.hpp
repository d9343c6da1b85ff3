// The validate readers' names for the whole-file reading now in core (shared with every reader).
#pragma once

#include "gputwin/core/input_file.hpp"

namespace gputwin::validate {
using gputwin::guarded_parse;
using gputwin::read_input_file;
}  // namespace gputwin::validate
