#include "ops/dead_letters.hpp"

#include "core/doc_status.hpp"
#include "ops/doc_push.hpp"
#include "ops/counters.hpp"
#include "ops/queue_access.hpp"
#include "ops/queue_sql.hpp"
#include "core/error.hpp"
#include "pg/as_user.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

std::optional<std::string> dead_letter_queue(const std::string& queue) {
    SPIPlanPtr plan = cached_plan(
        "", "dead_letter_queue",
        [] {
            return std::string("SELECT dead_letter_queue::text FROM fetchq.queues WHERE name = $1");
        },
        {TEXTOID});
    Datum name = to_text(queue);
    if (spi_execute(plan, &name, nullptr, true, 1) != 1) return std::nullopt;
    const char* dlq = spi_text(0, 1);
    return dlq ? std::optional<std::string>(dlq) : std::nullopt;
}

std::vector<KilledDoc> killed_rows(const std::vector<uint64_t>& rows, int status_col,
                                   int first_col) {
    std::vector<KilledDoc> out;
    for (uint64_t row : rows) {
        if (status_col > 0 &&
            spi_int(row, status_col) != core::status_code(core::DocStatus::kKilled))
            continue;
        KilledDoc d;
        d.subject = spi_text(row, first_col);
        if (const char* payload = spi_text(row, first_col + 1)) d.payload = payload;
        d.attempts = spi_int(row, first_col + 2);
        out.push_back(std::move(d));
    }
    return out;
}

Oid dead_letter_receiver(const std::string& queue, const std::string& dead_letter) {
    const Oid current = pg_call([] { return GetUserId(); });
    if (!queue_has_grants(dead_letter)) return current;
    const Oid owner = queue_owner_or_invalid(queue);
    if (!queue_privilege_held(dead_letter, core::QueuePrivilege::kPush, owner)) {
        const char* role = pg_call([&] { return GetUserNameFromId(owner, true); });
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "permission denied to copy killed documents of queue \"" + queue +
                              "\" into dead-letter queue \"" + dead_letter + "\"",
                          "Role \"" + std::string(role ? role : "?") + "\", the owner of queue \"" +
                              queue + "\", lacks push on queue \"" + dead_letter + "\".",
                          "Grant it: SELECT fetchq.queue_grant('" + dead_letter + "', '" +
                              std::string(role ? role : "?") +
                              "', 'push'); or set another dead-letter queue.");
    }
    const Oid receiver = queue_owner_or_invalid(dead_letter);
    return OidIsValid(receiver) ? receiver : current;
}

void send_to_dead_letters(const std::string& queue, const std::string& dead_letter,
                          const std::vector<KilledDoc>& docs, const std::string& error) {
    const Oid receiver = dead_letter_receiver(queue, dead_letter);
    // A copy of a kill counted on the caller's behalf is counted so too.
    if (metric_is_on_behalf(queue)) metric_on_behalf(dead_letter);
    SPIPlanPtr plan =
        cached_plan("", "dead_letter_payload",
                    [] {
                        return std::string(
                            "SELECT jsonb_build_object('queue', $1::text, 'payload', $2::jsonb,"
                            " 'attempts', $3::int8, 'error', $4::text)");
                    },
                    {TEXTOID, TEXTOID, INT8OID, TEXTOID});
    for (const KilledDoc& d : docs) {
        Datum values[4] = {to_text(queue), d.payload ? to_text(*d.payload) : (Datum)0,
                           Int64GetDatum(d.attempts), error.empty() ? (Datum)0 : to_text(error)};
        const char nulls[4] = {' ', d.payload ? ' ' : 'n', ' ', error.empty() ? 'n' : ' '};
        spi_execute(plan, values, nulls, true, 1);
        bool isnull = false;
        const Datum payload = spi_value(0, 1, &isnull);
        const auto push = [&] {
            push_one(dead_letter, d.subject, 0, 0, GetCurrentTransactionStartTimestamp(), payload,
                     isnull);
        };
        if (receiver == pg_call([] { return GetUserId(); }))
            push();
        else
            as_user(receiver, push);
    }
}

}  // namespace fetchq::ops
