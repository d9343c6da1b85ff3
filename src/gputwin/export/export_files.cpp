#include "gputwin/export/export_files.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace gputwin {

const std::string& ExportFiles::text(std::string_view name) const {
  for (const ExportFile& file : files) {
    if (file.name == name) return file.text;
  }
  throw std::out_of_range("no exported file named " + std::string(name));
}

std::optional<std::string> write_export_files(const ExportFiles& files, const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) return directory + ": cannot create the directory: " + error.message();
  for (const ExportFile& file : files.files) {
    const std::filesystem::path path = std::filesystem::path(directory) / file.name;
    std::ofstream out(path);
    out << file.text;
    if (!out) return path.string() + ": cannot write";
  }
  return std::nullopt;
}

}  // namespace gputwin
