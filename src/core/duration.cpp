#include "core/duration.hpp"

#include <array>
#include <cmath>
#include <string>

namespace fetchq::core {
namespace {

enum class Field { kMicros, kDays, kMonths };

struct Unit {
    std::string_view name;
    Field field;
    double factor;  // in micros, days or months
};

constexpr int64_t kSecond = 1000000;

constexpr std::array<Unit, 34> kUnits{{
    {"us", Field::kMicros, 1},
    {"usec", Field::kMicros, 1},
    {"usecs", Field::kMicros, 1},
    {"microsecond", Field::kMicros, 1},
    {"microseconds", Field::kMicros, 1},
    {"ms", Field::kMicros, 1000},
    {"msec", Field::kMicros, 1000},
    {"msecs", Field::kMicros, 1000},
    {"millisecond", Field::kMicros, 1000},
    {"milliseconds", Field::kMicros, 1000},
    {"s", Field::kMicros, kSecond},
    {"sec", Field::kMicros, kSecond},
    {"secs", Field::kMicros, kSecond},
    {"second", Field::kMicros, kSecond},
    {"seconds", Field::kMicros, kSecond},
    {"m", Field::kMicros, 60.0 * kSecond},
    {"min", Field::kMicros, 60.0 * kSecond},
    {"mins", Field::kMicros, 60.0 * kSecond},
    {"minute", Field::kMicros, 60.0 * kSecond},
    {"minutes", Field::kMicros, 60.0 * kSecond},
    {"h", Field::kMicros, 3600.0 * kSecond},
    {"hour", Field::kMicros, 3600.0 * kSecond},
    {"hours", Field::kMicros, 3600.0 * kSecond},
    {"d", Field::kDays, 1},
    {"day", Field::kDays, 1},
    {"days", Field::kDays, 1},
    {"w", Field::kDays, 7},
    {"week", Field::kDays, 7},
    {"weeks", Field::kDays, 7},
    {"mon", Field::kMonths, 1},
    {"month", Field::kMonths, 1},
    {"months", Field::kMonths, 1},
    {"y", Field::kMonths, 12},
    {"years", Field::kMonths, 12},
}};

const Unit* find_unit(std::string_view name) {
    for (const Unit& u : kUnits)
        if (u.name == name) return &u;
    if (name == "year" || name == "yr" || name == "yrs") return &kUnits.back();
    return nullptr;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool is_bare_number(std::string_view text) {
    std::size_t i = 0;
    auto skip_spaces = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    skip_spaces();
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    int digits = 0;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && is_digit(text[i])) ++i, ++digits;
    }
    skip_spaces();
    return digits > 0 && i == text.size();
}

std::optional<Duration> parse_duration(std::string_view text) {
    std::size_t i = 0;
    auto skip_spaces = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    skip_spaces();
    double sign = 1;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
        sign = text[i] == '-' ? -1 : 1;
        ++i;
        skip_spaces();
    }
    double micros = 0, days = 0, months = 0;
    int terms = 0;
    while (true) {
        skip_spaces();
        if (i == text.size()) break;
        const std::size_t num_start = i;
        while (i < text.size() && is_digit(text[i])) ++i;
        if (i < text.size() && text[i] == '.') {
            ++i;
            while (i < text.size() && is_digit(text[i])) ++i;
        }
        if (i == num_start || (i - num_start == 1 && text[num_start] == '.')) return std::nullopt;
        if (i - num_start > 18) return std::nullopt;
        const double number = std::stod(std::string(text.substr(num_start, i - num_start)));
        skip_spaces();
        std::string unit;
        while (i < text.size() && is_alpha(text[i])) unit.push_back(lower(text[i++]));
        const Unit* u = find_unit(unit);
        if (u == nullptr) return std::nullopt;
        switch (u->field) {
            case Field::kMicros:
                micros += number * u->factor;
                break;
            case Field::kDays:
                days += number * u->factor;
                break;
            case Field::kMonths:
                // PostgreSQL rounds a fraction of a year to whole months; only a
                // fraction of a month spills into days.
                months += u->factor == 12 ? std::nearbyint(number * 12) : number;
                break;
        }
        ++terms;
    }
    if (terms == 0) return std::nullopt;
    // Fractions of days and months spill into the smaller field, as PostgreSQL does
    // (with a month of 30 days and a day of 24 hours).
    double whole_months = std::trunc(months);
    days += (months - whole_months) * 30;
    double whole_days = std::trunc(days);
    micros += (days - whole_days) * 86400.0 * kSecond;
    if (std::fabs(whole_months) > 2147483647.0 || std::fabs(whole_days) > 2147483647.0 ||
        std::fabs(micros) > 9.2e18)
        return std::nullopt;
    Duration d;
    d.months = static_cast<int32_t>(sign * whole_months);
    d.days = static_cast<int32_t>(sign * whole_days);
    d.micros = static_cast<int64_t>(std::llround(sign * micros));
    return d;
}

}  // namespace fetchq::core
