#include "ops/counters/counters.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <vector>

#include "core/counter_columns.hpp"
#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/metric_deltas.hpp"
#include "pg/args.hpp"
#include "ops/counters/counter_row.hpp"
#include "ops/counters/deferred.hpp"
#include "ops/catalog/catalog_cache.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "pg/as_user.hpp"
#include "pg/guard.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

core::MetricDeltas& deltas() {
    static core::MetricDeltas d;
    return d;
}

constexpr const char* kNumericValueOutOfRange = "22003";

constexpr const char* kFlushSql =
    "INSERT INTO fetchq.custom_counters AS m (queue, metric, slot, value, updated_at) "
    "SELECT u.queue, u.metric, $4, u.delta, pg_catalog.now() "
    "FROM unnest($1::pg_catalog.text[], $2::pg_catalog.text[], "
    "$3::pg_catalog.int8[]) WITH ORDINALITY AS u(queue, metric, delta, n) ORDER BY u.n "
    "ON CONFLICT (queue, metric, slot) DO UPDATE "
    "SET value = m.value OPERATOR(pg_catalog.+) EXCLUDED.value, updated_at = EXCLUDED.updated_at";

// text[] / int8[] of one column of `rows`; PostgreSQL calls: run inside pg_call.
Datum text_array(const std::vector<core::MetricDelta>& rows, bool queue_column) {
    if (rows.empty()) return PointerGetDatum(construct_empty_array(TEXTOID));
    const int n = static_cast<int>(rows.size());
    Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * n));
    for (int i = 0; i < n; ++i) {
        const std::string& s = queue_column ? rows[i].queue : rows[i].metric;
        elems[i] = PointerGetDatum(cstring_to_text_with_len(s.data(), static_cast<int>(s.size())));
    }
    return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

