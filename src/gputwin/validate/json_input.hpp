// The validate readers' name for the JSON access now in core (shared with the sacct reader).
#pragma once

#include "gputwin/core/json_input.hpp"

namespace gputwin::validate {
using gputwin::JsonField;
using gputwin::parse_json;
}  // namespace gputwin::validate
