#include "ops/queues/queue_stats.hpp"

#include <string>

#include "ops/queues/doc_status_sql.hpp"
#include "ops/queues/queue_sql.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

// One pass, every figure a FILTER of it: the planned, pending and active
// counts include documents with a lock_upgrade, which no partial index
// covers, so the table is read anyway, and the completed and killed counts
// come with the same pass instead of a probe each. The promotion skips
// planned documents with a lock_upgrade, so they never become due; nor does
// a document waiting on others (next_iteration 'infinity',
// ops/documents/doc_dependencies.hpp) by itself.
std::string count_sql(std::string_view queue) {
    using namespace status_sql;
    return "SELECT count(*) FILTER (WHERE status = " + planned +
           "), count(*) FILTER (WHERE status = " + pending +
           "), count(*) FILTER (WHERE status = " + active +
           "), count(*) FILTER (WHERE status = " + completed +
           "), count(*) FILTER (WHERE status = " + killed + "), count(*) FILTER (WHERE " + ready +
           "), COALESCE(EXTRACT(EPOCH FROM now() - min(next_iteration) FILTER (WHERE " + ready +
           ")), 0)::float8, min(next_iteration) FILTER (WHERE status = " + planned +
           " AND lock_upgrade IS NULL AND next_iteration < 'infinity'::timestamptz), count(*)"
           " FROM " +
           docs_rel(queue);
}

}  // namespace

DocCounts count_documents(std::string_view queue, bool read_only) {
    SPIPlanPtr plan = queue_plan(queue, "stats_count", [&] { return count_sql(queue); }, {});
    queue_execute(queue, plan, nullptr, nullptr, read_only);
    DocCounts c;
    c.total = spi_int(0, 9);
    c.planned = spi_int(0, 1);
    c.pending = spi_int(0, 2);
    c.active = spi_int(0, 3);
    c.completed = spi_int(0, 4);
    c.killed = spi_int(0, 5);
    c.ready = spi_int(0, 6);
    bool isnull = true;
    const Datum age = spi_value(0, 7, &isnull);
    if (!isnull) c.oldest_ready_age = DatumGetFloat8(age);
    const Datum next = spi_value(0, 8, &isnull);
    if (!isnull) c.next_planned_at = DatumGetTimestampTz(next);
    return c;
}

}  // namespace fetchq::ops
