// How long a queue keeps its logs and metrics: queue_set_logs_retention,
// queue_set_metrics_retention, queue_drop_logs, queue_drop_metrics and the
// generic utils_ts_retain.
//
// A metrics retention is a JSON array of rules {"from", "to", "retain"}: in
// the rows written between now() - from and now() - to, only the latest row
// of each metric per date_trunc(retain, created_at) is kept. For example
// [{"from": "30 days", "to": "1 day", "retain": "hour"}] keeps hourly values
// of last month and every value of the last day.
#include <string>
#include <vector>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "pg/args.hpp"
#include "ops/queue_sql.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::echo;
using core::echo_unquoted;
using core::Error;
namespace sqlstate = core::sqlstate;

constexpr const char* kDefaultLogsRetention = "24h";
constexpr std::size_t kMaxLogsRetentionLength = 25;  // fetchq.queues.logs_retention
constexpr const char* kRetentionHint =
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
    const bool negative = pg_call([&] {
        Interval* zero = static_cast<Interval*>(palloc0(sizeof(Interval)));
        return DatumGetBool(
            DirectFunctionCall2(interval_lt, IntervalPGetDatum(iv), IntervalPGetDatum(zero)));
    });
    if (negative)
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

struct RetentionRule {
    Interval from;
    Interval to;
    std::string retain;
};

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

Datum parse_jsonb(const std::string& text, const char* name) {
    const char* in = text.c_str();
    try {
        return pg_call([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(in)); });
    } catch (const PgError& e) {
        std::string why = e.what();
        // The detail quotes the offending token, of any size.
        if (e.data() && e.data()->detail) why += ": " + echo_unquoted(e.data()->detail);
        throw Error(sqlstate::kInvalidTextRepresentation,
                    std::string("argument ") + name + " is not valid JSON", why, kRetentionHint);
    }
}

// queue_set_logs_retention(queue, retention) -> affected_rows
Datum queue_set_logs_retention(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string retention = arg_text(fcinfo, 1, "retention");
    retention_interval(retention, "for argument retention");
    if (retention.size() > kMaxLogsRetentionLength)
        throw Error(sqlstate::kStringDataRightTruncation,
                    "argument retention is longer than 25 characters", {},
                    "Write the duration in a shorter form, such as '36h' or '7d'.");
    spi_connect();
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_logs_retention",
        [] { return std::string("UPDATE fetchq.queues SET logs_retention = $2 WHERE name = $1"); },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(queue), to_text(retention)};
    const uint64_t n = spi_execute(plan, values, nullptr, false);
    if (n == 0) throw_queue_missing(queue);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_set_default_ttl(queue, ttl text) -> affected_rows: documents pushed
// without an expiry expire ttl after their push; NULL removes the default.
Datum queue_set_default_ttl(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    Interval* ttl = nullptr;
    if (auto text = arg_text_or_null(fcinfo, 1)) ttl = parse_duration_or_throw(*text, "ttl");
    if (ttl != nullptr && (ttl->month < 0 || ttl->day < 0 || ttl->time < 0 ||
                           (ttl->month == 0 && ttl->day == 0 && ttl->time == 0)))
        throw Error(sqlstate::kInvalidParameterValue, "argument ttl must be positive", {},
                    "Pass a duration such as '10m' or '1 day', or NULL for no expiry.");
    spi_connect();
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_default_ttl",
        [] { return std::string("UPDATE fetchq.queues SET default_ttl = $2 WHERE name = $1"); },
        {TEXTOID, INTERVALOID});
    Datum values[2] = {to_text(queue), PointerGetDatum(ttl)};
    const char nulls[2] = {' ', ttl ? ' ' : 'n'};
    const uint64_t n = spi_execute(plan, values, nulls, false);
    if (n == 0) throw_queue_missing(queue);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_set_metrics_retention(queue, retention text) -> affected_rows
