#include "ops/queues/queue_tables.hpp"

#include <string>
#include <vector>

#include "ops/queues/queue_sql.hpp"
#include "ops/queues/doc_status_sql.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

enum class Table { kDocs, kLogs, kMetrics };

constexpr const char* kPickIndexSuffix = "__docs_pick_idx";

struct IndexSpec {
    const char* suffix;  // the index is named <queue><suffix>
    Table table;
    std::string definition;  // what follows ON <table>
};

const std::vector<IndexSpec>& indexes() {
    using namespace status_sql;
    static const std::vector<IndexSpec> specs = {
        // doc_pick: pending documents of any version, in pick order.
        {kPickIndexSuffix, Table::kDocs,
         " (version, priority DESC, next_iteration, attempts) WHERE status = " + pending +
             " AND lock_upgrade IS NULL"},
        // promotion of planned documents.
        {"__docs_planned_idx", Table::kDocs,
         " (next_iteration) WHERE status = " + planned + " AND lock_upgrade IS NULL"},
        // orphans and dead documents: active ones by lock expiry.
        {"__docs_active_idx", Table::kDocs,
         " (next_iteration) WHERE status = " + active + " AND lock_upgrade IS NULL"},
        // expiration: planned or pending documents by expiry.
        {"__docs_expiry_idx", Table::kDocs,
         " (expires_at) WHERE expires_at IS NOT NULL AND status IN " + waiting},
        // retention of completed documents, by their last change.
        {"__docs_completed_idx", Table::kDocs, " (last_iteration) WHERE status = " + completed},
        // retention and retries (doc_retry_many) of killed documents.
        {"__docs_killed_idx", Table::kDocs, " (last_iteration) WHERE status = " + killed},
        // session-bound picks: only documents picked that way are indexed.
        {"__docs_session_idx", Table::kDocs, " (lock_session) WHERE lock_session IS NOT NULL"},
        // retention of logs and metrics.
        {"__logs_created_idx", Table::kLogs, " (created_at)"},
        {"__metrics_created_idx", Table::kMetrics, " (created_at)"},
    };
    return specs;
}

std::string table_rel(std::string_view queue, Table table) {
    switch (table) {
        case Table::kDocs:
            return docs_rel(queue);
        case Table::kLogs:
            return logs_rel(queue);
        case Table::kMetrics:
            return metrics_rel(queue);
    }
    return {};
}

// Looked up first, so that existing indexes raise no "already exists" notice.
bool index_exists(const std::string& name) {
    const char* relname = name.c_str();
    return pg_call([&] {
        Oid schema = get_namespace_oid("fetchq_data", false);
        return OidIsValid(get_relname_relid(relname, schema));
    });
}

}  // namespace

void create_queue_tables(std::string_view queue, bool unlogged) {
    // A temporary queue dies with its session: it needs no WAL.
    const std::string create = unlogged ? "CREATE UNLOGGED TABLE " : "CREATE TABLE ";
    spi_execute_text(create + docs_rel(queue) +
                     " ("
                     "subject CHARACTER VARYING(50) NOT NULL PRIMARY KEY, "
                     "version INTEGER DEFAULT 0, "
                     "priority INTEGER DEFAULT 0, "
                     "status INTEGER DEFAULT " +
                     status_sql::planned +
                     ", "
                     "attempts INTEGER DEFAULT 0, "
                     "iterations BIGINT DEFAULT 0, "
                     "next_iteration TIMESTAMP WITH TIME ZONE, "
                     "lock_upgrade TIMESTAMP WITH TIME ZONE, "
                     "created_at TIMESTAMP WITH TIME ZONE, "
                     "last_iteration TIMESTAMP WITH TIME ZONE, "
                     "payload JSONB, "
                     // fetchq's own columns, after Fetchq 4's:
                     "expires_at TIMESTAMP WITH TIME ZONE, "
                     "lock_session BIGINT, "
                     // doc_send's flow_key (ops/flow/flow_limits.hpp)
                     "flow_key TEXT)");
    spi_execute_text(create + logs_rel(queue) +
                     " ("
                     "id SERIAL PRIMARY KEY, "
                     "created_at TIMESTAMP WITH TIME ZONE DEFAULT now(), "
                     "subject CHARACTER VARYING(50) NOT NULL, "
                     "message CHARACTER VARYING(255) NOT NULL, "
                     "details JSONB, "
                     "ref_id VARCHAR)");
    spi_execute_text(create + metrics_rel(queue) +
                     " ("
                     "id SERIAL PRIMARY KEY, "
                     "created_at TIMESTAMP WITH TIME ZONE DEFAULT now(), "
                     "metric CHARACTER VARYING(50) NOT NULL, "
                     "value BIGINT)");
    create_queue_indexes(queue);
}

int create_queue_indexes(std::string_view queue) {
    int created = 0;
    for (const IndexSpec& index : indexes()) {
        const std::string name = std::string(queue) + index.suffix;
        if (index_exists(name)) continue;
        spi_execute_text("CREATE INDEX IF NOT EXISTS " + quote_ident(name) + " ON " +
                         table_rel(queue, index.table) + index.definition);
        ++created;
    }
    return created;
}

int drop_queue_indexes(std::string_view queue) {
    int dropped = 0;
    for (const IndexSpec& index : indexes()) {
        const std::string name = std::string(queue) + index.suffix;
        if (!index_exists(name)) continue;
        spi_execute_text("DROP INDEX IF EXISTS fetchq_data." + quote_ident(name));
        ++dropped;
    }
    return dropped;
}

std::string pick_index_name(std::string_view queue) {
    return std::string(queue) + kPickIndexSuffix;
}

void drop_queue_tables(std::string_view queue) {
    spi_execute_text("DROP TABLE IF EXISTS " + docs_rel(queue) + ", " + logs_rel(queue) + ", " +
                     metrics_rel(queue));
}

}  // namespace fetchq::ops
