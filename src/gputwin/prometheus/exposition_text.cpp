#include "gputwin/prometheus/exposition_text.hpp"

#include <cctype>
#include <cmath>
#include <vector>

#include "gputwin/core/input_file.hpp"
#include "gputwin/prometheus/text_scan.hpp"

namespace gputwin::prometheus {
namespace {

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}

std::string quoted_excerpt(std::string_view line) {
  constexpr std::size_t kLongestQuote = 80;
  return line.size() <= kLongestQuote ? std::string(line)
                                      : std::string(line.substr(0, kLongestQuote)) + "...";
}

// A cursor over one line; every failure names the line and what was expected at which column.
class LineCursor {
 public:
  LineCursor(std::string_view line, const std::string& source, int number)
      : line_(line), source_(source), number_(number) {}

  // The message quotes the line, so a reader sees which text was not a metric line.
  [[noreturn]] void fail(const std::string& message) const {
    throw InputFailure(InputError{{source_, number_, static_cast<int>(position_) + 1},
                                  "",
                                  message + " in '" + quoted_excerpt(line_) + "'"});
  }
  [[nodiscard]] bool done() const { return position_ >= line_.size(); }
  [[nodiscard]] char peek() const { return done() ? '\0' : line_[position_]; }
  void skip_blanks() {
    while (!done() && (peek() == ' ' || peek() == '\t')) ++position_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++position_;
  }
  std::string name() {
    const std::size_t start = position_;
    if (!is_name_start(peek())) fail("expected a metric or label name");
    while (!done() && is_name_char(peek())) ++position_;
    return std::string(line_.substr(start, position_ - start));
  }
  std::string quoted_value() {
    expect('"');
    std::string value;
    while (!done() && peek() != '"') {
      char c = line_[position_++];
      if (c == '\\') {
        if (done()) fail("a label value ends in a lone backslash");
        const char escaped = line_[position_++];
        c = escaped == 'n' ? '\n' : escaped;
        if (escaped != 'n' && escaped != '\\' && escaped != '"') fail("unknown escape in a label value");
      }
      value.push_back(c);
    }
    expect('"');
    return value;
  }
  std::string_view word() {
    skip_blanks();
    const std::size_t start = position_;
    while (!done() && peek() != ' ' && peek() != '\t') ++position_;
    return line_.substr(start, position_ - start);
  }

 private:
  std::string_view line_;
  const std::string& source_;
  int number_;
  std::size_t position_ = 0;
};

MetricSample sample_of(std::string_view line, const std::string& source, int number) {
  LineCursor cursor(line, source, number);
  MetricSample sample;
  sample.line = number;
  sample.name = cursor.name();
  if (cursor.peek() == '{') {
    cursor.expect('{');
    cursor.skip_blanks();
    while (cursor.peek() != '}') {
      std::string key = cursor.name();
      cursor.skip_blanks();
      cursor.expect('=');
      cursor.skip_blanks();
      sample.labels.emplace_back(std::move(key), cursor.quoted_value());
      cursor.skip_blanks();
      if (cursor.peek() == ',')
        cursor.expect(',');
      else if (cursor.peek() != '}')
        cursor.fail("expected ',' or '}' after a label");
      cursor.skip_blanks();
    }
    cursor.expect('}');
  }
  const std::string_view value = cursor.word();
  const auto parsed = parse_sample_value(value);
  if (!parsed)
    cursor.fail("expected a sample value (a number, NaN, +Inf or -Inf), got '" + std::string(value) + "'");
  sample.value = *parsed;
  if (const std::string_view timestamp = cursor.word(); !timestamp.empty()) {
    sample.timestamp_ms = parse_integer(timestamp);
    if (!sample.timestamp_ms) cursor.fail("expected a timestamp in milliseconds");
  }
  cursor.skip_blanks();
  if (!cursor.done()) cursor.fail("unexpected text after the sample");
  return sample;
}

class ScrapeBuilder {
 public:
  ScrapeBuilder(std::string_view text, const std::string& source) : text_(text) { scrape_.source = source; }

