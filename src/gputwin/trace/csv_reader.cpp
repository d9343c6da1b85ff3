#include "gputwin/trace/csv_reader.hpp"

#include "gputwin/core/input_file.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace gputwin {

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (!cell.empty() && cell.back() == '\r') cell.pop_back();
  cells.push_back(std::move(cell));
  return cells;
}

const std::string& CsvRow::text(int column) const {
  if (column < 0 || column >= static_cast<int>(cells_.size())) {
    throw InputFailure({location(), "", "row has no column " + std::to_string(column + 1)});
  }
  return cells_[column];
}

void CsvRow::fail(int column, const std::string& message) const {
  const std::string name = column >= 0 && column < static_cast<int>(header_->size()) ? (*header_)[column] : "";
  throw InputFailure({location(), name, message});
}

std::int64_t CsvRow::integer(int column) const {
  const std::string& cell = text(column);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (error == std::errc() && end == cell.data() + cell.size()) return value;
  // Integers written as "12.0" by data tools are accepted when whole.
  const double as_number = number(column);
  if (std::floor(as_number) != as_number) fail(column, "expected a whole number, got '" + cell + "'");
  return static_cast<std::int64_t>(as_number);
}

double CsvRow::number(int column) const {
  const std::string& cell = text(column);
  double value = 0;
  const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || error != std::errc() || end != cell.data() + cell.size() || !std::isfinite(value)) {
    fail(column, "expected a number, got '" + cell + "'");
  }
  return value;
}

CsvReader::CsvReader(std::string file, std::string text, std::vector<std::string> header)
    : file_(std::move(file)), text_(std::move(text)), header_(std::move(header)) {
  if (header_.empty()) {
    std::string_view line;
    if (!next_line(line)) throw InputFailure({{file_, 0, 0}, "", "empty file: expected a header line"});
    header_ = split_csv_line(line);
  }
}

CsvReader CsvReader::parse(const std::string& text, std::string name, std::vector<std::string> header) {
  return CsvReader(std::move(name), text, std::move(header));
}

CsvReader CsvReader::open(const std::string& path, std::vector<std::string> header) {
  return CsvReader(path, read_input_file(path), std::move(header));
}

bool CsvReader::next_line(std::string_view& line) {
  while (offset_ < text_.size()) {
    const std::size_t end = text_.find('\n', offset_);
    const std::size_t stop = end == std::string::npos ? text_.size() : end;
    line = std::string_view(text_).substr(offset_, stop - offset_);
    offset_ = stop + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) return true;
  }
  return false;
}

int CsvReader::optional_column(std::string_view name) const {
  for (std::size_t c = 0; c < header_.size(); ++c) {
    if (header_[c] == name) return static_cast<int>(c);
  }
  return -1;
}

int CsvReader::column(std::string_view name) const {
  const int found = optional_column(name);
  if (found < 0) {
    std::string names;
    for (const auto& h : header_) names += (names.empty() ? "" : ",") + h;
    throw InputFailure({{file_, 1, 0}, std::string(name), "missing column; the header has " + names});
  }
  return found;
}

std::optional<CsvRow> CsvReader::next() {
  std::string_view line;
  if (!next_line(line)) return std::nullopt;
  auto cells = split_csv_line(line);
  if (cells.size() != header_.size()) {
    throw InputFailure({{file_, line_, 0}, "",
                        "expected " + std::to_string(header_.size()) + " columns, found " +
                            std::to_string(cells.size()) + " (truncated or malformed row)"});
  }
  return CsvRow(&file_, line_, std::move(cells), &header_);
}

}  // namespace gputwin
