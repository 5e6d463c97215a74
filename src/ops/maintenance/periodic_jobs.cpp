// The periodic jobs of fetchq.jobs that the scheduler runs on their own
// schedule (settings->>'delay'): 'sts' metric snapshots, 'drp' retention of
// logs and snapshots, 'lgp' folding of the metric write log. 'mnt' jobs are
// not needed: the scheduler maintains every queue continuously.
#include <string>
#include <vector>

#include "ops/counters/metric_log.hpp"
#include "ops/maintenance/metric_snapshot.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/maintenance/retention.hpp"
#include "ops/maintenance/maintenance.hpp"

namespace fetchq::ops {

namespace {

// Whether the queue's snapshot table has its primary key. pg_restore -j
// builds it once the table's rows are in, maybe before its id sequence is
// set: a snapshot before the key could take ids still to be loaded and make
// the key's creation fail; after it, such an id fails the snapshot alone.
bool metrics_table_keyed(const std::string& queue) {
    using namespace fetchq::pg;
    SPIPlanPtr plan =
        cached_plan("", "metrics_table_keyed",
                    [] {
                        return std::string(
                            "SELECT EXISTS (SELECT FROM pg_catalog.pg_index WHERE indisprimary"
                            " AND indrelid = pg_catalog.to_regclass($1))");
                    },
                    {TEXTOID});
    Datum rel = to_text(metrics_rel(queue));
    spi_execute(plan, &rel, nullptr, true, 1);
    bool isnull = false;
    return DatumGetBool(spi_value(0, 1, &isnull));
}

}  // namespace

std::vector<PeriodicJob> claim_due_jobs(int32_t limit) {
    using namespace fetchq::pg;
    SPIPlanPtr plan = cached_plan(
        "", "claim_due_jobs",
        [] {
            // Rescheduled when claimed: a failing job is retried after its
            // delay, never in a loop. A delay that is not a plain duration
            // takes the task's default, and none is shorter than a second:
            // a job row written by a queue's owner can neither fail this
            // statement for every queue nor keep the scheduler busy.
            return std::string(
                "UPDATE fetchq.jobs AS j SET last_iteration = now(), iterations = j.iterations + 1,"
                " attempts = 0, next_iteration = now() + GREATEST(interval '1 second',"
                " CASE WHEN j.settings->>'delay' ~ '^[0-9]{1,6} ?(ms|s|m|h|d)$'"
                " THEN (j.settings->>'delay')::interval"
                " ELSE (CASE j.task WHEN 'lgp' THEN '3s' WHEN 'sts' THEN '5m' ELSE '10m' "
                "END)::interval"
                " END)"
                " WHERE j.id = ANY (ARRAY(SELECT id FROM fetchq.jobs"
                " WHERE task IN ('sts', 'drp', 'lgp') AND (task <> 'lgp' OR queue = '*')"
                " AND next_iteration <= now()"
                " ORDER BY next_iteration LIMIT $1 FOR UPDATE SKIP LOCKED))"
                " RETURNING j.task::text, j.queue::text");
        },
        {INT4OID});
    Datum limit_arg = Int32GetDatum(limit);
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, &limit_arg, nullptr, false); });
    std::vector<PeriodicJob> jobs;
    for (uint64_t row = 0; row < n; ++row) jobs.push_back({spi_text(row, 1), spi_text(row, 2)});
    return jobs;
}

int64_t next_job_due() {
    using namespace fetchq::pg;
    SPIPlanPtr plan = cached_plan(
        "", "next_job_due",
        [] {
            return std::string(
                "SELECT min(next_iteration) FROM fetchq.jobs WHERE task IN ('sts', 'drp', 'lgp')"
                " AND (task <> 'lgp' OR queue = '*')");
        },
        {});
    spi_execute(plan, nullptr, nullptr, true, 1);
    bool isnull = false;
    Datum d = spi_value(0, 1, &isnull);
    return isnull ? DT_NOEND : DatumGetTimestampTz(d);
}

void run_periodic_job(const PeriodicJob& job) {
    if (job.task == "sts") {
        require_queue(job.queue);
        if (metrics_table_keyed(job.queue)) snapshot_counters(job.queue);
    } else if (job.task == "drp") {
        drop_metrics_by_setting(job.queue);
        drop_logs_by_setting(job.queue);
    } else {
        pack_metric_log();
    }
}

}  // namespace fetchq::ops
