// The files an export target writes, as one value: every target (Slurm configs, the sweep's Slurm job array,
// and the Prometheus rules and Kubernetes objects to come) returns an ExportFiles, and one function writes
// any of them into a directory.
//
//   ExportFiles files = slurm_config(cluster, catalog);
//   const std::string& gres = files.text("gres.conf");
//   if (auto problem = write_export_files(files, "out/")) std::cerr << *problem << "\n";
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gputwin {

struct ExportFile {
  std::string name;  // relative to the directory the files are written into
  std::string text;
};

struct ExportFiles {
  std::vector<ExportFile> files;  // in the order they are written and listed

  // The text of the file of that name; throws std::out_of_range when there is none.
  [[nodiscard]] const std::string& text(std::string_view name) const;
};

// Creates `directory` and writes every file into it. Returns what went wrong ("<path>: cannot write"), or
// nothing when every file was written.
[[nodiscard]] std::optional<std::string> write_export_files(const ExportFiles& files,
                                                            const std::string& directory);

}  // namespace gputwin
