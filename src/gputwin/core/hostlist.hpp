// Slurm hostlist expressions: "node-[001-003,7],login1" <-> node-001 node-002 node-003 node-7 login1.
//
//   Result<std::vector<std::string>> hosts = expand_hostlist("gpu[01-16]");   // gpu01 ... gpu16
//   std::string text = compress_hostlist(hosts.value());                     // "gpu[01-16]"
//
// As Slurm reads them: commas outside brackets separate expressions; inside brackets, comma-separated
// numbers and ranges; a range keeps the zero padding of its first number ("[08-10]": 08 09 10); several
// brackets in one expression multiply out, the first varying slowest. Compression keeps the hosts' order,
// puts hosts with the same prefix and padding that follow one another into one bracket and joins
// consecutive numbers into ranges, so expand(compress(hosts)) == hosts for any list without repeats.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"

namespace gputwin {

// Errors (unbalanced brackets, a range running backwards, more than `max_hosts` names) carry no location;
// callers add the file and line the expression came from.
[[nodiscard]] Result<std::vector<std::string>> expand_hostlist(std::string_view expression,
                                                               std::size_t max_hosts = 10'000'000);
[[nodiscard]] std::string compress_hostlist(const std::vector<std::string>& hosts);

}  // namespace gputwin
