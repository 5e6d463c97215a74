// A queue's settings and indexes: queue_create_indexes, queue_drop_indexes,
// queue_set_max_attempts, queue_set_current_version, queue_drop_version.
//
// Fetchq 4 built one pick index per version and orphan/dead indexes whose
// predicates held max_attempts, and meant to rebuild them when those changed
// (it never did). fetchq's indexes (pg/queue_ddl.hpp) cover every version and
// hold no setting, so a setting changes by updating its catalog row alone.
#include <string>

#include <optional>

#include "core/error.hpp"
#include "pg/args.hpp"
#include "ops/dead_letters.hpp"
#include "ops/queue_access.hpp"
#include "ops/queue_tables.hpp"
#include "ops/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "utils/inval.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// queue_create_indexes(queue) / (queue, version, attempts): creates the
// queue's missing indexes. version and attempts only shaped Fetchq 4's
// per-version, per-max_attempts indexes; ours serve every value, so they are
// checked but unused. was_created: every index is in place.
Datum queue_create_indexes(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    if (PG_NARGS() > 1) {
        arg_int(fcinfo, 1, "version");
        arg_int(fcinfo, 2, "attempts");
    }
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    require_queue_owner(queue);
    create_queue_indexes(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// queue_drop_indexes(queue): drops the queue's indexes (queue_create_indexes
// puts them back). was_dropped: none is left.
Datum queue_drop_indexes(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    require_queue_owner(queue);
    drop_queue_indexes(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// Sets one integer column of the queue's catalog row, then makes sure the
// queue's indexes exist, as Fetchq 4 did after a change; nothing is rebuilt
// since no index depends on the setting. Returns (affected_rows, was_reindexed).
Datum set_queue_int(FunctionCallInfo fcinfo, const std::string& queue, const char* plan_name,
                    const char* column, int32_t value) {
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", plan_name,
        [&] { return std::string("UPDATE fetchq.queues SET ") + column + " = $2 WHERE name = $1"; },
        {TEXTOID, INT4OID});
    Datum values[2] = {to_text(queue), Int32GetDatum(value)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    if (n == 0) throw_queue_missing(queue);
    create_queue_indexes(queue);
    leave_queue(scope);
    spi_finish();
    Datum out[2] = {Int32GetDatum(static_cast<int32_t>(n)), BoolGetDatum(true)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, out, nulls);
}

// queue_set_max_attempts(queue, max_attempts): a document is killed once it
// was picked max_attempts times, so fewer than 1 makes no sense.
Datum queue_set_max_attempts(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const int32_t max_attempts = arg_int(fcinfo, 1, "max_attempts");
    if (max_attempts < 1)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument max_attempts must be at least 1",
                          "The value was " + std::to_string(max_attempts) + ".",
                          "Pass how many times a document may be picked before it is killed.");
    return set_queue_int(fcinfo, queue, "queue_set_max_attempts", "max_attempts", max_attempts);
}

// queue_set_current_version(queue, version): versions are labels; any
// integer, negative ones included, is accepted.
Datum queue_set_current_version(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const int32_t version = arg_int(fcinfo, 1, "version");
    return set_queue_int(fcinfo, queue, "queue_set_current_version", "current_version", version);
}

// queue_drop_version(queue, version): Fetchq 4 dropped the version's pick
// index here. Ours covers all versions, so there is nothing to drop; the
// documents of that version stay. The current version cannot be dropped.
Datum queue_drop_version(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const int32_t version = arg_int(fcinfo, 1, "version");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    SPIPlanPtr plan = cached_plan(
        "", "queue_current_version",
        [] { return std::string("SELECT current_version FROM fetchq.queues WHERE name = $1"); },
        {TEXTOID});
    Datum name = to_text(queue);
    if (spi_execute(plan, &name, nullptr, true, 1) != 1) throw_queue_missing(queue);
    bool current_null = false;
    const int32_t current = DatumGetInt32(spi_value(0, 1, &current_null));
    leave_queue(scope);
    spi_finish();
    if (!current_null && current == version)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "cannot drop version " + std::to_string(version) + " of queue \"" +
                              queue + "\": it is the current version",
                          {},
                          "Switch to another version first with "
                          "fetchq.queue_set_current_version().");
    PG_RETURN_BOOL(true);
}

// queues_changed() and routes_changed(): statement triggers of fetchq.queues
// and fetchq.routes. Every backend caches queue settings and routes read at
// each push (ops/catalog_cache.hpp); the invalidation queued here empties
// those caches when the change commits.
Datum queues_changed(FunctionCallInfo fcinfo) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "this function is a trigger function", {},
                          "The extension attaches it to fetchq.queues and fetchq.routes.");
    const Oid relid =
        RelationGetRelid(reinterpret_cast<TriggerData*>(fcinfo->context)->tg_relation);
    pg_call([&] { CacheInvalidateRelcacheByRelid(relid); });
    return PointerGetDatum(nullptr);
}

