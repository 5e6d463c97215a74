#include "pg/metrics.hpp"

#include <vector>

#include "core/metric_deltas.hpp"
#include "pg/guard.hpp"
#include "pg/spi.hpp"

namespace fetchq::pg {
namespace {

core::MetricDeltas& deltas() {
    static core::MetricDeltas d;
    return d;
}

constexpr const char* kFlushSql =
    "INSERT INTO fetchq.metrics AS m (queue, metric, slot, value, updated_at) "
    "SELECT u.queue, u.metric, $4, u.delta, pg_catalog.now() "
    "FROM unnest($1::pg_catalog.text[], $2::pg_catalog.text[], "
    "$3::pg_catalog.int8[]) WITH ORDINALITY AS u(queue, metric, delta, n) ORDER BY u.n "
    "ON CONFLICT (queue, metric, slot) DO UPDATE "
    "SET value = m.value OPERATOR(pg_catalog.+) EXCLUDED.value, updated_at = EXCLUDED.updated_at";

Datum text_array(const std::vector<core::MetricDelta>& rows, bool queue_column) {
    const int n = static_cast<int>(rows.size());
    Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * n));
    for (int i = 0; i < n; ++i) {
        const std::string& s = queue_column ? rows[i].queue : rows[i].metric;
        elems[i] = PointerGetDatum(cstring_to_text_with_len(s.data(), static_cast<int>(s.size())));
    }
    return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

Datum int8_array(const std::vector<core::MetricDelta>& rows) {
    const int n = static_cast<int>(rows.size());
    Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * n));
    for (int i = 0; i < n; ++i) elems[i] = Int64GetDatum(rows[i].delta);
    return PointerGetDatum(construct_array(elems, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

void flush() {
    if (deltas().empty()) return;
    std::vector<core::MetricDelta> rows = deltas().drain();
    if (rows.empty()) return;
    spi_connect();
    Datum values[4];
    pg_call([&] {
        values[0] = text_array(rows, true);
        values[1] = text_array(rows, false);
        values[2] = int8_array(rows);
        values[3] = Int16GetDatum(static_cast<int16>(MyBackendId % kMetricSlots));
    });
    SPIPlanPtr plan = cached_plan(
        "", "metrics_flush", [] { return std::string(kFlushSql); },
        {TEXTARRAYOID, TEXTARRAYOID, INT8ARRAYOID, INT2OID});
    pg_call([&] { PushActiveSnapshot(GetTransactionSnapshot()); });
    spi_execute(plan, values, nullptr, false);
    pg_call([] { PopActiveSnapshot(); });
    spi_finish();
}

Datum flush_guarded() {
    flush();
    return (Datum)0;
}

void on_xact(XactEvent event, void*) {
    switch (event) {
        case XACT_EVENT_PRE_COMMIT:
        case XACT_EVENT_PRE_PREPARE:
            sql_entry(flush_guarded);
            break;
        case XACT_EVENT_ABORT:
        case XACT_EVENT_PARALLEL_ABORT:
        case XACT_EVENT_COMMIT:
        case XACT_EVENT_PREPARE:
            deltas().clear();
            break;
        default:
            break;
    }
}

void on_subxact(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    const int level = GetCurrentTransactionNestLevel();
    if (event == SUBXACT_EVENT_COMMIT_SUB)
        deltas().commit_subtransaction(level);
    else if (event == SUBXACT_EVENT_ABORT_SUB)
        deltas().abort_subtransaction(level);
}

}  // namespace

void metric_add(std::string_view queue, std::string_view metric, int64_t delta) {
    deltas().add(queue, metric, delta, GetCurrentTransactionNestLevel());
}

int64_t metric_pending(std::string_view queue, std::string_view metric) {
    return deltas().pending(queue, metric);
}

void metric_forget_queue(std::string_view queue) { deltas().forget_queue(queue); }

void metrics_register_callbacks() {
    RegisterXactCallback(on_xact, nullptr);
    RegisterSubXactCallback(on_subxact, nullptr);
}

}  // namespace fetchq::pg
