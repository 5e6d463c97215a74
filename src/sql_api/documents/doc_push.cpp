// Putting documents into a queue: doc_push (one, or a Fetchq 4 tuple list),
// doc_push_many, doc_append (generated subject) and doc_upsert.
#include <optional>
#include <vector>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/tuple_text.hpp"
#include "ops/queues/queue_access.hpp"
#include "pg/args.hpp"
#include "ops/counters/counters.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/queues/queue_defaults.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/shared_memory/wake.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/documents/doc_moves.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

Datum queued_docs_result(FunctionCallInfo fcinfo, int64_t n) {
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

Datum empty_jsonb() {
    return pg_call([] { return DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")); });
}

// doc_push(queue, subject [, version, priority, next_iteration] [, payload])
// in Fetchq 4's argument orders; see fetchq--*.sql for each overload.
Datum doc_push(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    int32_t version = 0, priority = 0;
    TimestampTz next_iteration = GetCurrentTransactionStartTimestamp();
    Datum payload;
    bool payload_null = false;
    TimestampTz expires_at = 0;
    bool has_expiry = false;
    switch (PG_NARGS()) {
        case 2:  // (queue, subject)
            payload = empty_jsonb();
            break;
        case 3:  // (queue, subject, payload)
            payload = arg_fetchq4_json(fcinfo, 2, &payload_null);
            break;
        case 4:  // (queue, subject, payload, next_iteration)
            payload = arg_fetchq4_json(fcinfo, 2, &payload_null);
            next_iteration = arg_timestamptz(fcinfo, 3, "next_iteration");
            break;
        default:  // (queue, subject, version, priority, next_iteration, payload [, expires_at])
            version = arg_int(fcinfo, 2, "version");
            priority = arg_int(fcinfo, 3, "priority");
            next_iteration = arg_timestamptz(fcinfo, 4, "next_iteration");
            payload = arg_fetchq4_json(fcinfo, 5, &payload_null);
            if (PG_NARGS() > 6 && !arg_is_null(fcinfo, 6)) {
                expires_at = PG_GETARG_TIMESTAMPTZ(6);
                has_expiry = true;
            }
            break;
    }
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPush, [&] {
        n = push_one(queue, subject, version, priority, next_iteration, payload, payload_null,
                     has_expiry ? Expiry::given(expires_at) : Expiry::queue_default());
    });
    spi_finish();
    return queued_docs_result(fcinfo, n);
}

// Arrays for push_batch from parsed tuples.
struct BatchArrays {
    Datum subjects, priorities, payloads;
};

BatchArrays arrays_from_tuples(const std::vector<core::TupleDoc>& docs) {
    const int n = static_cast<int>(docs.size());
    Datum* subjects = pg_call([&] { return static_cast<Datum*>(palloc(sizeof(Datum) * n)); });
    Datum* priorities = pg_call([&] { return static_cast<Datum*>(palloc(sizeof(Datum) * n)); });
    Datum* payloads = pg_call([&] { return static_cast<Datum*>(palloc(sizeof(Datum) * n)); });
    bool* payload_nulls = pg_call([&] { return static_cast<bool*>(palloc0(sizeof(bool) * n)); });
    for (int i = 0; i < n; ++i) {
        check_subject(docs[i].subject);
        subjects[i] = to_text(docs[i].subject);
        priorities[i] = Int32GetDatum(docs[i].priority);
        if (docs[i].payload) {
            const char* json = docs[i].payload->c_str();
            try {
                payloads[i] =
                    pg_call([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(json)); });
            } catch (const PgError& e) {
                throw core::Error(core::sqlstate::kInvalidTextRepresentation,
                                  "malformed document list for argument data",
                                  "The payload of document " + std::to_string(i + 1) + " (" +
                                      core::echo(docs[i].subject) +
                                      ") is not valid JSON: " + e.what(),
                                  "Write each payload as a JSON text in single quotes.");
            }
        } else {
            payload_nulls[i] = true;
            payloads[i] = 0;
        }
    }
    BatchArrays out;
    pg_call([&] {
        int dims[1] = {n};
        int lbs[1] = {1};
        out.subjects =
            PointerGetDatum(construct_array(subjects, n, TEXTOID, -1, false, TYPALIGN_INT));
        out.priorities =
            PointerGetDatum(construct_array(priorities, n, INT4OID, 4, true, TYPALIGN_INT));
        out.payloads = PointerGetDatum(construct_md_array(payloads, payload_nulls, 1, dims, lbs,
                                                          JSONBOID, -1, false, TYPALIGN_INT));
    });
    return out;
}

// doc_push(queue, version, next_iteration, data): Fetchq 4's bulk form.
Datum doc_push_tuples(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    int32_t version = arg_int(fcinfo, 1, "version");
    TimestampTz next_iteration = arg_timestamptz(fcinfo, 2, "next_iteration");
    std::string data = arg_text(fcinfo, 3, "data");
    std::vector<core::TupleDoc> docs = core::parse_tuple_text(data);
    BatchArrays arrays = arrays_from_tuples(docs);
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(queue, QueuePrivilege::kPush, [&] {
        n = push_batch(queue, arrays.subjects, arrays.priorities, arrays.payloads, version,
                       next_iteration);
    });
    spi_finish();
    return queued_docs_result(fcinfo, n);
}

// doc_push_many(queue, subjects[], payloads[], next_iteration, version, priority)
Datum doc_push_many(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    if (arg_is_null(fcinfo, 1)) PG_RETURN_INT32(0);
    ArrayType* subjects = pg_call([&] { return PG_GETARG_ARRAYTYPE_P(1); });
    const int n = pg_call([&] { return ArrayGetNItems(ARR_NDIM(subjects), ARR_DIMS(subjects)); });
    if (n == 0) PG_RETURN_INT32(0);
    if (pg_call([&] { return array_contains_nulls(subjects); }))
        throw core::Error(core::sqlstate::kNullValueNotAllowed,
                          "argument subjects must not contain null elements", {},
                          "Give every document a subject.");
    check_subjects(subjects);
    Datum payloads;
    if (arg_is_null(fcinfo, 2)) {
        payloads = pg_call([&] {
            Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * n));
            Datum empty = DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"));
            for (int i = 0; i < n; ++i) elems[i] = empty;
            return PointerGetDatum(construct_array(elems, n, JSONBOID, -1, false, TYPALIGN_INT));
        });
    } else {
        ArrayType* p = pg_call([&] { return PG_GETARG_ARRAYTYPE_P(2); });
        const int np = pg_call([&] { return ArrayGetNItems(ARR_NDIM(p), ARR_DIMS(p)); });
        if (np != n)
            throw core::Error(core::sqlstate::kInvalidParameterValue,
                              "arguments subjects and payloads must have the same length",
                              "subjects has " + std::to_string(n) + " elements, payloads " +
                                  std::to_string(np) + ".",
                              "Pass one payload per subject, or NULL for empty payloads.");
        payloads = PointerGetDatum(p);
    }
    TimestampTz next_iteration =
        arg_is_null(fcinfo, 3) ? GetCurrentTransactionStartTimestamp() : PG_GETARG_TIMESTAMPTZ(3);
    int32_t version = arg_is_null(fcinfo, 4) ? 0 : PG_GETARG_INT32(4);
    int32_t priority = arg_is_null(fcinfo, 5) ? 0 : PG_GETARG_INT32(5);
    Datum priorities = pg_call([&] {
        Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * n));
        for (int i = 0; i < n; ++i) elems[i] = Int32GetDatum(priority);
        return PointerGetDatum(construct_array(elems, n, INT4OID, 4, true, TYPALIGN_INT));
    });
    spi_connect();
    int64_t count = 0;
    with_queue_privilege(queue, QueuePrivilege::kPush, [&] {
        count = push_batch(queue, PointerGetDatum(subjects), priorities, payloads, version,
                           next_iteration);
    });
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(count));
}