Datum int8_array(const std::vector<core::MetricDelta>& rows) {
    if (rows.empty()) return PointerGetDatum(construct_empty_array(INT8OID));
    const int n = static_cast<int>(rows.size());
    Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * n));
    for (int i = 0; i < n; ++i) elems[i] = Int64GetDatum(rows[i].delta);
    return PointerGetDatum(construct_array(elems, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

// The common case: the counter row of this slot exists, one index lookup
// and a HOT update. Rows are visited in (queue, metric) order, so two
// backends sharing a slot lock them in the same order.
constexpr const char* kBumpSql =
    "UPDATE fetchq.custom_counters SET value = value + $4, updated_at = now() "
    "WHERE queue = $1 AND metric = $2 AND slot = $3";

// The first change of a counter in this slot: insert, or add to a row that a
// concurrent transaction inserted first.
void upsert(const std::vector<core::MetricDelta>& rows, Datum slot) {
    Datum values[4];
    pg_call([&] {
        values[0] = text_array(rows, true);
        values[1] = text_array(rows, false);
        values[2] = int8_array(rows);
    });
    values[3] = slot;
    SPIPlanPtr plan = cached_plan("", "metrics_flush", [] { return std::string(kFlushSql); },
                                  {TEXTARRAYOID, TEXTARRAYOID, INT8ARRAYOID, INT2OID});
    spi_execute(plan, values, nullptr, false);
}

// Counters with other names: a row each. Run as the catalog's owner.
void flush_others(const std::vector<core::MetricDelta>& rows, Datum slot) {
    SPIPlanPtr bump = cached_plan("", "metrics_bump", [] { return std::string(kBumpSql); },
                                  {TEXTOID, TEXTOID, INT2OID, INT8OID});
    std::vector<core::MetricDelta> missing;
    for (const core::MetricDelta& row : rows) {
        Datum values[4] = {to_text(row.queue), to_text(row.metric), slot, Int64GetDatum(row.delta)};
        if (spi_execute(bump, values, nullptr, false) == 0) missing.push_back(row);
    }
    if (!missing.empty()) upsert(missing, slot);
}

// The first change of a queue's counters in this slot: insert the row, or
// add to the row a concurrent transaction inserted first (a NULL change
// leaves the column as it is).
std::string counters_insert_sql() {
    std::string columns = "queue, slot";
    std::string params = "$1, $2";
    std::string sets;
    for (std::size_t i = 0; i < core::kCounterColumns.size(); ++i) {
        const std::string column(core::kCounterColumns[i]);
        columns += ", " + column;
        params += ", $" + std::to_string(i + 3);
        sets += column + " = COALESCE(c." + column + " OPERATOR(pg_catalog.+) EXCLUDED." + column +
                ", c." + column + ", EXCLUDED." + column + "), ";
    }
    return "INSERT INTO fetchq.counters AS c (" + columns + ", updated_at) VALUES (" + params +
           ", pg_catalog.now()) ON CONFLICT (queue, slot) DO UPDATE SET " + sets +
           "updated_at = EXCLUDED.updated_at";
}

// queue, slot, then a change per column of core::kCounterColumns.
#define FETCHQ_COUNTER_PARAM_TYPES                                                                \
    {                                                                                             \
        TEXTOID, INT2OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, \
            INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID                         \
    }
static_assert(core::kCounterColumns.size() == 15, "FETCHQ_COUNTER_PARAM_TYPES lists 15 changes");

void insert_counter_row(const core::CounterRow& row, Datum slot) {
    SPIPlanPtr insert =
        cached_plan("", "counters_insert", counters_insert_sql, FETCHQ_COUNTER_PARAM_TYPES);
    constexpr std::size_t kParams = 2 + core::kCounterColumns.size();
    Datum values[kParams];
    char nulls[kParams + 1];
    values[0] = to_text(row.queue);
    values[1] = slot;
    nulls[0] = nulls[1] = ' ';
    for (std::size_t i = 0; i < core::kCounterColumns.size(); ++i) {
        const std::optional<int64_t>& d = row.deltas[i];
        values[2 + i] = d ? Int64GetDatum(*d) : (Datum)0;
        nulls[2 + i] = d ? ' ' : 'n';
    }
    nulls[kParams] = '\0';
    spi_execute(insert, values, nulls, false);
}

// SPI, for the statements of the rare cases, connected on first use.
class LazySpi {
  public:
    void need() {
        if (connected_) return;
        spi_connect();
        pg_call([] { PushActiveSnapshot(GetTransactionSnapshot()); });
        connected_ = true;
    }
    void finish() {
        if (!connected_) return;
        pg_call([] { PopActiveSnapshot(); });
        spi_finish();
    }

  private:
    bool connected_ = false;
};

// Queues whose counters this transaction writes on the caller's behalf.
std::set<std::string, std::less<>>& on_behalf() {
    static std::set<std::string, std::less<>> queues;
    return queues;
}

// Changes of deferred queues that this transaction's commit adds to shared
// memory (their entries reserved before the commit).
std::vector<core::CounterRow>& deferred_rows() {
    static std::vector<core::CounterRow> rows;
    return rows;
}

// Queues dropped by this transaction: their entries in shared memory go at
// its commit.
std::vector<std::string>& discard_at_commit() {
    static std::vector<std::string> queues;
    return queues;
}

// Whether the queue counts in deferred mode (queue_set_counters), cached per
// backend as the other settings a commit needs. Read as the catalog's owner.
bool queue_deferred(const std::string& queue, LazySpi& spi, Oid owner) {
    static CatalogCache<bool> cache;
    return cache.get(queue, [&] {
        spi.need();
        SPIPlanPtr plan = cached_plan(
            "", "queue_counters_mode",
            [] {
                return std::string(
                    "SELECT counters_mode OPERATOR(pg_catalog.=) 'deferred' FROM fetchq.queues "
                    "WHERE name = $1");
            },
            {TEXTOID});
        Datum arg = to_text(queue);
        bool deferred = false;
        as_user(owner, [&] {
            if (spi_execute_latest(plan, &arg, nullptr) == 0) return;
            bool isnull = true;
            Datum value = spi_value(0, 1, &isnull);
            deferred = !isnull && DatumGetBool(value);
        });
        return deferred;
    });
}

// Writes the changes of `rows` into their counter rows of stripe `slot`,
// inserting the rows missing; needs `spi` for those. Run as the catalog's
// owner when it inserts (`as_owner`).
template <typename AsOwner>
void write_rows(const std::vector<core::CounterRow>& rows, int16 slot, LazySpi& spi,
                AsOwner&& as_owner) {
    if (rows.empty()) return;
    CounterTable table = counter_table_open();
    for (const core::CounterRow& row : rows) {
        if (counter_row_add(table, row, slot)) continue;
        spi.need();
        as_owner([&] { insert_counter_row(row, Int16GetDatum(slot)); });
        pg_call([] { CommandCounterIncrement(); });
    }
    counter_table_close(table);
}

// The standard counters first, one row per queue in queue order (updated in
// place, see counter_row.hpp; inserted on the queue's first change in this
// slot), then the others: every writer of both tables (flush, counter_set,
// metric_reset) locks rows in that order, so two backends sharing a slot
// never wait for each other in a cycle. A deferred queue's row goes to shared
// memory at the commit instead, when its entry there could be reserved; never
// for a prepared transaction, whose commit comes without callbacks.
void flush(bool preparing) {
    if (deltas().empty()) return;
    std::vector<core::MetricDelta> sorted = deltas().drain();
    if (sorted.empty()) return;
    const core::SplitDeltas split = core::split_counter_deltas(sorted);
    const auto slot = static_cast<int16>(MyBackendId % kMetricSlots);
    LazySpi spi;
    // The counters are fetchq's: written as the catalog's owner, whoever
    // commits (the calls that made the changes checked the caller's rights).
    Oid owner = InvalidOid;
    const auto owner_id = [&] {
        if (!OidIsValid(owner)) owner = catalog_owner();
        return owner;
    };
    const auto as_owner = [&](auto&& f) { as_user(owner_id(), f); };
    std::vector<core::CounterRow> exact;
    const bool may_defer = !preparing && deferred_available();
    for (const core::CounterRow& row : split.rows) {
        if (may_defer && queue_deferred(row.queue, spi, owner_id()) &&
            deferred_reserve(row.queue)) {
            deferred_rows().push_back(row);
            continue;
        }
        exact.push_back(row);
    }
    write_rows(exact, slot, spi, as_owner);
    if (!split.others.empty()) {
        spi.need();
        as_owner([&] { flush_others(split.others, Int16GetDatum(slot)); });
    }
    spi.finish();
}

// Before the commit the counters are written, and an error aborts the
// transaction as it should; after it, only the tally is emptied.
void on_xact(XactEvent event, void*) {
    switch (event) {
        case XACT_EVENT_PRE_COMMIT:
            callback_entry(ERROR, "counters_pre_commit", [] { flush(false); });
            break;
        case XACT_EVENT_PRE_PREPARE:
            callback_entry(ERROR, "counters_pre_commit", [] { flush(true); });
            break;
        case XACT_EVENT_COMMIT:
            callback_entry(WARNING, "counters_end", [] {
                std::vector<core::CounterRow> rows;
                rows.swap(deferred_rows());
                deferred_add(rows);
                for (const std::string& queue : discard_at_commit()) deferred_discard(queue);
            });
            [[fallthrough]];
        case XACT_EVENT_ABORT:
        case XACT_EVENT_PARALLEL_ABORT:
        case XACT_EVENT_PREPARE:
            callback_entry(WARNING, "counters_end", [] {
                // Empty after a commit: deferred_add released them.
                deferred_release(deferred_rows());
                deferred_rows().clear();
                discard_at_commit().clear();
                deltas().clear();
                on_behalf().clear();
            });
            break;
        default:
            break;
    }
}

// A failure to fold a released savepoint's counters is an error (the counts
// would be wrong); during an abort it is only reported.
void on_subxact(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (event != SUBXACT_EVENT_COMMIT_SUB && event != SUBXACT_EVENT_ABORT_SUB) return;
    const int level = GetCurrentTransactionNestLevel();
    const bool commit = event == SUBXACT_EVENT_COMMIT_SUB;
    callback_entry(commit ? ERROR : WARNING, "subxact_callback", [&] {
        if (commit)
            deltas().commit_subtransaction(level);
        else
            deltas().abort_subtransaction(level);
    });
}

}  // namespace

void metric_on_behalf(std::string_view queue) {
    if (!metric_is_on_behalf(queue)) on_behalf().emplace(queue);
}

bool metric_is_on_behalf(std::string_view queue) {
    return on_behalf().find(queue) != on_behalf().end();
}

void metric_add(std::string_view queue, std::string_view metric, int64_t delta) {
    deltas().add(queue, metric, delta, GetCurrentTransactionNestLevel());
}

int64_t metric_pending(std::string_view queue, std::string_view metric) {
    return deltas().pending(queue, metric);
}

std::vector<core::MetricDelta> metric_pending_all() { return deltas().totals(); }

void metric_forget(std::string_view queue, std::string_view metric) {
    deltas().forget(queue, metric, GetCurrentTransactionNestLevel());
}

void metric_forget_queue(std::string_view queue) {
    deltas().forget_queue(queue, GetCurrentTransactionNestLevel());
}

void metrics_register_callbacks() {
    RegisterXactCallback(on_xact, nullptr);
    RegisterSubXactCallback(on_subxact, nullptr);
}

void check_metric_name(const std::string& metric, const char* argument) {
    if (metric.empty())
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          std::string("argument ") + argument + " must not be empty", {},
                          "Name the metric, for example 'cnt' or 'my_counter'.");
    const char* s = metric.c_str();
    const int len = static_cast<int>(metric.size());
    const int chars = pg_call([&] { return pg_mbstrlen_with_len(s, len); });
    if (chars > kMaxMetricNameLength)
        throw core::Error(core::sqlstate::kStringDataRightTruncation,
                          std::string("argument ") + argument + " exceeds " +
                              std::to_string(kMaxMetricNameLength) + " characters",
                          "The metric name has " + std::to_string(chars) + " characters.",
                          "Use a metric name of at most " + std::to_string(kMaxMetricNameLength) +
                              " characters.");
}

