// doc_pick_wait: a pick that waits for documents with no snapshot held. A
// procedure (CALL), because only a procedure called by a top-level CALL may
// commit: when there is nothing to pick, it commits its snapshot away and
// sleeps on the queue's condition variable (ops/shared_memory/pick_wake.hpp) until a
// commit makes a document pickable or the wait runs out.
#include <string>

#include "core/error.hpp"
#include "ops/documents/doc_pick.hpp"
#include "ops/shared_memory/pick_wake.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/shared_memory/shared_state.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "nodes/parsenodes.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// Inside BEGIN ... COMMIT, a function, or a procedure with SET or SECURITY
// DEFINER the call is atomic: it could not commit, and waiting would hold
// a snapshot back for the whole wait.
void require_nonatomic(FunctionCallInfo fcinfo) {
    const auto* call = reinterpret_cast<const Node*>(fcinfo->context);
    const bool atomic =
        call == nullptr || !IsA(call, CallContext) || castNode(CallContext, call)->atomic;
    if (!atomic) return;
    throw core::Error("25001", "fetchq.doc_pick_wait cannot wait inside a transaction block",
                      "While it waits it must hold no snapshot, which only a CALL of its own can "
                      "give up.",
                      "CALL it outside BEGIN ... COMMIT (from a driver: in autocommit mode), "
                      "or from a DO block or procedure that is itself run outside one (a loop "
                      "there may COMMIT between calls), not from a function; or use "
                      "fetchq.doc_pick, which does not wait.");
}

// What called the procedure (a loop over a cursor in a procedure, say) may
// still hold a snapshot after our commit: then waiting would hold back the
// xmin horizon all the same.
void require_no_snapshot() {
    if (!pg_call([] { return HaveRegisteredOrActiveSnapshot(); })) return;
    throw core::Error("25001", "fetchq.doc_pick_wait cannot wait while its caller holds a snapshot",
                      "Waiting would hold back the removal of dead rows in every table.",
                      "CALL it on its own, not inside a query loop.");
}

// The rows of SPI_tuptable as a jsonb array of objects.
Datum rows_as_jsonb(uint64_t n) {
    return pg_call([n] {
        StringInfoData json;
        initStringInfo(&json);
        appendStringInfoChar(&json, '[');
        TupleDesc desc = BlessTupleDesc(SPI_tuptable->tupdesc);
        for (uint64_t i = 0; i < n; ++i) {
            Datum row = heap_copy_tuple_as_datum(SPI_tuptable->vals[i], desc);
            text* object = DatumGetTextPP(DirectFunctionCall1(row_to_json, row));
            if (i > 0) appendStringInfoChar(&json, ',');
            appendBinaryStringInfo(&json, VARDATA_ANY(object), VARSIZE_ANY_EXHDR(object));
        }
        appendStringInfoChar(&json, ']');
        return DirectFunctionCall1(jsonb_in, CStringGetDatum(json.data));
    });
}

// Milliseconds from now to `deadline`, at least 0.
long ms_until(TimestampTz deadline) {
    const TimestampTz now = GetCurrentTimestamp();
    return deadline <= now ? 0 : static_cast<long>((deadline - now + 999) / 1000);
}

TimestampTz deadline_after(const Interval& wait) {
    Interval span = wait;
    return pg_call([&] {
        return DatumGetTimestampTz(DirectFunctionCall2(timestamptz_pl_interval,
                                                       TimestampTzGetDatum(GetCurrentTimestamp()),
                                                       IntervalPGetDatum(&span)));
    });
}

// CALL doc_pick_wait(queue, version, "limit", lock, wait, NULL): what
// doc_pick(queue, version, limit, lock) returns, as a jsonb array; [] when
// nothing became pickable within `wait`.
Datum doc_pick_wait(FunctionCallInfo fcinfo) {
    require_nonatomic(fcinfo);
    const std::string queue = arg_queue(fcinfo, 0);
    const int32_t version = arg_int(fcinfo, 1, "version");
    const int32_t limit = arg_limit(fcinfo, 2, "limit");
    // Copied: the arguments' memory is not the procedure's after a commit.
    Interval lock = *arg_nonnegative_interval(fcinfo, 3, "lock");
    const Interval wait = *arg_nonnegative_interval(fcinfo, 4, "wait");
    if (interval_sign(&lock) == 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument lock must be longer than zero", {},
                          "Pass a positive interval, such as '5 minutes'.");
    if (shared() == nullptr)
        throw core::Error(core::sqlstate::kFeatureNotSupported,
                          "fetchq.doc_pick_wait needs fetchq in shared_preload_libraries",
                          "Waiters are woken through shared memory.",
                          "Add fetchq to shared_preload_libraries and restart the server.");
    const TimestampTz deadline = deadline_after(wait);
    Datum docs = 0;
    spi_connect_nonatomic();
    while (limit > 0) {
        // Read before looking, so that a commit after the look wakes us.
        const uint64_t seen = pick_generation(queue);
        // Checked at each look: a revoke stops the next one. As a procedure
        // that commits, this is neither SECURITY DEFINER nor SET: the switch
        // to the queue's owner is made here, for the pick alone.
        with_queue_privilege(queue, core::QueuePrivilege::kPick, [&] {
            const uint64_t n = pick(queue, version, limit, &lock, false);
            // Into the caller's memory: spi_finish frees the connection's.
            if (n == 0) return;
            const Datum made = rows_as_jsonb(n);
            docs = pg_call([made] { return SPI_datumTransfer(made, false, -1); });
        });
        if (docs != 0) break;
        spi_commit();
        require_no_snapshot();
        const long remaining = ms_until(deadline);
        if (remaining <= 0) break;
        wait_pickable(queue, seen, remaining);
        // The transaction that commit started began before the wait: its
        // now() would not see a document pushed since as due.
        spi_commit();
    }
    spi_finish();
    if (docs == 0)
        docs = pg_call([] { return DirectFunctionCall1(jsonb_in, CStringGetDatum("[]")); });
    Datum values[1] = {docs};
    bool nulls[1] = {false};
    return make_record(fcinfo, values, nulls);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_pick_wait, fetchq::sql_api::doc_pick_wait)
