// A plain-text table with aligned columns, for terminal reports.
//
//   TextTable table({"part", "count"}, {Align::left, Align::right});
//   table.add_row({"qm9700", "48"});
//   std::cout << table.render();
#pragma once

#include <string>
#include <vector>

namespace gputwin {

enum class Align { left, right };

class TextTable {
 public:
  TextTable(std::vector<std::string> header, std::vector<Align> alignment);
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> header_;
  std::vector<Align> alignment_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gputwin
