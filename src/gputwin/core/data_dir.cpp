#include "gputwin/core/data_dir.hpp"

#include <cstdlib>

#ifndef GPUTWIN_DEFAULT_DATA_DIR
#define GPUTWIN_DEFAULT_DATA_DIR "data"
#endif

namespace gputwin {

std::string bundled_data_dir() {
  if (const char* overridden = std::getenv("GPUTWIN_DATA_DIR")) return overridden;
  return GPUTWIN_DEFAULT_DATA_DIR;
}

}  // namespace gputwin
