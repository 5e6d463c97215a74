// Dead letters: a queue may name another queue that receives a copy of every
// document it kills (by doc_kill, by doc_reject or the orphan pass once its
// attempts are used up, or when its session-bound picker ended), in the same
// transaction, under the same subject. The copy's payload says where it came
// from: {"queue", "payload", "attempts", "error", "deaths"}. A document that
// dies again (after doc_retry) replaces its copy: the copy shows the latest
// death, "deaths" counts them, and a copy already completed or killed is
// pending again. Only a copy of the same queue's document is replaced (its
// payload's "queue"): the role that set the dead-letter queue may push there,
// which does not let it change other documents. Redrive is doc_retry on the
// original queue.
//
// A copy is a delivery on someone else's behalf, as a route's is: the role
// that set the dead-letter queue (recorded in fetchq.queues.dead_letter_set_by
// by queue_set_dead_letter, or by a trigger for a plain write of the row,
// sql_api/queues/queue_settings.cpp) must manage the killing queue and be allowed
// to push into the dead-letter queue, with no row security applying to it
// there (ops/routes/route_rights.hpp); checked when it is set and at each copy. The
// copies are inserted as the dead-letter queue's owner (pg/as_user.hpp), so
// its triggers run as that owner, never as whoever killed the document: a
// consumer, a superuser, or the scheduler acting as the queue's owner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// A killed document, copied out of SPI_tuptable.
struct KilledDoc {
    std::string subject;
    std::optional<std::string> payload;  // jsonb as text
    int64_t attempts = 0;
};

// The copy of a dead document already in a dead-letter queue.
struct DeadCopy {
    int64_t status = 0;
    int64_t deaths = 1;
};

// A queue's dead-letter queue and who set it.
struct DeadLetter {
    std::string queue;
    // InvalidOid: not recorded (set before 0.2.1): the killing queue's owner
    // stands for it.
    Oid set_by = InvalidOid;
};

// The dead-letter queue of `queue`, if it has one.
std::optional<DeadLetter> dead_letter_queue(const std::string& queue);

// Rows `rows` of SPI_tuptable whose column `status_col` says killed, with
// subject, payload::text and attempts in the columns from `first_col` on.
std::vector<KilledDoc> killed_rows(const std::vector<uint64_t>& rows, int status_col,
                                   int first_col);

// The role the copies are pushed as: the dead-letter queue's owner, once
// `set_by` (InvalidOid: the owner of `queue`) is found to hold manage on
// `queue` and push on `dead_letter` without row security there; 42501
// otherwise, 42704 when the dead-letter queue has no tables. `setting`: the
// check of queue_set_dead_letter, for its caller.
Oid dead_letter_receiver(const std::string& queue, const std::string& dead_letter, Oid set_by,
                         bool setting = false);

// Pushes the copies into the dead-letter queue (the caller has looked it up).
void send_to_dead_letters(const std::string& queue, const DeadLetter& dead_letter,
                          const std::vector<KilledDoc>& docs, const std::string& error);

}  // namespace fetchq::ops