// queue_set_dead_letter(queue, dead_letter_queue) -> affected_rows: the queue
// that receives a copy of every document `queue` kills; NULL: none. Whoever
// kills documents of `queue` (its consumers, the scheduler as its owner)
// pushes into the dead-letter queue, so the caller must be allowed to.
Datum queue_set_dead_letter(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::optional<std::string> dead_letter;
    if (!arg_is_null(fcinfo, 1)) dead_letter = arg_queue(fcinfo, 1, "dead_letter_queue");
    if (dead_letter && *dead_letter == queue)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "a queue cannot be its own dead-letter queue", {},
                          "Create another queue for the documents it kills.");
    spi_connect();
    // Checked for the caller, not for the queue's owner it may act as below.
    if (dead_letter) {
        with_queue_privilege(*dead_letter, QueuePrivilege::kPush,
                             [&] { queue_owner_for(*dead_letter, ACL_INSERT, {}); });
        dead_letter_receiver(queue, *dead_letter);  // its copies will be allowed
    }
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_dead_letter",
        [] {
            return std::string("UPDATE fetchq.queues SET dead_letter_queue = $2 WHERE name = $1");
        },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(queue), dead_letter ? to_text(*dead_letter) : (Datum)0};
    const char nulls[2] = {' ', dead_letter ? ' ' : 'n'};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    if (n == 0) throw_queue_missing(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queue_set_retry_policy(queue, delay [, factor, max_delay, jitter]) ->
// affected_rows; delay NULL turns the policy off.
Datum queue_set_retry_policy(FunctionCallInfo fcinfo) {
    using core::Error;
    namespace sqlstate = core::sqlstate;
    std::string queue = arg_queue(fcinfo, 0);
    const bool off = arg_is_null(fcinfo, 1);
    Interval* delay = off ? nullptr : arg_nonnegative_interval(fcinfo, 1, "delay");
    const double factor = arg_is_null(fcinfo, 2) ? 2.0 : PG_GETARG_FLOAT8(2);
    Interval* max_delay =
        arg_is_null(fcinfo, 3) ? nullptr : arg_nonnegative_interval(fcinfo, 3, "max_delay");
    const double jitter = arg_is_null(fcinfo, 4) ? 0.0 : PG_GETARG_FLOAT8(4);
    if (!(factor >= 1.0 && factor <= 100.0))
        throw Error(sqlstate::kInvalidParameterValue, "argument factor must be between 1 and 100",
                    "The value was " + std::to_string(factor) + ".",
                    "1 keeps the delay constant, 2 doubles it at each attempt.");
    if (!(jitter >= 0.0 && jitter <= 1.0))
        throw Error(sqlstate::kInvalidParameterValue, "argument jitter must be between 0 and 1",
                    "The value was " + std::to_string(jitter) + ".",
                    "0.1 spreads each delay by up to 10% either way.");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan =
        cached_plan("", "queue_set_retry_policy",
                    [] {
                        return std::string(
                            "UPDATE fetchq.queues SET retry_delay = $2, retry_factor = $3,"
                            " retry_max_delay = $4, retry_jitter = $5 WHERE name = $1");
                    },
                    {TEXTOID, INTERVALOID, FLOAT8OID, INTERVALOID, FLOAT8OID});
    Datum values[5] = {to_text(queue), off ? (Datum)0 : IntervalPGetDatum(delay),
                       Float8GetDatum(factor), max_delay ? IntervalPGetDatum(max_delay) : (Datum)0,
                       Float8GetDatum(jitter)};
    const char nulls[5] = {' ', off ? 'n' : ' ', off ? 'n' : ' ', max_delay && !off ? ' ' : 'n',
                           off ? 'n' : ' '};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    if (n == 0) throw_queue_missing(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// A retention: NULL keeps the documents forever; otherwise longer than zero.
Interval* arg_retention(FunctionCallInfo fcinfo, int i, const char* name) {
    if (arg_is_null(fcinfo, i)) return nullptr;
    Interval* iv = arg_nonnegative_interval(fcinfo, i, name);
    if (interval_sign(iv) == 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          std::string("argument ") + name + " must be longer than zero", {},
                          "Pass how long to keep them, such as '7 days', or NULL for ever.");
    return iv;
}

// queue_set_retention(queue, completed, killed) -> affected_rows: how long
// completed and killed documents are kept after their last change; NULL:
// forever. The scheduler deletes the older ones.
Datum queue_set_retention(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    Interval* completed = arg_retention(fcinfo, 1, "completed");
    Interval* killed = arg_retention(fcinfo, 2, "killed");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_retention",
        [] {
            return std::string(
                "UPDATE fetchq.queues SET completed_retention = $2, killed_retention = $3"
                " WHERE name = $1");
        },
        {TEXTOID, INTERVALOID, INTERVALOID});
    Datum values[3] = {to_text(queue), completed ? IntervalPGetDatum(completed) : (Datum)0,
                       killed ? IntervalPGetDatum(killed) : (Datum)0};
    const char nulls[3] = {' ', completed ? ' ' : 'n', killed ? ' ' : 'n'};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    if (n == 0) throw_queue_missing(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_set_retention, fetchq::sql_api::queue_set_retention)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_retry_policy, fetchq::sql_api::queue_set_retry_policy)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_dead_letter, fetchq::sql_api::queue_set_dead_letter)
FETCHQ_SQL_FUNCTION(fetchq_queues_changed, fetchq::sql_api::queues_changed)
FETCHQ_SQL_FUNCTION(fetchq_queue_create_indexes, fetchq::sql_api::queue_create_indexes)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop_indexes, fetchq::sql_api::queue_drop_indexes)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_max_attempts, fetchq::sql_api::queue_set_max_attempts)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_current_version, fetchq::sql_api::queue_set_current_version)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop_version, fetchq::sql_api::queue_drop_version)
