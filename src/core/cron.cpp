#include "core/cron.hpp"

#include <array>
#include <cctype>
#include <vector>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/name_list.hpp"

namespace fetchq::core {

namespace {

constexpr const char* kHint =
    "Write five fields, minute hour day-of-month month day-of-week, such as '*/5 * * * *' or "
    "'30 2 * * mon-fri', or one of @hourly, @daily, @weekly, @monthly, @yearly.";

constexpr std::array<const char*, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<const char*, 7> kWeekdays = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

// One field's rules: its name, its range, the names it accepts (the first
// standing for `first_name`).
struct FieldRules {
    const char* name;
    int low;
    int high;
    const char* const* names = nullptr;
    int name_count = 0;
    int first_name = 0;
};

[[noreturn]] void refuse(std::string_view text, const std::string& detail) {
    throw Error(sqlstate::kInvalidParameterValue, "invalid cron expression " + echo(text), detail,
                kHint);
}

// A number or, where the field has them, a name; -1 when it is neither.
int value_of(std::string_view word, const FieldRules& rules) {
    if (word.empty() || word.size() > 4) return -1;
    bool digits = true;
    for (char c : word) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) return std::stoi(std::string(word));
    const std::string lower = lower_trimmed(word);
    for (int i = 0; i < rules.name_count; ++i)
        if (lower == rules.names[i]) return rules.first_name + i;
    return -1;
}

// Sets the bits of one comma-separated field; returns whether it starts
// with `*`.
bool parse_field(std::string_view expression, std::string_view field, const FieldRules& rules,
                 std::vector<bool>* bits) {
    const std::string where = std::string("field ") + rules.name + " (" +
                              std::to_string(rules.low) + "-" + std::to_string(rules.high) + "): ";
    std::size_t start = 0;
    while (start <= field.size()) {
        std::size_t comma = field.find(',', start);
        if (comma == std::string_view::npos) comma = field.size();
        const std::string_view item = field.substr(start, comma - start);
        start = comma + 1;
        if (item.empty()) refuse(expression, where + "an empty item in " + echo(field) + ".");
        std::string_view range = item;
        int step = 1;
        if (const std::size_t slash = item.find('/'); slash != std::string_view::npos) {
            range = item.substr(0, slash);
            const std::string_view step_text = item.substr(slash + 1);
            step = value_of(step_text, FieldRules{rules.name, 0, 0});
            if (step < 1 || step > rules.high - rules.low + 1)
                refuse(expression, where + "the step " + echo(step_text) +
                                       " is not a number from 1 to " +
                                       std::to_string(rules.high - rules.low + 1) + ".");
        }
        int from = rules.low, to = rules.high;
        if (range != "*") {
            const std::size_t dash = range.find('-');
            const std::string_view first = range.substr(0, dash);
            from = value_of(first, rules);
            if (from < rules.low || from > rules.high)
                refuse(expression, where + echo(first) + " is not a value of the field.");
            if (dash != std::string_view::npos) {
                const std::string_view last = range.substr(dash + 1);
                to = value_of(last, rules);
                if (to < rules.low || to > rules.high)
                    refuse(expression, where + echo(last) + " is not a value of the field.");
                if (to < from)
                    refuse(expression, where + "the range " + echo(range) + " runs backwards.");
            } else if (range.size() == item.size()) {
                to = from;  // a single value
            }               // else "a/n": from a to the field's end
        }
        for (int v = from; v <= to; v += step) (*bits)[static_cast<std::size_t>(v)] = true;
    }
    return !field.empty() && field.front() == '*';
}

std::string_view macro(std::string_view text) {
    const std::string lower = lower_trimmed(text);
    if (lower == "@hourly") return "0 * * * *";
    if (lower == "@daily" || lower == "@midnight") return "0 0 * * *";
    if (lower == "@weekly") return "0 0 * * 0";
    if (lower == "@monthly") return "0 0 1 * *";
    if (lower == "@yearly" || lower == "@annually") return "0 0 1 1 *";
    return {};
}

std::vector<std::string_view> words(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        const std::size_t start = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        if (i > start) out.push_back(text.substr(start, i - start));
    }
    return out;
}

