// fetchq.stats(queue) and fetchq.stats_all() (behind the view fetchq.stats):
// per queue, its documents counted by status, what is ready to pick and
// since when, the first planned moment, and its counters.
#include <string>
#include <vector>

#include "core/counter_columns.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/queues/queue_stats.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// queue, planned, pending, active, completed, killed, ready,
// oldest_ready_age, next_planned_at, then core::kReportedCounters.
constexpr std::size_t kDocColumns = 9;
constexpr std::size_t kColumns = kDocColumns + core::kReportedCounters.size();

// Allocates the queue's text in the current memory context: call it where
// the row is used (before spi_finish for add_row, after it for make_record).
void stats_row(const DocCounts& d, const QueueCounters& c, Datum* values, bool* nulls) {
    for (std::size_t i = 0; i < kColumns; ++i) nulls[i] = false;
    values[0] = to_text(c.queue);
    values[1] = Int64GetDatum(d.planned);
    values[2] = Int64GetDatum(d.pending);
    values[3] = Int64GetDatum(d.active);
    values[4] = Int64GetDatum(d.completed);
    values[5] = Int64GetDatum(d.killed);
    values[6] = Int64GetDatum(d.ready);
    values[7] = Float8GetDatum(d.oldest_ready_age);
    values[8] = d.next_planned_at ? TimestampTzGetDatum(*d.next_planned_at) : (Datum)0;
    nulls[8] = !d.next_planned_at;
    for (std::size_t i = 0; i < core::kReportedCounters.size(); ++i)
        values[kDocColumns + i] = Int64GetDatum(c.values[i]);
}

// The documents are read as the queue's owner once the caller is known to
// have SELECT on them (a superuser's call never runs an owner's code with
// superuser rights); the counters with the caller's own rights.
DocCounts documents_of(const std::string& queue) {
    DocCounts d;
    as_queue_owner(
        queue, [&] { d = count_documents(queue); }, ACL_SELECT);
    return d;
}

// stats(queue) -> one row; 42704 for a queue that does not exist, 42501
// without SELECT on its documents.
Datum stats_one(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    require_queue(queue);
    const DocCounts d = documents_of(queue);
    std::vector<QueueCounters> counters = reported_counters(queue, true);
    leave_queue(scope);
    spi_finish();
    if (counters.empty()) throw_queue_missing(queue);
    Datum values[kColumns];
    bool nulls[kColumns];
    stats_row(d, counters[0], values, nulls);
    return make_record(fcinfo, values, nulls);
}

// stats_all() -> a row per queue the caller may read (queue_listed), by
// name. Everything is read in the calling statement's snapshot.
Datum stats_all(FunctionCallInfo fcinfo) {
    begin_rows(fcinfo);
    spi_connect();
    std::vector<QueueCounters> all;
    as_catalog_owner([&] { all = reported_counters(std::nullopt, true); });
    for (const QueueCounters& c : all) {
        if (!queue_listed(c.queue)) continue;
        DocCounts d;
        as_catalog_owner([&] { d = documents_of(c.queue); });
        Datum values[kColumns];
        bool nulls[kColumns];
        stats_row(d, c, values, nulls);
        add_row(fcinfo, values, nulls);
    }
    spi_finish();
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_stats, fetchq::sql_api::stats_one)
FETCHQ_SQL_FUNCTION(fetchq_stats_all, fetchq::sql_api::stats_all)
