#include "gputwin/validate/nccl_tests_text.hpp"

#include <cstdlib>
#include <regex>

#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

// A word of a line and the column just past its end: nccl-tests right-aligns values under their header names.
struct Word {
  std::string_view text;
  std::size_t end = 0;
};

std::vector<Word> words_with_ends(std::string_view line) {
  std::vector<Word> words;
  for (std::string_view word : split_whitespace(line))
    words.push_back({word, static_cast<std::size_t>(word.data() - line.data()) + word.size()});
  return words;
}

// The header: column names in order, each with its right edge, and which half (out-of-place or in-place) it
// is.
struct Header {
  int line = 0;
  std::string prefix;  // what precedes the '#' on the header line, removed from every following line
  std::vector<Word> columns;
  std::vector<std::string> names;
};

std::optional<Header> header_of(std::string_view line, int number) {
  const auto hash = line.find('#');
  if (hash == std::string_view::npos) return std::nullopt;
  std::string_view body = line.substr(hash);
  auto words = words_with_ends(body);
  bool has_size = false;
  bool has_busbw = false;
  for (const Word& word : words) {
    has_size = has_size || word.text == "size";
    has_busbw = has_busbw || word.text == "busbw";
  }
  if (!has_size || !has_busbw) return std::nullopt;
  Header header{number, std::string(line.substr(0, hash)), {}, {}};
  for (const Word& word : words) {
    if (word.text == "#") continue;
    header.columns.push_back(word);
    header.names.emplace_back(word.text);
  }
  return header;
}

// Removes the header's prefix, or any rank/time prefix ("0: ", "[1,0]<stdout>:", "[2024-01-01 10:00:00] ").
// Written by hand rather than with std::regex, whose backtracking overflows the stack on long garbage lines.
std::string_view strip_prefix(std::string_view line, const std::string& prefix) {
  if (!prefix.empty() && line.substr(0, prefix.size()) == prefix) return line.substr(prefix.size());
  const std::string_view content = trim(line);
  if (!content.empty() && content.front() == '[') {
    const auto close = content.find(']');
    if (close == std::string_view::npos) return line;
    std::string_view rest = content.substr(close + 1);
    for (std::string_view stream : {"<stdout>", "<stderr>"})
      if (rest.substr(0, stream.size()) == stream) rest.remove_prefix(stream.size());
    if (!rest.empty() && rest.front() == ':') rest.remove_prefix(1);
    return rest;
  }
  const auto digits_end = content.find_first_not_of("0123456789");
  if (digits_end != std::string_view::npos && digits_end > 0 && content.substr(digits_end, 2) == ": ")
    return content.substr(digits_end + 2);
  return line;
}

// "all_reduce" from the first "all_reduce_perf" in the output (a command line or the binary's banner).
std::optional<std::string> collective_named_in(std::string_view text) {
  const auto suffix = text.find("_perf");
  if (suffix == std::string_view::npos) return std::nullopt;
  std::size_t start = suffix;
  while (start > 0 && ((text[start - 1] >= 'a' && text[start - 1] <= 'z') || text[start - 1] == '_')) --start;
  if (start == suffix) return std::nullopt;
  return std::string(text.substr(start, suffix - start));
}

// std::regex recurses per character; lines longer than any real nccl-tests line are not matched with it.
constexpr std::size_t kLongestRegexLine = 1024;

class RunBuilder {
 public:
  RunBuilder(std::string_view text, const std::string& source) : text_(text) { run_.source = source; }
  NcclTestsRun build();

 private:
  void read_line(std::string_view line, int number);
  void read_comment(std::string_view comment, int number);
  void read_row(std::string_view line, int number);
  [[nodiscard]] std::vector<std::optional<std::string_view>> cells_of(std::string_view line,
                                                                      int number) const;
  [[nodiscard]] FieldAt at(int number, const std::string& column) const {
    return FieldAt{{run_.source, number, 0}, column};
  }

  std::string_view text_;
  NcclTestsRun run_;
  std::optional<Header> header_;
};

NcclTestsRun RunBuilder::build() {
  run_.collective = collective_named_in(text_);
  int number = 0;
  std::size_t position = 0;
  while (position < text_.size()) {
    auto end = text_.find('\n', position);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view line = text_.substr(position, end - position);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    read_line(line, ++number);
    position = end + 1;
  }
  if (!header_)
    throw InputFailure(
        InputError{{run_.source, 0, 0},
                   "",
                   "no nccl-tests result table: no header line naming 'size' and 'busbw' columns"});
  return std::move(run_);
}

void RunBuilder::read_line(std::string_view raw, int number) {
  if (auto header = header_of(raw, number)) {
    header_ = std::move(header);
    return;
  }
  const std::string_view line = strip_prefix(raw, header_ ? header_->prefix : std::string());
  const std::string_view content = trim(line);
  if (content.empty()) return;
  if (content.front() == '#') return read_comment(trim(content.substr(1)), number);
  if (content == "..." || content.substr(0, 3) == "...")
    return run_.skipped.push_back({number, "elided ('...')"});
  const bool looks_like_row = content.front() >= '0' && content.front() <= '9' &&
                              !split_whitespace(content).empty() &&
                              parse_integer(split_whitespace(content).front()).has_value();
  if (!looks_like_row)
    return run_.skipped.push_back({number, "not a result row (a log line of another program)"});
  if (!header_) return run_.skipped.push_back({number, "a row before any header line"});
  read_row(line, number);
}