template <std::size_t N>
void copy_bits(const std::vector<bool>& from, std::bitset<N>* to) {
    for (std::size_t i = 0; i < N && i < from.size(); ++i) (*to)[i] = from[i];
}

bool leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

}  // namespace

int days_in_month(int year, int month) {
    static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && leap(year) ? 29 : kDays[month - 1];
}

int day_of_week(int year, int month, int day) {
    static constexpr int kOffsets[12] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
    if (month < 3) year -= 1;
    return (year + year / 4 - year / 100 + year / 400 + kOffsets[month - 1] + day) % 7;
}

CronExpression CronExpression::parse(std::string_view text) {
    std::string_view fields_text = text;
    const std::vector<std::string_view> given = words(text);
    if (given.size() == 1 && given[0].front() == '@') {
        fields_text = macro(given[0]);
        if (fields_text.empty()) refuse(text, "Unknown shorthand " + echo(given[0]) + ".");
    }
    const std::vector<std::string_view> fields = words(fields_text);
    if (fields.size() != 5)
        refuse(text, "It has " + std::to_string(fields.size()) + " fields instead of 5.");
    CronExpression e;
    std::vector<bool> bits;
    const FieldRules rules[5] = {
        {"minute", 0, 59},
        {"hour", 0, 23},
        {"day-of-month", 1, 31},
        {"month", 1, 12, kMonths.data(), 12, 1},
        {"day-of-week", 0, 7, kWeekdays.data(), 7, 0},
    };
    for (int f = 0; f < 5; ++f) {
        bits.assign(static_cast<std::size_t>(rules[f].high) + 1, false);
        const bool star = parse_field(text, fields[f], rules[f], &bits);
        switch (f) {
            case 0:
                copy_bits(bits, &e.minutes_);
                break;
            case 1:
                copy_bits(bits, &e.hours_);
                break;
            case 2:
                copy_bits(bits, &e.days_);
                e.days_star_ = star;
                break;
            case 3:
                copy_bits(bits, &e.months_);
                break;
            case 4:
                if (bits[7]) bits[0] = true;  // 7 is Sunday too
                copy_bits(bits, &e.weekdays_);
                e.weekdays_star_ = star;
                break;
        }
    }
    // Only the day-of-month can make it never fire (30 February), when the
    // day-of-week does not stand beside it.
    if (!e.days_star_ && e.weekdays_star_) {
        bool fires = false;
        for (int m = 1; m <= 12 && !fires; ++m)
            for (int d = 1; m <= 12 && e.months_[m] && d <= days_in_month(2000, m) && !fires; ++d)
                fires = e.days_[d];
        if (!fires) refuse(text, "No month it names has any of the days it names: it never fires.");
    }
    return e;
}

bool CronExpression::day_matches(int year, int month, int day) const {
    const bool dom = days_[day];
    const bool dow = weekdays_[day_of_week(year, month, day)];
    return days_star_ || weekdays_star_ ? dom && dow : dom || dow;
}

bool CronExpression::matches(const CivilMinute& t) const {
    return months_[t.month] && day_matches(t.year, t.month, t.day) && hours_[t.hour] &&
           minutes_[t.minute];
}

std::optional<CivilMinute> CronExpression::next_after(const CivilMinute& after) const {
    CivilMinute t = after;
    auto next_day = [&t] {
        t.hour = 0;
        t.minute = 0;
        if (++t.day > days_in_month(t.year, t.month)) {
            t.day = 1;
            if (++t.month > 12) {
                t.month = 1;
                ++t.year;
            }
        }
    };
    auto next_hour = [&] {
        t.minute = 0;
        if (++t.hour > 23) next_day();
    };
    auto next_minute = [&] {
        if (++t.minute > 59) next_hour();
    };
    next_minute();
    const int last_year = after.year + 8;
    while (t.year <= last_year && t.year <= 9999) {
        if (!months_[t.month]) {
            t.day = days_in_month(t.year, t.month);
            next_day();
        } else if (!day_matches(t.year, t.month, t.day)) {
            next_day();
        } else if (!hours_[t.hour]) {
            next_hour();
        } else if (!minutes_[t.minute]) {
            next_minute();
        } else {
            return t;
        }
    }
    return std::nullopt;
}

}  // namespace fetchq::core
