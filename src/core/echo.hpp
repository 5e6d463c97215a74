// Caller-supplied values shown in error messages, capped: an argument of any
// size (a 10 MB subject, duration or name) must not come back whole in the
// error, the server log and every client that reads it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fetchq::core {

// Longest value echoed whole, in bytes.
inline constexpr std::size_t kEchoLimit = 64;

// The value in double quotes when it has at most kEchoLimit bytes; otherwise
// its first bytes, cut at a UTF-8 character boundary, then "..." and the total
// size: "aaaa..." (10485760 bytes).
std::string echo(std::string_view value);

// The same without the quotes, for texts not shown quoted (a list of JSON keys,
// a PostgreSQL error detail): aaaa... (10485760 bytes).
std::string echo_unquoted(std::string_view value);

}  // namespace fetchq::core
