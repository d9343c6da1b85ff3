// Wall-clock dates as written by traces and accounting tools, as seconds since 1970-01-01 00:00:00.
//
//   std::optional<std::int64_t> t = parse_timestamp("2026-11-24 05:00:00");        // Helios, Philly
//   std::optional<std::int64_t> u = parse_timestamp("2026-11-24T05:00:00", 'T');   // sacct
//
// The tools write local times with no zone, so only differences matter: counting seconds in that same
// unstated zone is exact between any two times (bar a daylight-saving change between them) and needs no zone
// database.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gputwin {

// "YYYY-MM-DD<separator>HH:MM:SS" exactly; nullopt otherwise, or for a day that does not exist (a 31st of
// April would otherwise silently become the 1st of May).
[[nodiscard]] std::optional<std::int64_t> parse_timestamp(std::string_view text, char separator = ' ');

// A fixed zone as `validate --time-zone` takes it: "UTC" (or "Z") and offsets east of UTC "+01:00",
// "-05:00", "UTC+05:30", as seconds to add to UTC to get the local time; nullopt otherwise (zone names such
// as Europe/Berlin are not read: no zone database). Offsets from -14:00 to +14:00, minutes below 60.
[[nodiscard]] std::optional<int> parse_utc_offset(std::string_view text);

}  // namespace gputwin
