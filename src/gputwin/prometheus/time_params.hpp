// Times and durations as the Prometheus HTTP API writes them: an evaluation time is RFC 3339
// ("2026-11-26T12:00:00Z", "2026-11-26T13:00:00.5+01:00") or a Unix timestamp in seconds ("1795003200",
// "1795003200.25"); a duration is Prometheus's ("5m", "1h30m", "24h", "7d", "250ms").
//
//   std::optional<double> at = parse_time("2026-11-26T12:00:00Z");   // 1795694400
//   std::optional<double> step = parse_duration("5m");                // 300
//   rfc3339(1795694400);                                              // "2026-11-26T12:00:00Z"
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gputwin::prometheus {

// Seconds since 1970-01-01T00:00:00Z; nullopt for anything else (a date without a zone is not a time).
[[nodiscard]] std::optional<double> parse_time(std::string_view text);
// Seconds, > 0; units ms, s, m, h, d (24 h), w (7 d), y (365 d), largest first, each at most once.
[[nodiscard]] std::optional<double> parse_duration(std::string_view text);
// UTC, with milliseconds only when the time has them.
[[nodiscard]] std::string rfc3339(double seconds);
// The duration in Prometheus's syntax, in milliseconds when not whole seconds: 300 -> "300s", 0.25 ->
// "250ms".
[[nodiscard]] std::string duration_text(double seconds);

}  // namespace gputwin::prometheus