Datum queue_set_metrics_retention(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    Datum config = parse_jsonb(arg_text(fcinfo, 1, "retention"), "retention");
    spi_connect();
    require_queue_owner(queue);
    retention_rules(config, "argument retention");
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_metrics_retention",
        [] {
            return std::string("UPDATE fetchq.queues SET metrics_retention = $2 WHERE name = $1");
        },
        {TEXTOID, JSONBOID});
    Datum values[2] = {to_text(queue), config};
    const uint64_t n = spi_execute(plan, values, nullptr, false);
    if (n == 0) throw_queue_missing(queue);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

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

// queue_drop_logs(queue, retention varchar | older_than timestamptz) and
// queue_drop_logs(queue), with the queue's logs_retention (default 24h):
// deletes the log rows written before the cutoff.
Datum queue_drop_logs(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const TimestampTz now = GetCurrentTransactionStartTimestamp();
    TimestampTz cutoff = now;
    const bool by_date = PG_NARGS() > 1 && get_fn_expr_argtype(fcinfo->flinfo, 1) == TIMESTAMPTZOID;
    if (by_date) cutoff = arg_timestamptz(fcinfo, 1, "retention");
    std::string retention =
        PG_NARGS() > 1 && !by_date ? arg_text(fcinfo, 1, "retention") : std::string();
    spi_connect();
    if (PG_NARGS() == 1) {
        retention = queue_setting_is_null(queue, "queue_logs_retention", "logs_retention")
                        ? kDefaultLogsRetention
                        : row_text(0, 1);
    } else {
        require_queue(queue);
    }
    if (!by_date) {
        Interval keep = retention_interval(
            retention, PG_NARGS() == 1 ? "in the logs_retention of queue \"" + queue + "\""
                                       : std::string("for argument retention"));
        cutoff = pg_call([&] {
            return DatumGetTimestampTz(DirectFunctionCall2(
                timestamptz_mi_interval, TimestampTzGetDatum(now), IntervalPGetDatum(&keep)));
        });
    }
    SPIPlanPtr plan =
        queue_plan(queue, "drop_logs",
                   [&] { return "DELETE FROM " + logs_rel(queue) + " WHERE created_at < $1"; },
                   {TIMESTAMPTZOID});
    Datum value = TimestampTzGetDatum(cutoff);
    const uint64_t n = queue_execute(queue, plan, &value, nullptr);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
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

// queue_drop_metrics(queue, config jsonb) and queue_drop_metrics(queue), with
// the queue's metrics_retention -> removed_rows
Datum queue_drop_metrics(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    bool config_null = false;
    Datum config = PG_NARGS() > 1 ? arg_datum(fcinfo, 1, &config_null) : (Datum)0;
    if (PG_NARGS() > 1 && config_null) throw_null_argument("config");
    spi_connect();
    std::vector<RetentionRule> rules;
    if (PG_NARGS() > 1) {
        require_queue(queue);
        rules = retention_rules(config, "argument config");
    } else if (!queue_setting_is_null(queue, "queue_metrics_retention", "metrics_retention")) {
        bool isnull = false;
        Datum stored = spi_value(0, 1, &isnull);
        // Copied: retention_rules replaces SPI_tuptable, and the value with it.
        stored = pg_call([&] { return PointerGetDatum(PG_DETOAST_DATUM_COPY(stored)); });
        rules = retention_rules(stored, "the metrics_retention of queue \"" + queue + "\"");
    }
    const int64_t removed = apply_metrics_retention(queue, rules);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(removed));
}

// The relation named by a user's text, resolved like ::regclass with the
// caller's search_path; only plain tables.
Oid lookup_table(const std::string& table) {
    const char* in = table.c_str();
    Oid relid = InvalidOid;
    try {
        relid = pg_call([&] {
            RangeVar* rv = makeRangeVarFromNameList(stringToQualifiedNameList(in));
            return RangeVarGetRelid(rv, NoLock, true);
        });
    } catch (const PgError& e) {
        // e.what() may quote the whole name (too many dotted names).
        throw Error(sqlstate::kInvalidName, "invalid table name " + echo(table),
                    echo_unquoted(e.what()), "Write a table name, optionally schema-qualified.");
    }
    if (!OidIsValid(relid))
        throw Error(sqlstate::kUndefinedObject, "table " + echo(table) + " does not exist", {},
                    "Check the name and the search_path.");
    const char kind = pg_call([&] { return get_rel_relkind(relid); });
    if (kind != RELKIND_RELATION)
        throw Error(sqlstate::kInvalidParameterValue, echo(table) + " is not a plain table", {},
                    "utils_ts_retain deletes from ordinary tables only.");
    return relid;
}

