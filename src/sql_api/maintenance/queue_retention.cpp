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
#include "core/queue_name.hpp"
#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/maintenance/retention.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::echo;
using core::echo_unquoted;
using core::Error;
using core::QueuePrivilege;
namespace sqlstate = core::sqlstate;

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
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_logs_retention",
        [] { return std::string("UPDATE fetchq.queues SET logs_retention = $2 WHERE name = $1"); },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(queue), to_text(retention)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    if (n == 0) throw_queue_missing(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_set_default_ttl(queue, ttl text) -> affected_rows: documents pushed
// without an expiry expire ttl after their push; NULL removes the default.
Datum queue_set_default_ttl(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    Interval* ttl = nullptr;
    if (auto text = arg_text_or_null(fcinfo, 1)) ttl = parse_duration_or_throw(*text, "ttl");
    if (ttl != nullptr && interval_sign(ttl) <= 0)
        throw Error(sqlstate::kInvalidParameterValue, "argument ttl must be positive", {},
                    "Pass a duration such as '10m' or '1 day', or NULL for no expiry.");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_default_ttl",
        [] { return std::string("UPDATE fetchq.queues SET default_ttl = $2 WHERE name = $1"); },
        {TEXTOID, INTERVALOID});
    Datum values[2] = {to_text(queue), PointerGetDatum(ttl)};
    const char nulls[2] = {' ', ttl ? ' ' : 'n'};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    if (n == 0) throw_queue_missing(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_set_metrics_retention(queue, retention text) -> affected_rows
Datum queue_set_metrics_retention(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    Datum config = parse_jsonb(arg_text(fcinfo, 1, "retention"), "retention");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    retention_rules(config, "argument retention");
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_metrics_retention",
        [] {
            return std::string("UPDATE fetchq.queues SET metrics_retention = $2 WHERE name = $1");
        },
        {TEXTOID, JSONBOID});
    Datum values[2] = {to_text(queue), config};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    if (n == 0) throw_queue_missing(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_drop_logs(queue, retention varchar | older_than timestamptz) and
// queue_drop_logs(queue), with the queue's logs_retention (default 24h):
// deletes the log rows written before the cutoff.
Datum queue_drop_logs(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const TimestampTz now = GetCurrentTransactionStartTimestamp();
    const bool by_date = PG_NARGS() > 1 && get_fn_expr_argtype(fcinfo->flinfo, 1) == TIMESTAMPTZOID;
    TimestampTz cutoff = by_date ? arg_timestamptz(fcinfo, 1, "retention") : now;
    const std::string retention =
        PG_NARGS() > 1 && !by_date ? arg_text(fcinfo, 1, "retention") : std::string();
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    int64_t n = 0;
    if (PG_NARGS() > 1) {
        require_queue(queue);
        if (!by_date) cutoff = before(now, retention_interval(retention, "for argument retention"));
    }
    as_queue_owner(
        queue,
        [&] {
            n = PG_NARGS() == 1 ? drop_logs_by_setting(queue) : drop_logs_before(queue, cutoff);
        },
        ACL_DELETE, core::logs_table(queue));
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_drop_metrics(queue, config jsonb) and queue_drop_metrics(queue), with
// the queue's metrics_retention -> removed_rows
Datum queue_drop_metrics(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    bool config_null = false;
    Datum config = PG_NARGS() > 1 ? arg_datum(fcinfo, 1, &config_null) : (Datum)0;
    if (PG_NARGS() > 1 && config_null) throw_null_argument("config");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    int64_t removed = 0;
    std::vector<RetentionRule> rules;
    if (PG_NARGS() > 1) {
        require_queue(queue);
        rules = retention_rules(config, "argument config");
    }
    as_queue_owner(
        queue,
        [&] {
            removed = PG_NARGS() > 1 ? apply_metrics_retention(queue, rules)
                                     : drop_metrics_by_setting(queue);
        },
        ACL_DELETE, core::metrics_table(queue));
    leave_queue(scope);
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
