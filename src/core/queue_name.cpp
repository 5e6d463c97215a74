#include "core/queue_name.hpp"

#include "core/echo.hpp"
#include "core/error.hpp"

namespace fetchq::core {

namespace {

// Characters of UTF-8 text: every byte but the continuation bytes.
std::size_t utf8_length(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return n;
}

}  // namespace

std::string queue_name_problem(std::string_view name) {
    if (name.empty()) return "The name is empty.";
    const std::size_t length = utf8_length(name);
    if (length > kMaxQueueNameLength)
        return "The name has " + std::to_string(length) + " characters; at most " +
               std::to_string(kMaxQueueNameLength) + " are allowed.";
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) {
            const auto u = static_cast<unsigned char>(c);
            std::string shown = u >= 0x80                 ? "a non-ASCII character"
                                : (u < 0x20 || u == 0x7f) ? "a control character"
                                                          : "\"" + std::string(1, c) + "\"";
            if (c >= 'A' && c <= 'Z') shown = "the uppercase letter \"" + std::string(1, c) + "\"";
            return "The name contains " + shown + " at position " + std::to_string(i + 1) + ".";
        }
    }
    return {};
}

void check_queue_name(std::string_view name, std::string_view argument) {
    std::string problem = queue_name_problem(name);
    if (problem.empty()) return;
    throw Error(sqlstate::kInvalidName,
                "invalid queue name " + echo(name) + " for argument " + std::string(argument),
                problem,
                "Queue names use only lowercase letters, digits and underscores, 1 to 40 "
                "characters.");
}

std::string docs_table(std::string_view queue) { return std::string(queue) + "__docs"; }
std::string logs_table(std::string_view queue) { return std::string(queue) + "__logs"; }
std::string metrics_table(std::string_view queue) { return std::string(queue) + "__metrics"; }

std::string temporary_queue_name(const unsigned char (&bytes)[kTemporaryNameBytes]) {
    static const char kHex[] = "0123456789abcdef";
    std::string name = "tmp_";
    for (const unsigned char b : bytes) {
        name += kHex[b >> 4];
        name += kHex[b & 0x0f];
    }
    return name;
}

}  // namespace fetchq::core