// schema.table, both quoted.
std::string qualified_name(Oid relid) {
    const char* schema = pg_call([&] { return get_namespace_name(get_rel_namespace(relid)); });
    const char* name = pg_call([&] { return get_rel_name(relid); });
    return quote_ident(schema) + "." + quote_ident(name);
}

// The column must exist and hold a timestamp.
// `table` is its quoted name, for messages.
void check_time_column(Oid relid, const std::string& table, const std::string& field) {
    const char* in = field.c_str();
    const AttrNumber attnum = pg_call([&] { return get_attnum(relid, in); });
    if (attnum <= 0)
        throw Error(sqlstate::kUndefinedObject,
                    "column " + echo(field) + " of table " + table + " does not exist", {},
                    "Pass the exact column name, without quotes.");
    const Oid type = pg_call([&] { return get_atttype(relid, attnum); });
    if (type != TIMESTAMPTZOID && type != TIMESTAMPOID)
        throw Error(sqlstate::kInvalidParameterValue,
                    "column " + echo(field) + " of table " + table + " is not a timestamp", {},
                    "Pass a timestamp with or without time zone column.");
}

// utils_ts_retain(table, field, retain, start, end) -> removed_rows: among
// the rows whose field lies between start and end, keeps only the latest one
// per date_trunc(retain, field).
Datum utils_ts_retain(FunctionCallInfo fcinfo) {
    const std::string table = arg_text(fcinfo, 0, "table_name");
    const std::string field = arg_text(fcinfo, 1, "field_name");
    const std::string retain = arg_text(fcinfo, 2, "retain");
    const TimestampTz start = arg_timestamptz(fcinfo, 3, "interval_start");
    const TimestampTz end = arg_timestamptz(fcinfo, 4, "interval_end");
    const Oid relid = lookup_table(table);
    const std::string rel = qualified_name(relid);
    check_time_column(relid, rel, field);
    check_trunc_unit(retain, "for argument retain");
    const std::string col = quote_ident(field);
    // ctid, not an id column: any table will do.
    const std::string sql = "DELETE FROM " + rel +
                            " WHERE ctid IN (SELECT r.ctid FROM (SELECT ctid, row_number() OVER ("
                            "PARTITION BY date_trunc($1, " +
                            col + ") ORDER BY " + col + " DESC, ctid DESC) AS rn FROM " + rel +
                            " WHERE " + col + " BETWEEN SYMMETRIC $2 AND $3) AS r WHERE r.rn > 1)";
    spi_connect();
    // Keyed by its text: a renamed table or column gets a plan of its own.
    SPIPlanPtr plan = cached_plan("", "ts_retain " + sql, [&] { return sql; },
                                  {TEXTOID, TIMESTAMPTZOID, TIMESTAMPTZOID});
    Datum values[3] = {to_text(retain), TimestampTzGetDatum(start), TimestampTzGetDatum(end)};
    const uint64_t n = spi_execute(plan, values, nullptr, false);
    spi_finish();
    PG_RETURN_INT64(static_cast<int64_t>(n));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_set_default_ttl, fetchq::sql_api::queue_set_default_ttl)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_logs_retention, fetchq::sql_api::queue_set_logs_retention)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_metrics_retention,
                    fetchq::sql_api::queue_set_metrics_retention)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop_logs, fetchq::sql_api::queue_drop_logs)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop_metrics, fetchq::sql_api::queue_drop_metrics)
FETCHQ_SQL_FUNCTION(fetchq_utils_ts_retain, fetchq::sql_api::utils_ts_retain)
