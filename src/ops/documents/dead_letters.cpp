#include "ops/documents/dead_letters.hpp"

#include "core/doc_status.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/counters/counters.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/routes/route_rights.hpp"
#include "ops/queues/queue_sql.hpp"
#include "core/error.hpp"
#include "pg/as_user.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

std::optional<DeadLetter> dead_letter_queue(const std::string& queue) {
    SPIPlanPtr plan = cached_plan("", "dead_letter_of",
                                  [] {
                                      return std::string(
                                          "SELECT dead_letter_queue::text, dead_letter_set_by::oid"
                                          " FROM fetchq.queues WHERE name = $1");
                                  },
                                  {TEXTOID});
    Datum name = to_text(queue);
    if (spi_execute(plan, &name, nullptr, true, 1) != 1) return std::nullopt;
    const char* dlq = spi_text(0, 1);
    if (!dlq) return std::nullopt;
    bool isnull = false;
    const Datum set_by = spi_value(0, 2, &isnull);
    return DeadLetter{dlq, isnull ? InvalidOid : DatumGetObjectId(set_by)};
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

namespace {

std::string role_name(Oid role) {
    const char* name = pg_call([&] { return GetUserNameFromId(role, true); });
    return name ? name : "with OID " + std::to_string(role);
}

}  // namespace

Oid dead_letter_receiver(const std::string& queue, const std::string& dead_letter, Oid set_by,
                         bool setting) {
    const Oid owner = queue_owner_or_invalid(queue);
    const Oid role = OidIsValid(set_by) ? set_by : owner;
    const RouteRights rights = route_rights(queue, dead_letter, role);
    if (!rights.destination_exists) throw_queue_missing(dead_letter);
    const bool manages =
        rights.role_exists && queue_privilege_held(queue, core::QueuePrivilege::kManage, role);
    if (manages && rights.may_push && !rights.push_filtered) return rights.destination_owner;
    // Why not, naming the role.
    std::string who;
    if (setting)
        who = "The role";
    else if (OidIsValid(set_by))
        who = "Role \"" + role_name(role) + "\", who set it,";
    else
        who = "Role \"" + role_name(role) + "\", the owner of queue \"" + queue +
              "\" (it was set before fetchq 0.2.1, which did not record who set it),";
    std::string why;
    if (!rights.role_exists)
        why = "The role that set it, with OID " + std::to_string(role) + ", no longer exists.";
    else if (!manages)
        why = who + " lacks manage on queue \"" + queue + "\".";
    else if (!rights.may_push)
        why = who + " may not push into queue \"" + dead_letter + "\".";
    else
        why = who + " may push into queue \"" + dead_letter +
              "\" only through row security, and the copies are inserted as that queue's owner.";
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied to copy killed documents of queue \"" + queue +
                          "\" into dead-letter queue \"" + dead_letter + "\"",
                      why,
                      setting ? "A role may make a queue the dead-letter queue of another only "
                                "when it may push into it, without row security."
                              : "Give that role the right again, set the dead-letter queue again "
                                "as a role that has it (fetchq.queue_set_dead_letter('" +
                                    queue + "', '" + dead_letter +
                                    "')), or remove it (fetchq.queue_set_dead_letter('" + queue +
                                    "', NULL)).");
}