std::string arg_metric(FunctionCallInfo fcinfo, int i, const char* name) {
    std::string metric = arg_text(fcinfo, i, name);
    check_metric_name(metric, name);
    return metric;
}

Counter counter_read(const std::string& queue, const std::string& metric) {
    SPIPlanPtr plan = cached_plan(
        "", "counter_read",
        [] {
            return std::string(
                "SELECT sum(value)::int8, max(updated_at), count(*) FROM fetchq.metrics "
                "WHERE queue = $1 AND metric = $2");
        },
        {TEXTOID, TEXTOID});
    Datum args[2] = {to_text(queue), to_text(metric)};
    spi_execute(plan, args, nullptr, false);
    Counter c;
    const int64_t pending = metric_pending(queue, metric);
    c.value = spi_int(0, 1) + pending;
    c.exists = spi_int(0, 3) > 0 || pending != 0;
    bool null_update = true;
    Datum updated = spi_value(0, 2, &null_update);
    // A pending change will be stamped with now() when it is written.
    if (pending != 0)
        c.last_update = GetCurrentTransactionStartTimestamp();
    else if (!null_update)
        c.last_update = DatumGetTimestampTz(updated);
    return c;
}

namespace {

// counter_set of a standard counter: its column in every stripe of the queue.
bool counter_set_column(const std::string& queue, std::size_t index, int64_t value) {
    const std::string column(core::kCounterColumns[index]);
    SPIPlanPtr lock = cached_plan(
        "", "counter_lock_" + column,
        [&] {
            return "SELECT count(" + column + ") FROM (SELECT " + column +
                   " FROM fetchq.counters WHERE queue = $1 ORDER BY slot FOR UPDATE) AS s";
        },
        {TEXTOID});
    SPIPlanPtr set = cached_plan(
        "", "counter_set_" + column,
        [&] {
            return "WITH gone AS (UPDATE fetchq.counters SET " + column +
                   " = NULL WHERE queue = $1 AND slot <> 0) "
                   "INSERT INTO fetchq.counters AS c (queue, slot, " +
                   column +
                   ", updated_at) VALUES ($1, 0, $2, now()) ON CONFLICT (queue, slot) DO UPDATE "
                   "SET " +
                   column + " = EXCLUDED." + column + ", updated_at = EXCLUDED.updated_at";
        },
        {TEXTOID, INT8OID});
    Datum args[2] = {to_text(queue), Int64GetDatum(value)};
    // The queue's catalog row first, as folds lock it before the counter
    // rows: no fold of the queue's deferred changes runs meanwhile.
    counters_lock_queue_row(queue);
    spi_execute(lock, args, nullptr, false);
    const bool had_value = spi_int(0, 1) > 0;
    spi_execute(set, args, nullptr, false);
    const bool had_pending = metric_pending(queue, column) != 0;
    metric_forget(queue, column);
    // What shared memory holds of it (deferred counters) is overwritten too.
    counters_cancel_unfolded(queue, index);
    return !had_value && !had_pending;
}

// counter_set, as the catalog's owner.
bool counter_set_rows(const std::string& queue, const std::string& metric, int64_t value) {
    if (const std::optional<std::size_t> index = core::counter_column(metric))
        return counter_set_column(queue, *index, value);
    // Lock the stripes first, in the order in which commits lock counter rows
    // (see flush), so that a set and a commit never wait for each other in a
    // cycle.
    SPIPlanPtr lock = cached_plan(
        "", "counter_lock",
        [] {
            return std::string(
                "SELECT count(*) FROM (SELECT 1 FROM fetchq.custom_counters WHERE queue = $1 "
                "AND metric = $2 ORDER BY slot FOR UPDATE) AS s");
        },
        {TEXTOID, TEXTOID});
    // Stripes other than 0 go, stripe 0 takes the value: disjoint rows, so
    // one statement may do both.
    SPIPlanPtr set = cached_plan(
        "", "counter_set",
        [] {
            return std::string(
                "WITH gone AS (DELETE FROM fetchq.custom_counters WHERE queue = $1 AND metric = $2 "
                "AND slot <> 0) "
                "INSERT INTO fetchq.custom_counters AS m (queue, metric, slot, value, updated_at) "
                "VALUES ($1, $2, 0, $3, now()) ON CONFLICT (queue, metric, slot) DO UPDATE "
                "SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at");
        },
        {TEXTOID, TEXTOID, INT8OID});
    Datum args[3] = {to_text(queue), to_text(metric), Int64GetDatum(value)};
    spi_execute(lock, args, nullptr, false);
    const bool had_rows = spi_int(0, 1) > 0;
    spi_execute(set, args, nullptr, false);
    const bool had_pending = metric_pending(queue, metric) != 0;
    metric_forget(queue, metric);
    return !had_rows && !had_pending;
}

}  // namespace

