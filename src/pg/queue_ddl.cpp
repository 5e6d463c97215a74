#include "pg/queue_ddl.hpp"

#include <string>

#include "pg/queue_sql.hpp"

namespace fetchq::pg {
namespace {

std::string index_name(std::string_view queue, const char* what) {
    return quote_ident(std::string(queue) + "__docs_" + what + "_idx");
}

}  // namespace

void create_queue_tables(std::string_view queue) {
    spi_execute_text("CREATE TABLE " + docs_rel(queue) +
                     " ("
                     "subject CHARACTER VARYING(50) NOT NULL PRIMARY KEY, "
                     "version INTEGER DEFAULT 0, "
                     "priority INTEGER DEFAULT 0, "
                     "status INTEGER DEFAULT 0, "
                     "attempts INTEGER DEFAULT 0, "
                     "iterations BIGINT DEFAULT 0, "
                     "next_iteration TIMESTAMP WITH TIME ZONE, "
                     "lock_upgrade TIMESTAMP WITH TIME ZONE, "
                     "created_at TIMESTAMP WITH TIME ZONE, "
                     "last_iteration TIMESTAMP WITH TIME ZONE, "
                     "payload JSONB)");
    spi_execute_text("CREATE TABLE " + logs_rel(queue) +
                     " ("
                     "id SERIAL PRIMARY KEY, "
                     "created_at TIMESTAMP WITH TIME ZONE DEFAULT now(), "
                     "subject CHARACTER VARYING(50) NOT NULL, "
                     "message CHARACTER VARYING(255) NOT NULL, "
                     "details JSONB, "
                     "ref_id VARCHAR)");
    spi_execute_text("CREATE TABLE " + metrics_rel(queue) +
                     " ("
                     "id SERIAL PRIMARY KEY, "
                     "created_at TIMESTAMP WITH TIME ZONE DEFAULT now(), "
                     "metric CHARACTER VARYING(50) NOT NULL, "
                     "value BIGINT)");
    create_queue_indexes(queue);
}

void create_queue_indexes(std::string_view queue) {
    const std::string docs = docs_rel(queue);
    // doc_pick: pending documents of any version, in pick order.
    spi_execute_text("CREATE INDEX IF NOT EXISTS " + index_name(queue, "pick") + " ON " + docs +
                     " (version, priority DESC, next_iteration, attempts)"
                     " WHERE status = 1 AND lock_upgrade IS NULL");
    // promotion of planned documents.
    spi_execute_text("CREATE INDEX IF NOT EXISTS " + index_name(queue, "planned") + " ON " +
                     docs + " (next_iteration) WHERE status = 0 AND lock_upgrade IS NULL");
    // orphans and dead documents: active ones by lock expiry.
    spi_execute_text("CREATE INDEX IF NOT EXISTS " + index_name(queue, "active") + " ON " +
                     docs + " (next_iteration) WHERE status = 2 AND lock_upgrade IS NULL");
    spi_execute_text("CREATE INDEX IF NOT EXISTS " + quote_ident(std::string(queue) + "__logs_created_idx") +
                     " ON " + logs_rel(queue) + " (created_at)");
    spi_execute_text("CREATE INDEX IF NOT EXISTS " + quote_ident(std::string(queue) + "__metrics_created_idx") +
                     " ON " + metrics_rel(queue) + " (created_at)");
}

void drop_queue_indexes(std::string_view queue) {
    for (const char* what : {"pick", "planned", "active"})
        spi_execute_text("DROP INDEX IF EXISTS fetchq_data." + index_name(queue, what));
}

void drop_queue_tables(std::string_view queue) {
    spi_execute_text("DROP TABLE IF EXISTS " + docs_rel(queue) + ", " + logs_rel(queue) + ", " +
                     metrics_rel(queue));
}

}  // namespace fetchq::pg
