// Document maintenance on demand: mnt_make_pending, mnt_reschedule_orphans,
// mnt_mark_dead, mnt_run and mnt_run_all. The work is the scheduler's task
// code (src/worker/tasks.hpp); these functions parse the arguments, hold the
// SPI connection the tasks expect and shape the result. Each queue is
// maintained as its owner, restricted (pg::as_queue_owner), as the scheduler
// does: a superuser's call never runs an owner's triggers as superuser.
#include <string>
#include <vector>

#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"
#include "ops/maintenance/maintenance.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

using Task = int64_t (*)(std::string_view, int32_t);

// (queue, limit) -> affected_rows
Datum run_task(FunctionCallInfo fcinfo, Task task) {
    std::string queue = arg_queue(fcinfo, 0);
    const int32_t limit = arg_limit(fcinfo, 1, "limit");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    int64_t n = 0;
    as_queue_owner(queue, [&] { n = task(queue, limit); });
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

Datum mnt_make_pending(FunctionCallInfo fcinfo) { return run_task(fcinfo, ops::promote_planned); }

Datum mnt_reschedule_orphans(FunctionCallInfo fcinfo) {
    return run_task(fcinfo, ops::reschedule_orphans);
}

Datum mnt_mark_dead(FunctionCallInfo fcinfo) { return run_task(fcinfo, ops::mark_dead); }

// The counts never exceed the int4 limit they were bounded by.
void counts_to_values(const ops::MaintenanceCounts& c, Datum* values) {
    values[0] = Int32GetDatum(static_cast<int32_t>(c.activated));
    values[1] = Int32GetDatum(static_cast<int32_t>(c.rescheduled));
    values[2] = Int32GetDatum(static_cast<int32_t>(c.killed));
}

// mnt_run(queue, limit) -> (activated_count, rescheduled_count, killed_count)
Datum mnt_run(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    const int32_t limit = arg_limit(fcinfo, 1, "limit");
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    ops::MaintenanceCounts counts;
    as_queue_owner(queue, [&] { counts = ops::maintain_queue(queue, limit); });
    leave_queue(scope);
    spi_finish();
    Datum values[3];
    bool nulls[3] = {false, false, false};
    counts_to_values(counts, values);
    return make_record(fcinfo, values, nulls);
}

// mnt_run_all(limit) -> one row per queue, in name order.
Datum mnt_run_all(FunctionCallInfo fcinfo) {
    const int32_t limit = arg_limit(fcinfo, 0, "limit");
    begin_rows(fcinfo);
    spi_connect();
    for (const std::string& queue : all_queue_names()) {
        ops::MaintenanceCounts counts;
        // A queue with grants of its own: only with manage on it (then as its
        // owner); the others' tables decide, as before.
        if (queue_has_grants(queue) && !queue_privilege_held(queue, QueuePrivilege::kManage,
                                                             pg_call([] { return GetUserId(); })))
            continue;
        with_queue_privilege(queue, QueuePrivilege::kManage, [&] {
            as_queue_owner(queue, [&] { counts = ops::maintain_queue(queue, limit); });
        });
        Datum values[4];
        bool nulls[4] = {false, false, false, false};
        values[0] = to_text(queue);
        counts_to_values(counts, values + 1);
        add_row(fcinfo, values, nulls);
    }
    spi_finish();
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_mnt_make_pending, fetchq::sql_api::mnt_make_pending)
FETCHQ_SQL_FUNCTION(fetchq_mnt_reschedule_orphans, fetchq::sql_api::mnt_reschedule_orphans)
FETCHQ_SQL_FUNCTION(fetchq_mnt_mark_dead, fetchq::sql_api::mnt_mark_dead)
FETCHQ_SQL_FUNCTION(fetchq_mnt_run, fetchq::sql_api::mnt_run)
FETCHQ_SQL_FUNCTION(fetchq_mnt_run_all, fetchq::sql_api::mnt_run_all)