namespace {

// The copy of `subject` of `queue` in `dead_letter`, its row locked: its
// status and how many times it says its document died (its payload's
// "deaths"; 1 for a copy without one). None when the subject is missing
// there, or its document is no copy of `queue`'s (its payload's "queue"
// names another queue, or none): a dead-letter copy replaces only a copy of
// its own queue, never another queue's copy or a document pushed there
// otherwise. Runs as the dead-letter queue's owner.
std::optional<DeadCopy> dead_copy(const std::string& dead_letter, const std::string& queue,
                                  const std::string& subject) {
    SPIPlanPtr plan = queue_plan(
        dead_letter, "dead_letter_copy",
        [&] {
            return "SELECT status, CASE WHEN jsonb_typeof(payload -> 'deaths') = 'number'"
                   " THEN least(greatest((payload ->> 'deaths')::numeric, 1), 1e15)::int8"
                   " ELSE 1 END FROM " +
                   docs_rel(dead_letter) +
                   " WHERE subject = $1 AND jsonb_typeof(payload) = 'object'"
                   " AND payload ->> 'queue' = $2 FOR UPDATE";
        },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(subject), to_text(queue)};
    if (queue_execute(dead_letter, plan, values, nullptr) == 0) return std::nullopt;
    return DeadCopy{spi_int(0, 1), spi_int(0, 2)};
}

// The copy's payload in place (a planned, pending or active copy keeps its
// status; an active one is finished by its worker with the latest death).
void replace_dead_copy(const std::string& dead_letter, const std::string& subject, Datum payload) {
    SPIPlanPtr plan = queue_plan(
        dead_letter, "dead_letter_replace",
        [&] { return "UPDATE " + docs_rel(dead_letter) + " SET payload = $2 WHERE subject = $1"; },
        {TEXTOID, JSONBOID});
    Datum values[2] = {to_text(subject), payload};
    queue_execute(dead_letter, plan, values, nullptr);
}

}  // namespace

void send_to_dead_letters(const std::string& queue, const DeadLetter& dead_letter_of,
                          const std::vector<KilledDoc>& docs, const std::string& error) {
    const std::string& dead_letter = dead_letter_of.queue;
    const Oid receiver = dead_letter_receiver(queue, dead_letter, dead_letter_of.set_by);
    // A copy of a kill counted on the caller's behalf is counted so too.
    if (metric_is_on_behalf(queue)) metric_on_behalf(dead_letter);
    SPIPlanPtr plan =
        cached_plan("", "dead_letter_payload_deaths",
                    [] {
                        return std::string(
                            "SELECT jsonb_build_object('queue', $1::text, 'payload', $2::jsonb,"
                            " 'attempts', $3::int8, 'error', $4::text, 'deaths', $5::int8)");
                    },
                    {TEXTOID, TEXTOID, INT8OID, TEXTOID, INT8OID});
    const auto copy_payload = [&](const KilledDoc& d, int64_t deaths) {
        Datum values[5] = {to_text(queue), d.payload ? to_text(*d.payload) : (Datum)0,
                           Int64GetDatum(d.attempts), error.empty() ? (Datum)0 : to_text(error),
                           Int64GetDatum(deaths)};
        const char nulls[5] = {' ', d.payload ? ' ' : 'n', ' ', error.empty() ? 'n' : ' ', ' '};
        spi_execute(plan, values, nulls, true, 1);
        bool isnull = false;
        return spi_value(0, 1, &isnull);
    };
    const TimestampTz now = GetCurrentTransactionStartTimestamp();
    for (const KilledDoc& d : docs) {
        // As the dead-letter queue's owner, restricted, whoever killed. The
        // first death is a new copy; a later one replaces it (the latest
        // death, counted in "deaths"), and a copy already handled (completed
        // or killed) is pending again.
        as_user(receiver, [&] {
            if (push_one(dead_letter, d.subject, 0, 0, now, copy_payload(d, 1), false) > 0) return;
            const std::optional<DeadCopy> copy = dead_copy(dead_letter, queue, d.subject);
            if (!copy) return;
            const Datum payload = copy_payload(d, copy->deaths + 1);
            const bool finished = copy->status == core::status_code(core::DocStatus::kCompleted) ||
                                  copy->status == core::status_code(core::DocStatus::kKilled);
            if (finished && requeue_finished(dead_letter, d.subject, 0, 0, now, payload, false) > 0)
                return;
            replace_dead_copy(dead_letter, d.subject, payload);
        });
    }
}

}  // namespace fetchq::ops