bool counter_set(const std::string& queue, const std::string& metric, int64_t value) {
    bool created = false;
    as_catalog_owner([&] { created = counter_set_rows(queue, metric, value); });
    return created;
}

int32_t counter_int(const std::string& queue, const std::string& metric, int64_t value) {
    if (value >= std::numeric_limits<int32_t>::min() &&
        value <= std::numeric_limits<int32_t>::max())
        return static_cast<int32_t>(value);
    const std::string what = queue.empty()
                                 ? "the total of counter " + core::echo(metric)
                                 : "counter " + core::echo(metric) + " of queue \"" + queue + "\"";
    throw core::Error(kNumericValueOutOfRange, what + " is out of range for type integer",
                      "Its value is " + std::to_string(value) + ".",
                      queue.empty() ? "Sum fetchq.metric_get(queue) over the queues instead."
                                    : "Read it with fetchq.metric_get(queue), which returns "
                                      "bigint values.");
}

namespace {

// SELECT name, <a bigint per reported counter> for one queue ($1) or all.
// Read through the view fetchq.metrics, as metric_get does, so a reader
// needs SELECT on the view only.
std::string reported_counters_sql(bool one_queue) {
    std::string sql = "SELECT q.name";
    std::string names;
    for (std::string_view m : core::kReportedCounters) {
        sql +=
            ", COALESCE(sum(m.value) FILTER (WHERE m.metric = '" + std::string(m) + "'), 0)::int8";
        names += (names.empty() ? "" : ",") + std::string(m);
    }
    sql += " FROM fetchq.queues AS q LEFT JOIN fetchq.metrics AS m ON m.queue = q.name";
    sql += " AND m.metric = ANY ('{" + names + "}')";
    if (one_queue) sql += " WHERE q.name = $1";
    return sql + " GROUP BY q.name ORDER BY q.name";
}

}  // namespace

