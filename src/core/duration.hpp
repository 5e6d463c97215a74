// Durations as Fetchq clients write them: "5m", "100ms", "1h30m", "2 days",
// "10 minutes". Parsed here without PostgreSQL; anything this parser does not
// know is handed to PostgreSQL's own interval input by the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fetchq::core {

// The three fields of a PostgreSQL interval.
struct Duration {
    int32_t months = 0;
    int32_t days = 0;
    int64_t micros = 0;

    bool operator==(const Duration& o) const {
        return months == o.months && days == o.days && micros == o.micros;
    }
};

// A sequence of <number><unit> terms, optionally separated by spaces, each
// number an unsigned integer or decimal, with an optional leading sign on the
// whole text. Units: us, ms, s, m, h, d, w, mon, y and their long English
// forms. Returns nullopt when the text is not of this form or overflows.
std::optional<Duration> parse_duration(std::string_view text);

// A number without a unit ("5", " -1.5 "): PostgreSQL's interval input, and
// so Fetchq 4, read it as seconds.
bool is_bare_number(std::string_view text);

}  // namespace fetchq::core