void RunBuilder::read_comment(std::string_view comment, int number) {
  static const std::regex kAverage(R"(^Avg bus bandwidth\s*:\s*(\S+))");
  static const std::regex kOutOfBounds(R"(^Out of bounds values\s*:\s*([0-9]+))");
  static const std::regex kDevice(R"(^Rank\s+[0-9]+\s.*\sdevice\s+[0-9]+\s+\[[^\]]*\]\s+(.+)$)");
  if (comment.size() > kLongestRegexLine) return;
  std::match_results<std::string_view::const_iterator> match;
  if (std::regex_search(comment.begin(), comment.end(), match, kAverage)) {
    const auto value = parse_double(match[1].str());
    if (!value)
      fail_at(at(number, "Avg bus bandwidth"), "expected a number in GB/s, got '" + match[1].str() + "'");
    run_.average_bus_bandwidth = gigabytes_per_second(*value);
  } else if (std::regex_search(comment.begin(), comment.end(), match, kOutOfBounds)) {
    run_.out_of_bounds = parse_integer(match[1].str());
  } else if (std::regex_search(comment.begin(), comment.end(), match, kDevice)) {
    run_.devices.emplace_back(trim(match[1].str()));
  }
  // Other comments are the run's decoration (parameters, "Using devices", the units line): nothing to keep.
}

// Cells by header column. Values are right-aligned under their names, so when a column is empty in a row
// (old alltoall logs print no redop) each word goes to the column whose right edge is nearest.
std::vector<std::optional<std::string_view>> RunBuilder::cells_of(std::string_view line, int number) const {
  const auto& columns = header_->columns;
  const auto words = words_with_ends(line);
  std::vector<std::optional<std::string_view>> cells(columns.size());
  if (words.size() == columns.size()) {
    for (std::size_t i = 0; i < words.size(); ++i) cells[i] = words[i].text;
    return cells;
  }
  constexpr std::size_t kMostEmptyColumns = 2;  // redop and root: the only columns old versions leave blank
  if (words.size() > columns.size() || words.size() + kMostEmptyColumns < columns.size())
    fail_at(at(number, ""), "expected " + std::to_string(columns.size()) +
                                " columns as in the header at line " + std::to_string(header_->line) +
                                ", got " + std::to_string(words.size()) + " (a line cut short?)");
  std::size_t next = 0;
  for (std::size_t w = 0; w < words.size(); ++w) {
    const std::size_t last_allowed = columns.size() - (words.size() - w);
    std::size_t best = next;
    auto distance = [&](std::size_t c) {
      return std::abs(static_cast<long>(columns[c].end) - static_cast<long>(words[w].end));
    };
    for (std::size_t c = next; c <= last_allowed; ++c)
      if (distance(c) < distance(best)) best = c;
    cells[best] = words[w].text;
    next = best + 1;
  }
  return cells;
}

void RunBuilder::read_row(std::string_view line, int number) {
  const auto cells = cells_of(line, number);
  const auto& names = header_->names;
  CollectiveRow row;
  row.line = number;
  bool in_place = false;
  bool seen_time = false;
  for (std::size_t c = 0; c < names.size(); ++c) {
    const std::string& name = names[c];
    const std::string_view cell = cells[c].value_or("");
    const FieldAt field = at(number, name);
    CollectiveTiming& timing = in_place ? row.in_place : row.out_of_place;
    if (name == "time") {
      if (seen_time) in_place = true;
      seen_time = true;
      (in_place ? row.in_place : row.out_of_place).time_us = number_with_unit(cell, "", field);
    } else if (name == "size") {
      const auto size = count_value(cell, field);
      if (!size) fail_at(field, "expected the message size in bytes");
      row.size = bytes(static_cast<double>(*size));
    } else if (name == "count") {
      row.count = count_value(cell, field).value_or(0);
    } else if (name == "type") {
      row.type = text_value(cell);
    } else if (name == "redop") {
      row.reduction = text_value(cell);
    } else if (name == "root") {
      const auto root = parse_integer(trim(cell));
      if (!cell.empty() && (!root || *root < -1 || *root > 1'000'000))
        fail_at(field, "expected a rank or -1");
      if (root) row.root = static_cast<int>(*root);
    } else if (name == "algbw" || name == "busbw") {
      const auto value = number_with_unit(cell, "", field);
      auto& target = name == "algbw" ? timing.algorithm_bandwidth : timing.bus_bandwidth;
      if (value) target = gigabytes_per_second(*value);
    } else if (name == "#wrong") {
      timing.wrong = count_value(cell, field);
    } else if (name == "error") {
      timing.max_error = number_with_unit(cell, "", field);
    }
  }
  if (!row.out_of_place.bus_bandwidth && !row.in_place.bus_bandwidth)
    fail_at(at(number, "busbw"), "a result row with no bus bandwidth");
  run_.rows.push_back(std::move(row));
}

}  // namespace

Result<NcclTestsRun> NcclTestsText::read_file(const std::string& path) {
  return guarded_parse<NcclTestsRun>(path, [&] {
    const std::string text = read_input_file(path);
    return RunBuilder(text, path).build();
  });
}

Result<NcclTestsRun> NcclTestsText::parse(std::string_view text, const std::string& source) {
  return guarded_parse<NcclTestsRun>(source, [&] { return RunBuilder(text, source).build(); });
}

}  // namespace gputwin::validate