std::vector<QueueCounters> reported_counters(const std::optional<std::string>& queue,
                                             bool read_only) {
    SPIPlanPtr plan = queue ? cached_plan("", "reported_counters_one",
                                          [] { return reported_counters_sql(true); }, {TEXTOID})
                            : cached_plan("", "reported_counters_all",
                                          [] { return reported_counters_sql(false); }, {});
    Datum arg = queue ? to_text(*queue) : (Datum)0;
    const uint64_t n = spi_execute(plan, queue ? &arg : nullptr, nullptr, read_only);
    std::vector<QueueCounters> rows(n);
    for (uint64_t row = 0; row < n; ++row) {
        rows[row].queue = spi_text(row, 1);
        for (std::size_t i = 0; i < core::kReportedCounters.size(); ++i)
            rows[row].values[i] = spi_int(row, static_cast<int>(i) + 2);
    }
    for (QueueCounters& r : rows)
        for (std::size_t i = 0; i < core::kReportedCounters.size(); ++i)
            r.values[i] += metric_pending(r.queue, core::kReportedCounters[i]);
    return rows;
}

std::string queue_counters_sql() {
    return "SELECT COALESCE(m.metric, p.metric)::varchar AS metric, "
           "(COALESCE(m.value, 0) + COALESCE(p.delta, 0))::int8 AS current_value, "
           "CASE WHEN p.delta IS NULL THEN m.updated_at ELSE now() END AS last_update "
           "FROM (SELECT metric, sum(value) AS value, max(updated_at) AS updated_at "
           "FROM fetchq.metrics WHERE queue = $1 GROUP BY metric) AS m "
           "FULL JOIN unnest($2::text[], $3::int8[]) AS p(metric, delta) ON p.metric = m.metric";
}

