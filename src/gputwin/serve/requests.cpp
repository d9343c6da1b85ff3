#include "gputwin/serve/requests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <optional>
#include <sstream>

#include "gputwin/core/civil_time.hpp"
#include "gputwin/core/input_file.hpp"
#include "gputwin/core/random.hpp"

namespace gputwin {
namespace {

// Standard normal by Box-Muller from two uniforms (std's distributions differ between libraries).
double standard_normal(Random& random) {
  const double u = 1.0 - random.unit();  // (0, 1]
  const double v = random.unit();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

// Gamma(shape, 1) by Marsaglia and Tsang's method; shapes below 1 through Gamma(shape + 1) x U^(1/shape).
double standard_gamma(Random& random, double shape) {
  if (shape < 1.0) return standard_gamma(random, shape + 1.0) * std::pow(1.0 - random.unit(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x = 0;
    double v = 0;
    do {
      x = standard_normal(random);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1.0 - random.unit();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

double next_gap(Random& random, const ArrivalProcess& process) {
  const double mean = 1.0 / process.rate_per_s;
  if (std::abs(process.gap_cv - 1.0) < 1e-12) return -mean * std::log(1.0 - random.unit());
  const double shape = 1.0 / (process.gap_cv * process.gap_cv);
  return standard_gamma(random, shape) * mean / shape;
}

InputError row_error(const std::string& name, int line, const std::string& field,
                     const std::string& message) {
  return InputError{{name, line, 0}, field, message};
}

std::optional<int> parse_count(std::string_view text) {
  int value = 0;
  const auto [end, problem] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (problem != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

struct Instant {
  std::int64_t whole = 0;  // seconds since 1970 (kept apart from the fraction: a double of both loses digits)
  double fraction = 0;
  [[nodiscard]] double seconds_since(const Instant& start) const {
    return static_cast<double>(whole - start.whole) + (fraction - start.fraction);
  }
};

// "YYYY-MM-DD HH:MM:SS" with an optional ".fraction".
std::optional<Instant> parse_instant(std::string_view text) {
  const auto dot = text.find('.');
  const auto whole = parse_timestamp(text.substr(0, dot));
  if (!whole) return std::nullopt;
  double fraction = 0;
  if (dot != std::string_view::npos) {
    const std::string_view digits = text.substr(dot + 1);
    if (digits.empty() || digits.size() > 9) return std::nullopt;
    double scale = 0.1;
    for (const char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      fraction += (c - '0') * scale;
      scale /= 10;
    }
  }
  return Instant{*whole, fraction};
}

}  // namespace

std::vector<ServeRequest> generate_arrivals(const ArrivalProcess& process, std::uint64_t seed) {
  std::vector<ServeRequest> requests;
  if (process.rate_per_s <= 0 || process.duration_s <= 0) return requests;
  Random random(seed);
  for (double t = next_gap(random, process); t < process.duration_s; t += next_gap(random, process))
    requests.push_back({t, process.input_tokens, process.output_tokens});
  return requests;
}

double LengthDistribution::mean() const {
  return shape == Shape::uniform ? (first + second) / 2 : first;
}

std::string LengthDistribution::text() const {
  switch (shape) {
    case Shape::uniform:
      return fmt::format("uniform {:g}..{:g}", first, second);
    case Shape::lognormal:
      return fmt::format("lognormal (mean {:g}, CV {:g})", first, second);
    case Shape::fixed:
      break;
  }
  return fmt::format("{:g}", first);
}

Result<LengthDistribution> parse_length_distribution(const std::string& text) {
  const auto refuse = [&](const std::string& why) {
    InputError error;
    error.message = "'" + text + "' " + why +
                    " (a length is N, uniform:LO,HI or lognormal:MEAN,CV, e.g. lognormal:1024,0.5)";
    return error;
  };
  const auto whole = [](std::string_view digits) -> std::optional<int> {
    const auto count = parse_count(digits);
    if (!count || *count < 1) return std::nullopt;
    return count;
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    const auto tokens = whole(text);
    if (!tokens) return refuse("is not a whole number of at least 1 token");
    return LengthDistribution::fixed_at(*tokens);
  }
  const std::string shape = text.substr(0, colon);
  const std::string values = text.substr(colon + 1);
  const auto comma = values.find(',');
  if (comma == std::string::npos || values.find(',', comma + 1) != std::string::npos)
    return refuse("needs two values after the colon, separated by a comma");
  const std::string a = values.substr(0, comma), b = values.substr(comma + 1);
  if (shape == "uniform") {
    const auto low = whole(a), high = whole(b);
    if (!low || !high) return refuse("needs whole numbers of at least 1 token");
    if (*low > *high) return refuse("has LO above HI");
    return LengthDistribution{LengthDistribution::Shape::uniform, static_cast<double>(*low),
                              static_cast<double>(*high)};
  }
  if (shape == "lognormal") {
    const auto number = [](const std::string& digits) -> std::optional<double> {
      double value = 0;
      const auto [end, problem] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (problem != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value))
        return std::nullopt;
      return value;
    };
    const auto mean = number(a), cv = number(b);
    if (!mean || !cv) return refuse("needs numbers for MEAN and CV");
    if (*mean < 1) return refuse("needs a MEAN of at least 1 token");
    if (*cv <= 0) return refuse("needs a CV above 0 (a fixed length is just N)");
    return LengthDistribution{LengthDistribution::Shape::lognormal, *mean, *cv};
  }
  return refuse("names no known distribution '" + shape + "'");
}

int draw_length(const LengthDistribution& distribution, Random& random) {
  using Shape = LengthDistribution::Shape;
  switch (distribution.shape) {
    case Shape::uniform: {
      const auto span = static_cast<std::uint64_t>(distribution.second - distribution.first) + 1;
      return static_cast<int>(distribution.first) + static_cast<int>(random.below(span));
    }
    case Shape::lognormal: {
      const double sigma2 = std::log1p(distribution.second * distribution.second);
      const double mu = std::log(distribution.first) - sigma2 / 2;
      const double draw = std::exp(mu + std::sqrt(sigma2) * standard_normal(random));
      return static_cast<int>(std::clamp(std::round(draw), 1.0, 1e9));
    }
    case Shape::fixed:
      break;
  }
  return static_cast<int>(distribution.first);
}

void draw_lengths(std::vector<ServeRequest>& requests, const LengthDistribution& input,
                  const LengthDistribution& output, std::uint64_t seed) {
  // A stream apart from the arrivals' (seeded with `seed` itself): the golden-ratio constant splits them.
  Random random(seed ^ 0x9e3779b97f4a7c15ULL);
  for (ServeRequest& request : requests) {
    request.input_tokens = draw_length(input, random);
    request.output_tokens = draw_length(output, random);
  }
}

Result<std::vector<ServeRequest>> parse_request_trace(const std::string& text, const std::string& name) {
  constexpr std::string_view kHeader = "TIMESTAMP,ContextTokens,GeneratedTokens";
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || std::string_view(line).substr(0, kHeader.size()) != kHeader) {
    return row_error(name, 1, "header",
                     "not an LLM request trace: the first line must be \"" + std::string(kHeader) + "\"");
  }
  std::vector<ServeRequest> requests;
  Instant first;
  Instant previous;
  for (int number = 2; std::getline(lines, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string_view> fields;
    std::string_view rest(line);
    for (auto comma = rest.find(','); comma != std::string_view::npos; comma = rest.find(',')) {
      fields.push_back(rest.substr(0, comma));
      rest.remove_prefix(comma + 1);
    }
    fields.push_back(rest);
    if (fields.size() != 3) {
      return row_error(name, number, "",
                       "expected 3 fields (TIMESTAMP,ContextTokens,GeneratedTokens), found " +
                           std::to_string(fields.size()) + " (a truncated row?)");
    }
    const auto instant = parse_instant(fields[0]);
    if (!instant)
      return row_error(name, number, "TIMESTAMP", "not a time: \"" + std::string(fields[0]) + "\"");
    const auto input = parse_count(fields[1]);
    const auto output = parse_count(fields[2]);
    if (!input || *input < 1)
      return row_error(name, number, "ContextTokens", "must be a whole number of at least 1 token");
    if (!output || *output < 1)
      return row_error(name, number, "GeneratedTokens", "must be a whole number of at least 1 token");
    if (requests.empty()) first = *instant;
    if (!requests.empty() && instant->seconds_since(previous) < 0) {
      return row_error(name, number, "TIMESTAMP",
                       "earlier than the row before it: the trace must be in time order");
    }
    previous = *instant;
    requests.push_back({instant->seconds_since(first), *input, *output});
  }
  if (requests.empty()) return row_error(name, 1, "", "the trace holds no request");
  return requests;
}

Result<std::vector<ServeRequest>> read_request_trace(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFailure& failure) {
    return failure.error();
  }
  return parse_request_trace(text, path);
}

}  // namespace gputwin
