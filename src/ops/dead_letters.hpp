// Dead letters: a queue may name another queue that receives a copy of every
// document it kills (by doc_kill, by doc_reject or the orphan pass once its
// attempts are used up, or when its session-bound picker ended), in the same
// transaction, under the same subject. The copy's payload says where it came
// from: {"queue", "payload", "attempts", "error"}. Redrive is doc_retry on
// the original queue.
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

// The dead-letter queue of `queue`, if it has one.
std::optional<std::string> dead_letter_queue(const std::string& queue);

// Rows `rows` of SPI_tuptable whose column `status_col` says killed, with
// subject, payload::text and attempts in the columns from `first_col` on.
std::vector<KilledDoc> killed_rows(const std::vector<uint64_t>& rows, int status_col,
                                   int first_col);

// The role the copies are pushed as: the caller's current one; for a
// dead-letter queue with grants of its own (ops/queue_access.hpp), that
// queue's owner, once the killing queue's owner (who kills for the scheduler
// and for granted calls) is found to hold push there (42501 otherwise).
Oid dead_letter_receiver(const std::string& queue, const std::string& dead_letter);

// Pushes the copies into `dead_letter` (the caller has looked it up).
void send_to_dead_letters(const std::string& queue, const std::string& dead_letter,
                          const std::vector<KilledDoc>& docs, const std::string& error);

}  // namespace fetchq::ops
