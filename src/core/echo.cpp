#include "core/echo.hpp"

namespace fetchq::core {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// `quote` around the value, or around its capped head with the size after.
std::string capped(std::string_view value, std::string_view quote) {
    std::string out(quote);
    if (value.size() <= kEchoLimit) {
        out.append(value);
        out.append(quote);
        return out;
    }
    // Back off to the first byte of the character at the cut, so the message
    // stays valid UTF-8.
    std::size_t n = kEchoLimit;
    while (n > 0 && is_continuation(value[n])) --n;
    out.append(value.substr(0, n));
    out.append("...");
    out.append(quote);
    out.append(" (" + std::to_string(value.size()) + " bytes)");
    return out;
}

}  // namespace

std::string echo(std::string_view value) { return capped(value, "\""); }

std::string echo_unquoted(std::string_view value) { return capped(value, ""); }

}  // namespace fetchq::core
