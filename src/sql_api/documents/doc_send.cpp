// doc_send: the full push, every argument named (ops/documents/doc_send.hpp).
#include <optional>
#include <string>
#include <vector>

#include "core/doc_status.hpp"
#include "core/echo.hpp"
#include "core/error.hpp"
#include "ops/documents/doc_outcome.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/documents/doc_reply.hpp"
#include "ops/documents/doc_send.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/queues/queue_access.hpp"
#include "pg/args.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "funcapi.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// One attribute of a fetchq.doc_ref, as text; NULL is an error naming the
// element.
std::string ref_field(HeapTupleHeader ref, int attno, const char* field, int element) {
    bool isnull = false;
    const Datum d = pg_call([&] { return GetAttributeByNum(ref, attno, &isnull); });
    if (isnull)
        throw core::Error(core::sqlstate::kNullValueNotAllowed,
                          "argument depends_on must not contain a NULL " + std::string(field),
                          "Element " + std::to_string(element) + " has none.",
                          "Name each document by its queue and subject: "
                          "ARRAY[('queue', 'subject')]::fetchq.doc_ref[].");
    return pg_call([&] { return std::string(TextDatumGetCString(d)); });
}

// depends_on: a fetchq.doc_ref[]; NULL or empty: none.
std::vector<DocRef> arg_refs(FunctionCallInfo fcinfo, int i) {
    std::vector<DocRef> refs;
    if (arg_is_null(fcinfo, i)) return refs;
    Datum* elems = nullptr;
    bool* nulls = nullptr;
    int n = 0;
    pg_call([&] {
        ArrayType* a = PG_GETARG_ARRAYTYPE_P(i);
        int16 len;
        bool byval;
        char align;
        get_typlenbyvalalign(ARR_ELEMTYPE(a), &len, &byval, &align);
        deconstruct_array(a, ARR_ELEMTYPE(a), len, byval, align, &elems, &nulls, &n);
    });
    for (int k = 0; k < n; ++k) {
        if (nulls[k])
            throw core::Error(core::sqlstate::kNullValueNotAllowed,
                              "argument depends_on must not contain null elements",
                              "Element " + std::to_string(k + 1) + " is NULL.",
                              "Name each document by its queue and subject.");
        const Datum elem = elems[k];
        HeapTupleHeader ref = pg_call([&] { return DatumGetHeapTupleHeader(elem); });
        DocRef r;
        r.queue = ref_field(ref, 1, "queue", k + 1);
        r.subject = ref_field(ref, 2, "subject", k + 1);
        refs.push_back(std::move(r));
    }
    return refs;
}

// if_finished: 'skip' (a finished document is left alone) or 'requeue'.
bool arg_requeue(FunctionCallInfo fcinfo, int i) {
    const std::string value = arg_text(fcinfo, i, "if_finished");
    if (value == "skip") return false;
    if (value == "requeue") return true;
    throw core::Error(core::sqlstate::kInvalidParameterValue,
                      "invalid value for argument if_finished: " + core::echo(value),
                      "if_finished says what happens to a completed or killed document of the "
                      "same subject.",
                      "Use 'skip' (leave it, as doc_push does) or 'requeue' (run it again).");
}

// flow_key: NULL (none) or a key that is not empty.
std::optional<std::string> arg_flow_key(FunctionCallInfo fcinfo, int i) {
    if (PG_NARGS() <= i || arg_is_null(fcinfo, i)) return std::nullopt;
    std::string key = arg_text(fcinfo, i, "flow_key");
    if (key.empty())
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument flow_key must not be empty", {},
                          "Pass NULL for a document that no key limit applies to.");
    return key;
}

