#include "ops/maintenance/retention.hpp"

#include "core/echo.hpp"
#include "core/error.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/args.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
using core::echo;
using core::echo_unquoted;
using core::Error;
namespace sqlstate = core::sqlstate;

const char* const kRetentionHint =
    "Write a JSON array of rules such as [{\"from\": \"30 days\", \"to\": \"1 day\", "
    "\"retain\": \"hour\"}]: from and to are durations, retain is a date_trunc unit.";

// A duration that is not negative ("older than -1h" would mean the future);
// `where` names its origin in errors, e.g. "for argument retention".
Interval retention_interval(const std::string& text, const std::string& where) {
    Interval* iv = nullptr;
    try {
        iv = parse_duration_or_throw(text, "retention");
    } catch (const Error&) {
        throw Error(sqlstate::kInvalidDatetimeFormat,
                    "invalid duration " + echo(text) + " " + where, {},
                    "Write a duration such as '30s', '5m', '24h' or '7 days'.");
    }
    if (interval_sign(iv) < 0)
        throw Error(sqlstate::kInvalidParameterValue,
                    "negative duration " + echo(text) + " " + where, {},
                    "Write how far back to keep, such as '24h' or '7 days'.");
    return *iv;
}

// Raises unless `unit` is one date_trunc accepts for timestamptz.
void check_trunc_unit(const std::string& unit, const std::string& where) {
    const Datum unit_text = to_text(unit);
    try {
        pg_call([&] {
            DirectFunctionCall2(timestamptz_trunc, unit_text,
                                TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()));
        });
    } catch (const PgError&) {
        throw Error(sqlstate::kInvalidParameterValue,
                    "invalid retain unit " + echo(unit) + " " + where, {},
                    "Use a date_trunc unit: microseconds, milliseconds, second, minute, hour, "
                    "day, week, month, quarter, year, decade, century or millennium.");
    }
}

namespace {

// `where` says whose retention it is, e.g. "argument config".
[[noreturn]] void throw_bad_retention(const std::string& where, const std::string& problem) {
    throw Error(sqlstate::kInvalidParameterValue,
                "invalid metrics retention in " + where + ": " + problem, {}, kRetentionHint);
}

// "an object", "a string", ...: a jsonb_typeof name with its article.
std::string a_json(const std::string& type) {
    return (type == "object" || type == "array" ? "an " : "a ") + type;
}

// Column `col` of the current SPI row as a std::string ("" when NULL).
std::string row_text(uint64_t row, int col) {
    const char* s = spi_text(row, col);
    return s ? std::string(s) : std::string();
}

// One string-valued key of a rule; raises when missing or not a string.
std::string rule_string(uint64_t row, int type_col, const char* key, const std::string& rule,
                        const std::string& where) {
    const std::string type = row_text(row, type_col);
    if (type.empty()) throw_bad_retention(where, rule + " has no \"" + key + "\"");
    if (type != "string")
        throw_bad_retention(where,
                            rule + ": \"" + key + "\" is " + a_json(type) + ", not a string");
    return row_text(row, type_col + 1);
}

}  // namespace

// Reads and checks every rule of a retention config (jsonb); runs inside SPI.
std::vector<RetentionRule> retention_rules(Datum config, const std::string& where) {
    SPIPlanPtr kind = cached_plan(
        "", "retention_kind", [] { return std::string("SELECT jsonb_typeof($1)"); }, {JSONBOID});
    spi_execute(kind, &config, nullptr, true);
    const std::string type = row_text(0, 1);
    if (type != "array")
        throw_bad_retention(where, "it is " + a_json(type) + ", not an array of rules");
    SPIPlanPtr elements = cached_plan(
        "", "retention_rules",
        [] {
            return std::string(
                "SELECT e.n, jsonb_typeof(e.v),"
                " jsonb_typeof(e.v -> 'from'), e.v ->> 'from',"
                " jsonb_typeof(e.v -> 'to'), e.v ->> 'to',"
                " jsonb_typeof(e.v -> 'retain'), e.v ->> 'retain',"
                " (SELECT string_agg(k, ', ' ORDER BY k) FROM jsonb_object_keys("
                "   CASE WHEN jsonb_typeof(e.v) = 'object' THEN e.v ELSE '{}' END) AS k"
                "   WHERE k NOT IN ('from', 'to', 'retain'))"
                " FROM jsonb_array_elements($1) WITH ORDINALITY AS e(v, n) ORDER BY e.n");
        },
        {JSONBOID});
    const uint64_t n = spi_execute(elements, &config, nullptr, true);
    std::vector<RetentionRule> rules;
    for (uint64_t row = 0; row < n; ++row) {
        const std::string rule = "rule " + std::to_string(row + 1);
        const std::string element = row_text(row, 2);
        if (element != "object")
            throw_bad_retention(where, rule + " is " + a_json(element) + ", not an object");
        const std::string unknown = row_text(row, 9);
        if (!unknown.empty())
            throw_bad_retention(where, rule + " has unknown keys: " + echo_unquoted(unknown));
        const std::string from = rule_string(row, 3, "from", rule, where);
        const std::string to = rule_string(row, 5, "to", rule, where);
        const std::string retain = rule_string(row, 7, "retain", rule, where);
        const std::string at = "in " + where + ", " + rule;
        RetentionRule r{retention_interval(from, at + " \"from\""),
                        retention_interval(to, at + " \"to\""), retain};
        check_trunc_unit(retain, at);
        rules.push_back(std::move(r));
    }
    return rules;
}

