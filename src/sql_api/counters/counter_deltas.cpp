// counter_deltas(): the changes of deferred queues that shared memory holds
// and the rows of fetchq.counters the caller's snapshot sees do not yet hold
// (ops/counters/deferred.hpp). The view fetchq.metrics adds them as rows of
// stripe -1, so every reader of counters counts them. A function in a view
// runs with the rights of the role that queries the view: it shows them to
// the roles that may read fetchq.metrics, and to no other.
#include <optional>
#include <string>

#include "core/counter_columns.hpp"
#include "core/error.hpp"
#include "ops/counters/deferred.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// counter_deltas() -> TABLE(queue, metric, value, updated_at), in the
// snapshot of the statement that calls it.
Datum counter_deltas(FunctionCallInfo fcinfo) {
    const bool allowed = pg_call([] {
        const Oid schema = get_namespace_oid("fetchq", true);
        const Oid view = OidIsValid(schema) ? get_relname_relid("metrics", schema) : InvalidOid;
        return OidIsValid(view) && pg_class_aclcheck(view, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
    });
    if (!allowed)
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "permission denied for function counter_deltas",
                          "It shows what the view fetchq.metrics shows.",
                          "Read the counters with fetchq.metric_get(), or get SELECT on "
                          "fetchq.metrics.");
    begin_rows(fcinfo);
    if (!deferred_available()) return (Datum)0;
    const Snapshot snapshot = pg_call(
        [] { return ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(); });
    for (const UnfoldedRow& row : deferred_unfolded(snapshot, std::nullopt)) {
        for (std::size_t i = 0; i < core::kCounterColumns.size(); ++i) {
            if (!(row.mask & (1u << i))) continue;
            Datum values[4];
            bool nulls[4] = {false, false, false, row.updated_at == 0};
            values[0] = to_text(row.queue);
            values[1] = to_text(core::kCounterColumns[i]);
            values[2] = Int64GetDatum(row.values[i]);
            values[3] = TimestampTzGetDatum(row.updated_at);
            add_row(fcinfo, values, nulls);
        }
    }
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_counter_deltas, fetchq::sql_api::counter_deltas)
