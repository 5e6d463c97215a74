#include "pg/queue_sql.hpp"

#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "pg/metrics.hpp"

namespace fetchq::pg {

std::string docs_rel(std::string_view queue) {
    return "fetchq_data." + quote_ident(core::docs_table(queue));
}
std::string logs_rel(std::string_view queue) {
    return "fetchq_data." + quote_ident(core::logs_table(queue));
}
std::string metrics_rel(std::string_view queue) {
    return "fetchq_data." + quote_ident(core::metrics_table(queue));
}

void throw_queue_missing(std::string_view queue) {
    throw core::Error(core::sqlstate::kUndefinedObject,
                      "queue \"" + std::string(queue) + "\" does not exist", {},
                      "Create it with fetchq.queue_create('" + std::string(queue) + "').");
}

uint64_t queue_execute(std::string_view queue, SPIPlanPtr plan, const Datum* values,
                       const char* nulls, bool read_only, long count) {
    try {
        return spi_execute(plan, values, nulls, read_only, count);
    } catch (const PgError& e) {
        if (e.sqlerrcode() == ERRCODE_UNDEFINED_TABLE) throw_queue_missing(queue);
        throw;
    }
}

bool queue_exists(std::string_view queue) {
    SPIPlanPtr plan = cached_plan(
        "", "queue_exists",
        [] { return std::string("SELECT 1 FROM fetchq.queues WHERE name = $1"); }, {TEXTOID});
    Datum arg = to_text(queue);
    return spi_execute(plan, &arg, nullptr, true, 1) > 0;
}

void require_queue(std::string_view queue) {
    if (!queue_exists(queue)) throw_queue_missing(queue);
}

std::vector<std::string> all_queue_names() {
    SPIPlanPtr plan =
        cached_plan("", "queue_names",
                    [] { return std::string("SELECT name FROM fetchq.queues ORDER BY name"); }, {});
    const uint64_t n = spi_execute(plan, nullptr, nullptr, true);
    std::vector<std::string> names;
    names.reserve(n);
    for (uint64_t row = 0; row < n; ++row) names.emplace_back(spi_text(row, 1));
    return names;
}

void queue_forget(std::string_view queue) {
    forget_plans(queue);
    metric_forget_queue(queue);
}

}  // namespace fetchq::pg
