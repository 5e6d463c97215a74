// What a consumer does with a document it picked (active): complete, kill,
// drop, reschedule, reject, extend its lock; and doc_retry's way back for a
// killed one. A document that is not active (for retry: not killed) is left
// alone and the call returns 0. `attempts`, when given, fences the call: it
// acts only while the document's attempts still equal it, so a worker whose
// lock expired and whose document was picked again cannot finish it. Every
// function needs an SPI connection; counters go to the transaction's tally.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

using Fence = std::optional<int32_t>;

int64_t complete(const std::string& queue, const std::string& subject, Datum payload,
                 bool payload_null, Fence attempts);
int64_t kill(const std::string& queue, const std::string& subject, Datum payload, bool payload_null,
             Fence attempts);
// Completes the active documents among `subjects` (text[]).
int64_t complete_many(const std::string& queue, Datum subjects);
int64_t drop(const std::string& queue, const std::string& subject, Fence attempts);
int64_t reschedule(const std::string& queue, const std::string& subject, TimestampTz next_iteration,
                   Datum payload, bool payload_null, Fence attempts);

struct Rejection {
    std::string message;
    Datum details = 0;
    bool details_null = true;
    std::optional<std::string> ref_id;
    // Pickable again `delay` from now; without one, when its lock ends (Fetchq 4).
    const Interval* delay = nullptr;
};
// Back to pending, or killed once its attempts reached max_attempts; the
// reason goes to the queue's log.
int64_t reject(const std::string& queue, const std::string& subject, const Rejection& why,
               Fence attempts);

// Moves the lock end of an active document to now + `lock`.
int64_t extend(const std::string& queue, const std::string& subject, const Interval* lock,
               Fence attempts);

// doc_cancel: a planned, pending or waiting document killed at once, with
// a row in the queue's log ("cancelled", and `reason` when given); the
// documents waiting on it are killed as a killed dependency's are. No copy
// goes to the dead-letter queue: a cancel is deliberate, not a failure.
// Returns 1, or 0 when the document is active, finished or missing.
int64_t cancel(const std::string& queue, const std::string& subject,
               const std::optional<std::string>& reason);

// A killed document back to pending (planned when `next_iteration` is
// later than now), with attempts 0.
int64_t retry(const std::string& queue, const std::string& subject, TimestampTz next_iteration);
// Every killed document, or those whose subject is LIKE `pattern`, back to
// pending now; returns how many.
int64_t retry_many(const std::string& queue, const std::optional<std::string>& pattern);

}  // namespace fetchq::ops
