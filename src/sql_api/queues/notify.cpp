// Notifications: trigger functions that announce changes of the queue
// catalog (channel fetchq_on_change, JSON payload) and document moves
// (channel fetchq__<queue>__<pln|pnd|act|cpl|kll>, payload = subject, or
// empty with fetchq.notify_document_data = off), and
// queue_enable_notify / queue_disable_notify, which attach the latter to a
// queue's documents table.
#include <string>

#include "core/error.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_sql.hpp"
#include "sql_api/function.hpp"
#include "ops/config/settings.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

constexpr const char* kTriggerProtocolViolated = "39P01";
// NOTIFY refuses payloads of this many bytes or more (async.c).
constexpr std::size_t kMaxNotifyPayload = BLCKSZ - NAMEDATALEN - 128;

// ---------------------------------------------------------------- triggers

TriggerData* row_trigger(FunctionCallInfo fcinfo, const char* function) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        throw core::Error(kTriggerProtocolViolated,
                          std::string("fetchq.") + function + "() is a trigger function", {},
                          "Attach it with CREATE TRIGGER ... FOR EACH ROW.");
    auto* td = reinterpret_cast<TriggerData*>(fcinfo->context);
    if (!TRIGGER_FIRED_FOR_ROW(td->tg_event))
        throw core::Error(kTriggerProtocolViolated,
                          std::string("fetchq.") + function + "() must be fired FOR EACH ROW");
    return td;
}

// The row after the event (before it, on DELETE).
HeapTuple new_row(const TriggerData* td) {
    return TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
}

// What a row trigger hands back: that row, so that the functions also behave
// when attached BEFORE.
Datum trigger_result(const TriggerData* td) { return PointerGetDatum(new_row(td)); }

void notify(const std::string& channel, const std::string& payload) {
    const char* c = channel.c_str();
    const char* p = payload.c_str();
    pg_call([&] { Async_Notify(c, p); });
}

std::string row_json(HeapTuple row, TupleDesc desc) {
    const char* json = pg_call([&] {
        Datum record = heap_copy_tuple_as_datum(row, desc);
        return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(row_to_json, record)));
    });
    return json;
}

const char* operation_name(const TriggerData* td) {
    if (TRIGGER_FIRED_BY_INSERT(td->tg_event)) return "INSERT";
    if (TRIGGER_FIRED_BY_UPDATE(td->tg_event)) return "UPDATE";
    return "DELETE";
}

// {"timestamp","operation","schema","table","new_data","old_data"}; without
// the rows (and with "truncated":true) when they would not fit in a NOTIFY.
std::string change_payload(const TriggerData* td, bool with_rows) {
    Relation rel = td->tg_relation;
    const char* timestamp = pg_call([] {
        return DatumGetCString(DirectFunctionCall1(
            timestamptz_out, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp())));
    });
    const char* schema = pg_call([&] { return get_namespace_name(RelationGetNamespace(rel)); });
    std::string new_data = "null", old_data = "null";
    if (with_rows) {
        TupleDesc desc = RelationGetDescr(rel);
        if (TRIGGER_FIRED_BY_INSERT(td->tg_event)) new_data = row_json(td->tg_trigtuple, desc);
        if (TRIGGER_FIRED_BY_UPDATE(td->tg_event)) new_data = row_json(td->tg_newtuple, desc);
        if (!TRIGGER_FIRED_BY_INSERT(td->tg_event)) old_data = row_json(td->tg_trigtuple, desc);
    }
    return "{\"timestamp\":" + json_string(timestamp) +
           ",\"operation\":" + json_string(operation_name(td)) +
           ",\"schema\":" + json_string(schema) +
           ",\"table\":" + json_string(RelationGetRelationName(rel)) + ",\"new_data\":" + new_data +
           ",\"old_data\":" + old_data + (with_rows ? "}" : ",\"truncated\":true}");
}

// trigger_notify_as_json(): any table, any row event.
Datum trigger_notify_as_json(FunctionCallInfo fcinfo) {
    TriggerData* td = row_trigger(fcinfo, "trigger_notify_as_json");
    std::string payload = change_payload(td, true);
    if (payload.size() >= kMaxNotifyPayload) payload = change_payload(td, false);
    notify("fetchq_on_change", payload);
    return trigger_result(td);
}

// 1-based number of `column` in `desc`, which must exist with type `type`.
int column_number(TupleDesc desc, const char* column, Oid type, const char* type_name) {
    const int att = pg_call([&] { return SPI_fnumber(desc, column); });
    if (att <= 0 || TupleDescAttr(desc, att - 1)->atttypid != type)
        throw core::Error(kTriggerProtocolViolated,
                          std::string("fetchq document triggers need a column \"") + column +
                              "\" of type " + type_name,
                          {}, "Attach them only to fetchq_data.<queue>__docs tables.");
    return att;
}

// Channel fetchq__<queue>__<event> for a trigger on fetchq_data.<queue>__docs.
std::string docs_channel(Relation rel, const char* event) {
    std::string base = RelationGetRelationName(rel);
    const std::string suffix = "__docs";
    if (base.size() > suffix.size() &&
        base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0)
        base.resize(base.size() - suffix.size());
    return "fetchq__" + base + "__" + event;
}

void notify_subject(const TriggerData* td, HeapTuple row, const char* event) {
    TupleDesc desc = RelationGetDescr(td->tg_relation);
    const int att = column_number(desc, "subject", VARCHAROID, "varchar");
    // Any role that can connect may LISTEN: with the setting off the channel
    // alone tells which queue and which event.
    const char* subject = nullptr;
    if (ops::settings.notify_document_data)
        subject = pg_call([&] { return SPI_getvalue(row, desc, att); });
    notify(docs_channel(td->tg_relation, event), subject ? subject : "");
}

