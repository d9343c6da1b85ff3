// Reads CSV files row by row with line numbers, locating columns by their header names, so every bad value is
// reported as file:line: column: what was expected.
//
//   CsvReader csv = CsvReader::open("pods.csv");               // throws InputFailure when unreadable
//   const int cpu = csv.column("cpu_milli");                   // throws when the header lacks it
//   while (auto row = csv.next()) {
//     long long milli = row->integer(cpu);                     // throws InputFailure naming line and column
//   }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"

namespace gputwin {

class CsvRow {
 public:
  CsvRow(const std::string* file, int line, std::vector<std::string> cells, const std::vector<std::string>* header)
      : file_(file), line_(line), cells_(std::move(cells)), header_(header) {}

  [[nodiscard]] int line() const { return line_; }
  [[nodiscard]] std::size_t size() const { return cells_.size(); }
  [[nodiscard]] const std::string& text(int column) const;
  [[nodiscard]] bool empty(int column) const { return text(column).empty(); }
  [[nodiscard]] std::int64_t integer(int column) const;
  [[nodiscard]] double number(int column) const;
  [[nodiscard]] SourceLocation location() const { return {*file_, line_, 0}; }
  [[noreturn]] void fail(int column, const std::string& message) const;

 private:
  const std::string* file_;
  int line_;
  std::vector<std::string> cells_;
  const std::vector<std::string>* header_;
};

class CsvReader {
 public:
  // Reads the whole file; the first non-empty line is the header unless `header` is given.
  static CsvReader open(const std::string& path, std::vector<std::string> header = {});
  static CsvReader parse(const std::string& text, std::string name, std::vector<std::string> header = {});

  [[nodiscard]] int column(std::string_view name) const;           // throws when missing
  [[nodiscard]] int optional_column(std::string_view name) const;  // -1 when missing
  [[nodiscard]] const std::vector<std::string>& header() const { return header_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  // The next data row; a row with a different number of cells than the header is an error.
  std::optional<CsvRow> next();

 private:
  CsvReader(std::string file, std::string text, std::vector<std::string> header);
  bool next_line(std::string_view& line);

  std::string file_;
  std::string text_;
  std::size_t offset_ = 0;
  int line_ = 0;
  std::vector<std::string> header_;
};

[[nodiscard]] std::vector<std::string> split_csv_line(std::string_view line);

}  // namespace gputwin
