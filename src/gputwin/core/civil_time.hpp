// Wall-clock dates as written by traces and accounting tools, as seconds since 1970-01-01 00:00:00.
//
//   std::optional<std::int64_t> t = parse_timestamp("2026-11-24 05:00:00");        // Helios, Philly
//   std::optional<std::int64_t> u = parse_timestamp("2026-11-24T05:00:00", 'T');   // sacct
//
// The tools write local times with no zone, so only differences matter: counting seconds in that same unstated
// zone is exact between any two times (bar a daylight-saving change between them) and needs no zone database.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gputwin {

// "YYYY-MM-DD<separator>HH:MM:SS" exactly; nullopt otherwise, or for a day that does not exist (a 31st of
// April would otherwise silently become the 1st of May).
[[nodiscard]] std::optional<std::int64_t> parse_timestamp(std::string_view text, char separator = ' ');

}  // namespace gputwin
