// doc_send: the full push, every argument named (ops/documents/doc_send.hpp).
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ops/documents/doc_send.hpp"
#include "ops/queues/queue_access.hpp"
#include "pg/args.hpp"
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

// doc_send(queue, subject, payload, version, priority, next_iteration,
// expires_at, depends_on, reply_to)
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
    const Oid caller = pg_call([] { return GetUserId(); });
    spi_connect();
    int64_t n = 0;
    with_queue_privilege(doc.queue, QueuePrivilege::kPush, [&] { n = send(doc, caller); });
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_send, fetchq::sql_api::doc_send)
