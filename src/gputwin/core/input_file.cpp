#include "gputwin/core/input_file.hpp"

#include <fstream>
#include <sstream>

namespace gputwin {

std::string read_input_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputFailure(InputError{{path, 0, 0}, "", "cannot open file"});
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace gputwin
