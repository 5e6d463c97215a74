// A queue's settings and indexes: queue_create_indexes, queue_drop_indexes,
// queue_set_max_attempts, queue_set_current_version, queue_drop_version.
//
// Fetchq 4 built one pick index per version and orphan/dead indexes whose
// predicates held max_attempts, and meant to rebuild them when those changed
// (it never did). fetchq's indexes (pg/queue_ddl.hpp) cover every version and
// hold no setting, so a setting changes by updating its catalog row alone.
#include <string>

#include <optional>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "pg/args.hpp"
#include "ops/counters/counters.hpp"
#include "ops/documents/dead_letters.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_tables.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "utils/acl.h"
#include "utils/builtins.h"
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
// each push (ops/catalog/catalog_cache.hpp); the invalidation queued here empties
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
// that receives a copy of every document `queue` kills; NULL: none. The
// copies are a delivery on the caller's behalf (ops/documents/dead_letters.hpp): the
// caller must manage `queue` and be allowed to push into the dead-letter
// queue, without row security there; it is recorded as the setter, whose
// rights each copy checks again.
Datum queue_set_dead_letter(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::optional<std::string> dead_letter;
    if (!arg_is_null(fcinfo, 1)) dead_letter = arg_queue(fcinfo, 1, "dead_letter_queue");
    if (dead_letter && *dead_letter == queue)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "a queue cannot be its own dead-letter queue", {},
                          "Create another queue for the documents it kills.");
    spi_connect();
    // A missing queue is told as such before anything about its dead-letter queue.
    if (!OidIsValid(queue_owner_or_invalid(queue))) throw_queue_missing(queue);
    const Oid caller = pg_call([] { return GetUserId(); });
    // Checked for the caller, not for the queue's owner it may act as below.
    if (dead_letter)
        with_queue_privilege(*dead_letter, QueuePrivilege::kPush,
                             [&] { queue_owner_for(*dead_letter, ACL_INSERT, {}); });
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    leave_queue(scope);
    if (dead_letter) dead_letter_receiver(queue, *dead_letter, caller, true);
    SPIPlanPtr plan =
        cached_plan("", "queue_set_dead_letter",
                    [] {
                        return std::string(
                            "UPDATE fetchq.queues SET dead_letter_queue = $2,"
                            " dead_letter_set_by = $3::pg_catalog.regrole WHERE name = $1");
                    },
                    {TEXTOID, TEXTOID, OIDOID});
    Datum values[3] = {to_text(queue), dead_letter ? to_text(*dead_letter) : (Datum)0,
                       ObjectIdGetDatum(caller)};
    const char nulls[3] = {' ', dead_letter ? ' ' : 'n', dead_letter ? ' ' : 'n'};
    uint64_t n = 0;
    // As the catalog's owner, whom the trigger below lets record the caller
    // (the queue's owner, as whom a role with manage acts, may not have the
    // caller's privileges).
    as_catalog_owner([&] { n = spi_execute(plan, values, nulls, false); });
    if (n == 0) throw_queue_missing(queue);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// queues_dead_letter_set_by(): BEFORE INSERT OR UPDATE OF dead_letter_queue,