void pending_arrays(std::string_view queue, Datum* metrics, Datum* deltas_out) {
    std::vector<core::MetricDelta> rows;
    for (core::MetricDelta& d : deltas().totals())
        if (d.queue == queue) rows.push_back(std::move(d));
    pg_call([&] {
        *metrics = text_array(rows, false);
        *deltas_out = int8_array(rows);
    });
}

void counters_discard_at_commit(std::string_view queue) { discard_at_commit().emplace_back(queue); }

namespace {

// Names of `candidates` in fetchq.queues, in a new snapshot; with `lock`,
// those whose catalog row this transaction could lock FOR SHARE (SKIP
// LOCKED: a queue_set_counters or metric_reset of the queue under way holds
// it). As the catalog's owner.
std::vector<std::string> queue_rows(const std::vector<std::string>& candidates, bool lock) {
    SPIPlanPtr plan =
        cached_plan("", lock ? "counters_fold_lock" : "counters_fold_exist",
                    [lock] {
                        return std::string(
                                   "SELECT name::pg_catalog.text FROM fetchq.queues "
                                   "WHERE name OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.text[]) "
                                   "ORDER BY name COLLATE \"C\"") +
                               (lock ? " FOR SHARE SKIP LOCKED" : "");
                    },
                    {TEXTARRAYOID});
    std::vector<core::MetricDelta> as_rows;
    for (const std::string& q : candidates) as_rows.push_back({q, {}, 0});
    Datum arg = 0;
    pg_call([&] { arg = text_array(as_rows, true); });
    std::vector<std::string> names;
    const uint64_t n = spi_execute(plan, &arg, nullptr, false);
    for (uint64_t row = 0; row < n; ++row) names.emplace_back(spi_text(row, 1));
    return names;
}

}  // namespace

int64_t counters_fold(const std::optional<std::string>& queue) {
    std::vector<std::string> names = deferred_queues();
    if (queue) {
        const bool listed = std::find(names.begin(), names.end(), *queue) != names.end();
        names.clear();
        if (listed) names.push_back(*queue);
    }
    if (names.empty()) return 0;
    std::sort(names.begin(), names.end());
    std::vector<std::string> existing, locked;
    const Oid owner = catalog_owner();
    as_user(owner, [&] {
        existing = queue_rows(names, false);
        locked = queue_rows(names, true);
    });
    // Entries of queues dropped since (or by an extension dropped since).
    for (const std::string& name : names)
        if (std::find(existing.begin(), existing.end(), name) == existing.end())
            deferred_discard(name);
    const std::vector<core::CounterRow> rows = deferred_take(locked);
    LazySpi spi;
    write_rows(rows, kFoldSlot, spi, [&](auto&& f) { as_user(owner, f); });
    spi.finish();
    return static_cast<int64_t>(rows.size());
}

void counters_cancel_unfolded(const std::string& queue, std::optional<std::size_t> column) {
    if (!deferred_available()) return;
    // A snapshot taken now: the caller's lock on the queue's catalog row
    // waited for any fold of it, whose rows the caller's statements see.
    const Snapshot snapshot = pg_call([] { return GetLatestSnapshot(); });
    for (const UnfoldedRow& row : deferred_unfolded(snapshot, queue))
        for (std::size_t i = 0; i < core::kCounterColumns.size(); ++i)
            if ((!column || *column == i) && (row.mask & (1u << i)) && row.values[i] != 0)
                metric_add(queue, core::kCounterColumns[i], -row.values[i]);
}

void counters_lock_queue_row(const std::string& queue) {
    SPIPlanPtr plan = cached_plan(
        "", "counters_queue_row",
        [] { return std::string("SELECT 1 FROM fetchq.queues WHERE name = $1 FOR NO KEY UPDATE"); },
        {TEXTOID});
    Datum name = to_text(queue);
    as_catalog_owner([&] { spi_execute(plan, &name, nullptr, false); });
}

}  // namespace fetchq::ops
