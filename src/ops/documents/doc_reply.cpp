#include "ops/documents/doc_reply.hpp"

#include "ops/catalog/catalog_owner.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

void record_reply_to(const std::string& queue, const std::string& subject,
                     const std::string& reply_to) {
    SPIPlanPtr plan = cached_plan(
        "", "reply_to_record",
        [] {
            return std::string(
                "INSERT INTO fetchq.doc_replies AS r (queue_id, subject, reply_to, created_at)"
                " SELECT id, $2, $3, now() FROM fetchq.queues WHERE name = $1"
                " ON CONFLICT (queue_id, subject) DO UPDATE"
                " SET reply_to = EXCLUDED.reply_to, created_at = EXCLUDED.created_at");
        },
        {TEXTOID, TEXTOID, TEXTOID});
    Datum values[3] = {to_text(queue), to_text(subject), to_text(reply_to)};
    as_catalog_owner([&] { spi_execute(plan, values, nullptr, false); });
}

std::optional<std::string> reply_to_of(const std::string& queue, const std::string& subject,
                                       TimestampTz created_at) {
    SPIPlanPtr plan =
        cached_plan("", "reply_to_read",
                    [] {
                        return std::string(
                            "SELECT r.reply_to FROM fetchq.doc_replies AS r"
                            " JOIN fetchq.queues AS q ON q.id = r.queue_id"
                            " WHERE q.name = $1 AND r.subject = $2 AND r.created_at = $3");
                    },
                    {TEXTOID, TEXTOID, TIMESTAMPTZOID});
    Datum values[3] = {to_text(queue), to_text(subject), TimestampTzGetDatum(created_at)};
    std::optional<std::string> out;
    as_catalog_owner([&] {
        if (spi_execute(plan, values, nullptr, true, 1) > 0) out = spi_text(0, 1);
    });
    return out;
}

bool lock_request(const std::string& queue, const std::string& subject, Request* out) {
    SPIPlanPtr plan = queue_plan(queue, "reply_request",
                                 [&] {
                                     return "SELECT status, created_at FROM " + docs_rel(queue) +
                                            " WHERE subject = $1 FOR UPDATE";
                                 },
                                 {TEXTOID});
    Datum arg = to_text(subject);
    if (queue_execute(queue, plan, &arg, nullptr) == 0) return false;
    out->status = spi_int(0, 1);
    bool isnull = false;
    out->created_at = DatumGetTimestampTz(spi_value(0, 2, &isnull));
    return true;
}

void forget_reply_to(const std::string& queue, const std::string& subject) {
    SPIPlanPtr plan =
        cached_plan("", "reply_to_forget",
                    [] {
                        return std::string(
                            "DELETE FROM fetchq.doc_replies AS r USING fetchq.queues AS q"
                            " WHERE q.name = $1 AND r.queue_id = q.id AND r.subject = $2");
                    },
                    {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(queue), to_text(subject)};
    as_catalog_owner([&] { spi_execute(plan, values, nullptr, false); });
}

}  // namespace fetchq::ops