namespace {

// One column of the queue's catalog row; raises when the queue is missing.
// The value is left in SPI_tuptable (row 0, column 1).
bool queue_setting_is_null(const std::string& queue, const char* plan_name, const char* column) {
    SPIPlanPtr plan = cached_plan(
        "", plan_name,
        [&] { return std::string("SELECT ") + column + " FROM fetchq.queues WHERE name = $1"; },
        {TEXTOID});
    Datum name = to_text(queue);
    if (spi_execute(plan, &name, nullptr, true, 1) != 1) throw_queue_missing(queue);
    bool isnull = false;
    spi_value(0, 1, &isnull);
    return isnull;
}

}  // namespace

TimestampTz before(TimestampTz now, Interval keep) {
    return pg_call([&] {
        return DatumGetTimestampTz(DirectFunctionCall2(
            timestamptz_mi_interval, TimestampTzGetDatum(now), IntervalPGetDatum(&keep)));
    });
}

int64_t drop_logs_before(const std::string& queue, TimestampTz cutoff) {
    SPIPlanPtr plan =
        queue_plan(queue, "drop_logs",
                   [&] { return "DELETE FROM " + logs_rel(queue) + " WHERE created_at < $1"; },
                   {TIMESTAMPTZOID});
    Datum value = TimestampTzGetDatum(cutoff);
    return static_cast<int64_t>(queue_execute(queue, plan, &value, nullptr));
}

int64_t drop_logs_by_setting(const std::string& queue) {
    const std::string retention =
        queue_setting_is_null(queue, "queue_logs_retention", "logs_retention")
            ? kDefaultLogsRetention
            : row_text(0, 1);
    const Interval keep =
        retention_interval(retention, "in the logs_retention of queue \"" + queue + "\"");
    return drop_logs_before(queue, before(GetCurrentTransactionStartTimestamp(), keep));
}

// Applies retention rules to the queue's metrics table; returns rows deleted.
int64_t apply_metrics_retention(const std::string& queue, const std::vector<RetentionRule>& rules) {
    SPIPlanPtr plan =
        queue_plan(queue, "drop_metrics",
                   [&] {
                       const std::string table = metrics_rel(queue);
                       return "DELETE FROM " + table +
                              " WHERE id IN (SELECT r.id FROM (SELECT id, row_number() OVER ("
                              "PARTITION BY metric, date_trunc($3, created_at)"
                              " ORDER BY created_at DESC, id DESC) AS rn FROM " +
                              table +
                              " WHERE created_at BETWEEN SYMMETRIC now() - $1 AND now() - $2) AS r"
                              " WHERE r.rn > 1)";
                   },
                   {INTERVALOID, INTERVALOID, TEXTOID});
    int64_t removed = 0;
    for (const RetentionRule& rule : rules) {
        Datum values[3] = {IntervalPGetDatum(&rule.from), IntervalPGetDatum(&rule.to),
                           to_text(rule.retain)};
        removed += static_cast<int64_t>(queue_execute(queue, plan, values, nullptr));
    }
    return removed;
}

int64_t drop_metrics_by_setting(const std::string& queue) {
    if (queue_setting_is_null(queue, "queue_metrics_retention", "metrics_retention")) return 0;
    bool isnull = false;
    Datum stored = spi_value(0, 1, &isnull);
    // Copied: retention_rules replaces SPI_tuptable, and the value with it.
    stored = pg_call([&] { return PointerGetDatum(PG_DETOAST_DATUM_COPY(stored)); });
    return apply_metrics_retention(
        queue, retention_rules(stored, "the metrics_retention of queue \"" + queue + "\""));
}

}  // namespace fetchq::ops