// doc_send(queue, subject, payload, version, priority, next_iteration,
// expires_at, depends_on, reply_to, if_finished, flow_key)
Datum doc_send(FunctionCallInfo fcinfo) {
    SendDoc doc;
    doc.queue = arg_queue(fcinfo, 0);
    doc.subject = arg_text(fcinfo, 1, "subject");
    doc.payload = arg_datum(fcinfo, 2, &doc.payload_null);
    doc.version = arg_int(fcinfo, 3, "version");
    doc.priority = arg_int(fcinfo, 4, "priority");
    doc.next_iteration = arg_timestamptz(fcinfo, 5, "next_iteration");
    if (!arg_is_null(fcinfo, 6)) doc.expires_at = PG_GETARG_TIMESTAMPTZ(6);
    doc.depends_on = arg_refs(fcinfo, 7);
    if (!arg_is_null(fcinfo, 8)) doc.reply_to = arg_queue(fcinfo, 8, "reply_to");
    doc.requeue_finished = arg_requeue(fcinfo, 9);
    doc.flow_key = arg_flow_key(fcinfo, 10);
    const Oid caller = pg_call([] { return GetUserId(); });
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(doc.queue, QueuePrivilege::kPush, [&] { n = send(doc, caller); });
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

std::string request_name(const std::string& queue, const std::string& subject) {
    return "request " + core::echo(subject) + " of queue \"" + queue + "\"";
}

// doc_reply(queue, subject, payload): the answer into the request's reply
// queue, under its subject, with the caller's rights there (push); then the
// request completed (pick on its queue). One transaction: any refusal
// leaves both as they were.
Datum doc_reply(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const std::string subject = arg_text(fcinfo, 1, "subject");
    bool payload_null = false;
    const Datum payload = arg_datum(fcinfo, 2, &payload_null);
    spi_connect();
    bool found = false;
    Request request;
    with_queue_privilege(queue, QueuePrivilege::kPick,
                         [&] { found = lock_request(queue, subject, &request); });
    const int64_t status = request.status;
    const TimestampTz created_at = request.created_at;
    if (!found)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          request_name(queue, subject) + " does not exist", {},
                          "Reply to a request you picked or took.");
    if (status != core::status_code(core::DocStatus::kActive))
        throw core::Error(core::sqlstate::kObjectNotInPrerequisiteState,
                          request_name(queue, subject) + " is not active",
                          "Its status is " + std::to_string(status) + "; nothing was replied.",
                          "Pick or take it first (fetchq.doc_pick, fetchq.doc_take).");
    const std::optional<std::string> reply_to = reply_to_of(queue, subject, created_at);
    if (!reply_to)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          request_name(queue, subject) + " has no reply_to",
                          "It was not sent with fetchq.doc_send(..., reply_to => ...); nothing "
                          "was replied or completed.",
                          "Complete it with fetchq.doc_complete, or push the answer yourself.");
    if (!OidIsValid(queue_owner_or_invalid(*reply_to)))
        throw core::Error(core::sqlstate::kUndefinedObject,
                          "reply queue \"" + *reply_to + "\" of " + request_name(queue, subject) +
                              " no longer exists",
                          "The requester's queue is gone (a temporary queue is dropped with its "
                          "session); nothing was replied or completed.",
                          "Complete or kill the request with fetchq.doc_complete or "
                          "fetchq.doc_kill.");
    int64_t replied = 0;
    with_queue_privilege(*reply_to, QueuePrivilege::kPush, [&] {
        replied = push_one(*reply_to, subject, 0, 0, GetCurrentTransactionStartTimestamp(), payload,
                           payload_null, Expiry::queue_default());
    });
    if (replied == 0)
        throw core::Error("23505",
                          "a reply to " + request_name(queue, subject) + " is already in queue \"" +
                              *reply_to + "\"",
                          "Nothing was replied or completed.", {});
    int64_t completed = 0;
    with_queue_privilege(queue, QueuePrivilege::kPick,
                         [&] { completed = complete(queue, subject, 0, true, std::nullopt); });
    if (completed == 0)
        throw core::Error(core::sqlstate::kObjectNotInPrerequisiteState,
                          request_name(queue, subject) + " is no longer active",
                          "Nothing was replied or completed.", {});
    forget_reply_to(queue, subject);
    spi_finish();
    PG_RETURN_INT32(1);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_send, fetchq::sql_api::doc_send)
FETCHQ_SQL_FUNCTION(fetchq_doc_reply, fetchq::sql_api::doc_reply)