// dead_letter_set_by row trigger of fetchq.queues. Each copy a dead-letter
// queue receives is checked against the rights of dead_letter_set_by, so a
// plain write of the row (row security lets a role write only the rows of
// queues whose owner's privileges it has) must not record a role with more
// rights than the writer:
// - no dead-letter queue: no setter;
// - the extension's owner (queue_set_dead_letter, after its checks) and the
//   roles with its privileges (a superuser's restore) write what they write;
// - a write that names the setter may name NULL (the queue's owner stands
//   for it) or a role whose privileges the writer has, nobody else (42501);
// - a write that changes the dead-letter queue and names no setter records
//   the writer.
Datum queues_dead_letter_set_by(FunctionCallInfo fcinfo) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "this function is a trigger function", {},
                          "The extension attaches it to fetchq.queues.");
    auto* td = reinterpret_cast<TriggerData*>(fcinfo->context);
    if (!TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
        TRIGGER_FIRED_BY_DELETE(td->tg_event) || TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "queues_dead_letter_set_by() must fire BEFORE INSERT OR UPDATE FOR "
                          "EACH ROW",
                          {}, "The extension attaches it to fetchq.queues.");
    enum class Setter { kKeep, kClear, kWriter, kRefuse };
    struct Written {
        Setter setter = Setter::kKeep;
        Oid named = InvalidOid;
        const char* queue = nullptr;
        HeapTuple tuple = nullptr;
    } w;
    pg_call([&] {
        const bool update = TRIGGER_FIRED_BY_UPDATE(td->tg_event);
        HeapTuple row = update ? td->tg_newtuple : td->tg_trigtuple;
        HeapTuple old = update ? td->tg_trigtuple : nullptr;
        Relation rel = td->tg_relation;
        TupleDesc desc = RelationGetDescr(rel);
        const int name_att = SPI_fnumber(desc, "name");
        const int dlq_att = SPI_fnumber(desc, "dead_letter_queue");
        const int by_att = SPI_fnumber(desc, "dead_letter_set_by");
        w.tuple = row;
        if (name_att <= 0 || dlq_att <= 0 || by_att <= 0) return;
        bool null = false;
        const Datum name = heap_getattr(row, name_att, desc, &null);
        w.queue = null ? "?" : TextDatumGetCString(name);
        bool dlq_null = false, by_null = false;
        const Datum dlq = heap_getattr(row, dlq_att, desc, &dlq_null);
        const Datum by = heap_getattr(row, by_att, desc, &by_null);
        const Oid writer = GetUserId();
        bool old_dlq_null = true, old_by_null = true;
        Datum old_dlq = 0, old_by = 0;
        if (old) {
            old_dlq = heap_getattr(old, dlq_att, desc, &old_dlq_null);
            old_by = heap_getattr(old, by_att, desc, &old_by_null);
        }
        const bool names_setter = !old || old_by_null != by_null ||
                                  (!by_null && DatumGetObjectId(old_by) != DatumGetObjectId(by));
        const bool same_queue = !old_dlq_null && !dlq_null &&
                                strcmp(TextDatumGetCString(old_dlq), TextDatumGetCString(dlq)) == 0;
        Setter setter = Setter::kKeep;
        if (dlq_null)
            setter = by_null ? Setter::kKeep : Setter::kClear;
        else if (has_privs_of_role(writer, rel->rd_rel->relowner))
            setter = Setter::kKeep;
        else if (names_setter)
            setter = by_null || has_privs_of_role(writer, DatumGetObjectId(by)) ? Setter::kKeep
                                                                                : Setter::kRefuse;
        else
            setter = same_queue ? Setter::kKeep : Setter::kWriter;
        w.setter = setter;
        w.named = by_null ? InvalidOid : DatumGetObjectId(by);
        if (setter == Setter::kClear || setter == Setter::kWriter) {
            Datum value = ObjectIdGetDatum(writer);
            bool isnull = setter == Setter::kClear;
            int col = by_att;
            w.tuple = heap_modify_tuple_by_cols(row, desc, 1, &col, &value, &isnull);
        }
    });
    if (w.setter == Setter::kRefuse) {
        const char* role = pg_call([&] { return GetUserNameFromId(w.named, true); });
        const std::string named = role ? role : "with OID " + std::to_string(w.named);
        throw core::Error(
            core::sqlstate::kInsufficientPrivilege,
            "permission denied to record role \"" + named +
                "\" as the setter of the dead-letter queue of queue \"" + std::string(w.queue) +
                "\"",
            "Each copy into a dead-letter queue is checked against the rights of the role that "
            "set it; only a role with the privileges of role \"" +
                named + "\" may name it.",
            "Leave dead_letter_set_by out (a change of dead_letter_queue records the role that "
            "makes it), or call fetchq.queue_set_dead_letter().");
    }
    return PointerGetDatum(w.tuple);
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

// queue_set_counters(queue, mode) -> affected_rows: 'exact' writes the
// queue's counters in each document's transaction, 'deferred' through shared
// memory, folded by the scheduler (ops/counters/deferred.hpp). The update
// locks the queue's catalog row, which a fold of the queue locks too; the
// changes of the queue that shared memory holds are then folded here, in the
// same transaction. A commit that chose its way before the switch took
// effect still counts once: readers add what shared memory holds, whatever
// the queue's mode, and the scheduler folds it.
Datum queue_set_counters(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const std::string mode = arg_text(fcinfo, 1, "mode");
    if (mode != "exact" && mode != "deferred")
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "invalid counters mode " + core::echo(mode),
                          "The mode is 'exact' or 'deferred'.",
                          "'exact' writes the counters in each document's transaction, "
                          "'deferred' lets the scheduler fold them (docs/api.md).");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_set_counters",
        [] { return std::string("UPDATE fetchq.queues SET counters_mode = $2 WHERE name = $1"); },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(queue), to_text(mode)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    if (n == 0) throw_queue_missing(queue);
    counters_fold(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_set_counters, fetchq::sql_api::queue_set_counters)

FETCHQ_SQL_FUNCTION(fetchq_queue_set_retention, fetchq::sql_api::queue_set_retention)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_retry_policy, fetchq::sql_api::queue_set_retry_policy)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_dead_letter, fetchq::sql_api::queue_set_dead_letter)
FETCHQ_SQL_FUNCTION(fetchq_queues_changed, fetchq::sql_api::queues_changed)
FETCHQ_SQL_FUNCTION(fetchq_queues_dead_letter_set_by, fetchq::sql_api::queues_dead_letter_set_by)
FETCHQ_SQL_FUNCTION(fetchq_queue_create_indexes, fetchq::sql_api::queue_create_indexes)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop_indexes, fetchq::sql_api::queue_drop_indexes)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_max_attempts, fetchq::sql_api::queue_set_max_attempts)
FETCHQ_SQL_FUNCTION(fetchq_queue_set_current_version, fetchq::sql_api::queue_set_current_version)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop_version, fetchq::sql_api::queue_drop_version)