// trigger_docs_notify_insert(): pln when planned for later, pnd otherwise.
Datum trigger_docs_notify_insert(FunctionCallInfo fcinfo) {
    TriggerData* td = row_trigger(fcinfo, "trigger_docs_notify_insert");
    HeapTuple row = new_row(td);
    TupleDesc desc = RelationGetDescr(td->tg_relation);
    const int att = column_number(desc, "next_iteration", TIMESTAMPTZOID, "timestamptz");
    bool isnull = true;
    Datum next = pg_call([&] { return heap_getattr(row, att, desc, &isnull); });
    const bool planned =
        !isnull && DatumGetTimestampTz(next) > GetCurrentTransactionStartTimestamp();
    notify_subject(td, row, planned ? "pln" : "pnd");
    return trigger_result(td);
}

const char* status_event(int32_t status) {
    switch (status) {
        case 0:
            return "pln";
        case 1:
            return "pnd";
        case 2:
            return "act";
        case 3:
            return "cpl";
        case -1:
            return "kll";
        default:
            return nullptr;
    }
}

// trigger_docs_notify_update(): the channel of the document's new status.
Datum trigger_docs_notify_update(FunctionCallInfo fcinfo) {
    TriggerData* td = row_trigger(fcinfo, "trigger_docs_notify_update");
    HeapTuple row = new_row(td);
    TupleDesc desc = RelationGetDescr(td->tg_relation);
    const int att = column_number(desc, "status", INT4OID, "integer");
    bool isnull = true;
    Datum status = pg_call([&] { return heap_getattr(row, att, desc, &isnull); });
    // Fetchq sent unknown statuses to a "__null" channel nobody listens to.
    const char* event = isnull ? nullptr : status_event(DatumGetInt32(status));
    if (event != nullptr) notify_subject(td, row, event);
    return trigger_result(td);
}

// ------------------------------------------------------- enable / disable

// fetchq__<queue>__trg_notify_<what>, cut to NAMEDATALEN - 1 bytes as the
// parser would (names are ASCII), so no truncation NOTICE is raised.
std::string trigger_name(const std::string& queue, const char* what) {
    std::string name = "fetchq__" + queue + "__trg_notify_" + what;
    if (name.size() >= NAMEDATALEN) name.resize(NAMEDATALEN - 1);
    return name;
}

void run_queue_ddl(const std::string& queue, const std::string& sql) {
    try {
        spi_execute_text(sql);
    } catch (const PgError& e) {
        if (e.sqlerrcode() == ERRCODE_UNDEFINED_TABLE) throw_queue_missing(queue);
        throw;
    }
}

bool trigger_exists(const std::string& queue, const std::string& name) {
    SPIPlanPtr plan =
        cached_plan("", "notify_trigger_exists",
                    [] {
                        return std::string(
                            "SELECT 1 FROM pg_catalog.pg_trigger"
                            " WHERE tgrelid = $1::pg_catalog.regclass AND tgname = $2");
                    },
                    {TEXTOID, NAMEOID});
    const std::string rel = docs_rel(queue);
    const char* tgname = name.c_str();
    Datum values[2] = {to_text(rel), pg_call([&] {
                           return DirectFunctionCall1(namein, CStringGetDatum(tgname));
                       })};
    try {
        return spi_execute(plan, values, nullptr, true, 1) > 0;
    } catch (const PgError& e) {
        if (e.sqlerrcode() == ERRCODE_UNDEFINED_TABLE) throw_queue_missing(queue);
        throw;
    }
}

// Drops the triggers that exist; IF EXISTS only covers a concurrent drop.
void drop_notify_triggers(const std::string& queue) {
    for (const char* what : {"insert", "update"}) {
        const std::string name = trigger_name(queue, what);
        if (trigger_exists(queue, name))
            run_queue_ddl(queue,
                          "DROP TRIGGER IF EXISTS " + quote_ident(name) + " ON " + docs_rel(queue));
    }
}

Datum queue_enable_notify(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    for (const char* what : {"insert", "update"}) {
        const char* event = what[0] == 'i' ? "INSERT" : "UPDATE";
        run_queue_ddl(queue, "CREATE OR REPLACE TRIGGER " + quote_ident(trigger_name(queue, what)) +
                                 " AFTER " + event + " ON " + docs_rel(queue) +
                                 " FOR EACH ROW EXECUTE FUNCTION fetchq.trigger_docs_notify_" +
                                 what + "()");
    }
    leave_queue(scope);
    spi_finish();
    PG_RETURN_BOOL(true);
}

Datum queue_disable_notify(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    require_queue(queue);
    drop_notify_triggers(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_BOOL(true);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_trigger_notify_as_json, fetchq::sql_api::trigger_notify_as_json)
FETCHQ_SQL_FUNCTION(fetchq_trigger_docs_notify_insert, fetchq::sql_api::trigger_docs_notify_insert)
FETCHQ_SQL_FUNCTION(fetchq_trigger_docs_notify_update, fetchq::sql_api::trigger_docs_notify_update)
FETCHQ_SQL_FUNCTION(fetchq_queue_enable_notify, fetchq::sql_api::queue_enable_notify)
FETCHQ_SQL_FUNCTION(fetchq_queue_disable_notify, fetchq::sql_api::queue_disable_notify)