// doc_append(queue, payload [, version, priority]): a pending document with a
// random UUID subject; returns the subject.
Datum doc_append(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    bool payload_null = false;
    Datum payload = arg_fetchq4_json(fcinfo, 1, &payload_null);
    int32_t version = PG_NARGS() > 2 ? arg_int(fcinfo, 2, "version") : 0;
    int32_t priority = PG_NARGS() > 3 ? arg_int(fcinfo, 3, "priority") : 0;
    const char* uuid = pg_call([] {
        Datum u = DirectFunctionCall1(gen_random_uuid, (Datum)0);
        return DatumGetCString(DirectFunctionCall1(uuid_out, u));
    });
    spi_connect();
    with_queue_privilege(queue, QueuePrivilege::kPush, [&] {
        push_one(queue, uuid, version, priority, GetCurrentTransactionStartTimestamp(), payload,
                 payload_null);
    });
    spi_finish();
    return to_text(uuid);
}

// doc_upsert: push, or else update priority, payload and next_iteration of a
// document that is not active (which needs pick, or UPDATE on the documents).
Datum doc_upsert(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    std::string subject = arg_text(fcinfo, 1, "subject");
    int32_t version = arg_int(fcinfo, 2, "version");
    int32_t priority = arg_int(fcinfo, 3, "priority");
    TimestampTz next_iteration = arg_timestamptz(fcinfo, 4, "next_iteration");
    bool payload_null = false;
    Datum payload = arg_fetchq4_json(fcinfo, 5, &payload_null);
    // The caller's rights decide whether it may change an existing document
    // (inside, a granted call runs as the queue's owner).
    const Oid caller = pg_call([] { return GetUserId(); });
    spi_connect();
    Upserted done;
    with_queue_privilege(queue, QueuePrivilege::kPush, [&] {
        done = upsert_one(queue, subject, version, priority, next_iteration, payload, payload_null,
                          caller);
    });
    spi_finish();
    Datum values[2] = {Int32GetDatum(static_cast<int32_t>(done.queued)),
                       Int32GetDatum(static_cast<int32_t>(done.updated))};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_push, fetchq::sql_api::doc_push)
FETCHQ_SQL_FUNCTION(fetchq_doc_push_tuples, fetchq::sql_api::doc_push_tuples)
FETCHQ_SQL_FUNCTION(fetchq_doc_push_many, fetchq::sql_api::doc_push_many)
FETCHQ_SQL_FUNCTION(fetchq_doc_append, fetchq::sql_api::doc_append)
FETCHQ_SQL_FUNCTION(fetchq_doc_upsert, fetchq::sql_api::doc_upsert)
