#include "gputwin/report/text_table.hpp"

#include <algorithm>

namespace gputwin {

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> alignment)
    : header_(std::move(header)), alignment_(std::move(alignment)) {
  alignment_.resize(header_.size(), Align::left);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string text = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string padding(widths[c] - row[c].size(), ' ');
      text += alignment_[c] == Align::right ? padding + row[c] : row[c] + padding;
      if (c + 1 < row.size()) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::string text = line(header_);
  for (const auto& row : rows_) text += line(row);
  return text;
}

}  // namespace gputwin