  MetricScrape build() {
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
    for (const Unparsed& after : unparsed_)
      scrape_.skipped.push_back(
          {after.line, started_ ? "after the exposition ends (not a metric line)" : "not a metric line"});
    return std::move(scrape_);
  }

 private:
  void read_line(std::string_view line, int number) {
    const std::string_view content = trim(line);
    if (content.empty()) return;
    const bool was_started = started_;
    if (content.front() == '#') {
      if (!read_comment(content, number)) return;  // a free comment is neither metric line nor junk
    } else {
      try {
        scrape_.samples.push_back(sample_of(content, scrape_.source, number));
      } catch (const InputFailure&) {
        if (looks_like_a_sample(content)) throw;
        // Text around an exposition (the curl command above it, curl's "* Connection #0 ... left intact"
        // below it) is skipped; the same text between two metric lines is an error, raised at the next one.
        unparsed_.push_back({number, std::string(content)});
        return;
      }
    }
    if (!unparsed_.empty() && was_started) fail_on_unparsed();
    for (const Unparsed& before : unparsed_)
      scrape_.skipped.push_back({before.line, "before the exposition starts (not a metric line)"});
    unparsed_.clear();
    started_ = true;
  }

  // A metric name followed by labels or by a number: a sample that is malformed, not text around one.
  static bool looks_like_a_sample(std::string_view content) {
    std::size_t end = 0;
    while (end < content.size() && is_name_char(content[end])) ++end;
    if (end == 0 || !is_name_start(content[0])) return false;
    if (end < content.size() && content[end] == '{') return true;
    const std::size_t value = content.find_first_not_of(" \t", end);
    if (value == end || value == std::string_view::npos) return false;
    const std::string_view token = split_whitespace(content.substr(value)).front();
    return std::isdigit(static_cast<unsigned char>(token.front())) != 0 ||
           parse_sample_value(token).has_value();
  }

  [[noreturn]] void fail_on_unparsed() const {
    const Unparsed& first = unparsed_.front();
    sample_of(first.text, scrape_.source, first.line);  // throws the located error naming the text
    throw InputFailure(InputError{{scrape_.source, first.line, 0}, "", "not a metric line: " + first.text});
  }

  // False for a free comment (not # HELP or # TYPE).
  bool read_comment(std::string_view comment, int number) {
    const auto words = split_whitespace(comment);
    if (words.size() < 3 || words[0] != "#" || (words[1] != "HELP" && words[1] != "TYPE")) return false;
    started_ = true;
    const std::string name(words[2]);
    const std::string_view rest =
        trim(comment.substr(static_cast<std::size_t>(words[2].data() - comment.data()) + words[2].size()));
    if (words[1] == "HELP") {
      scrape_.help.emplace_back(name, std::string(rest));
      return true;
    }
    static constexpr std::string_view kTypes[] = {"counter", "gauge", "histogram", "summary", "untyped"};
    for (std::string_view type : kTypes)
      if (rest == type) {
        scrape_.type.emplace_back(name, std::string(rest));
        return true;
      }
    throw InputFailure(InputError{{scrape_.source, number, 0},
                                  name,
                                  "unknown metric type '" + std::string(rest.substr(0, 40)) +
                                      "' (expected counter, gauge, histogram, summary or untyped)"});
  }

  struct Unparsed {
    int line = 0;
    std::string text;
  };

  std::string_view text_;
  MetricScrape scrape_;
  bool started_ = false;
  std::vector<Unparsed> unparsed_;  // lines since the last metric line that were no metric line
};

}  // namespace

Result<MetricScrape> ExpositionText::read_file(const std::string& path) {
  return guarded_parse<MetricScrape>(path, [&] {
    const std::string text = read_input_file(path);
    return ScrapeBuilder(text, path).build();
  });
}

Result<MetricScrape> ExpositionText::parse(std::string_view text, const std::string& source) {
  return guarded_parse<MetricScrape>(source, [&] { return ScrapeBuilder(text, source).build(); });
}

}  // namespace gputwin::prometheus
