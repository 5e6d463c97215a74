// Documents into a queue: the statements of doc_push, doc_push_many,
// doc_append and doc_upsert, the counters of each push, and the delivery of
// what arrived through the queue's routes (ops/documents/route_delivery.hpp). A topic
// keeps nothing: a push into it only delivers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Raises 22023 for an empty subject, 22001 for one over 50 characters.
void check_subject(const std::string& subject);
// The same for every element of a text[].
void check_subjects(ArrayType* subjects);

// Where the expiry of pushed documents comes from: now() + the queue's
// default_ttl, or given (none included: a routed copy keeps its source's).
struct Expiry {
    bool from_queue = true;
    std::optional<TimestampTz> at;
    static Expiry queue_default() { return {}; }
    static Expiry given(std::optional<TimestampTz> at) { return {false, at}; }
};

// One document; 1 when queued, 0 when the subject already exists. Into a
// topic: the number of destinations that queued it.
// `flow_key`: the document's key for the queue's flow limits
// (ops/flow/flow_limits.hpp); none for every Fetchq 4 push.
int64_t push_one(const std::string& queue, const std::string& subject, int32_t version,
                 int32_t priority, TimestampTz next_iteration, Datum payload, bool payload_null,
                 Expiry expiry = Expiry::queue_default(),
                 const std::optional<std::string>& flow_key = std::nullopt);

// A completed or killed document of that subject pending again (planned
// when `next_iteration` is later than now), in one statement: the new
// payload, version, priority, next_iteration and expiry, attempts 0,
// created_at now() (a request's reply_to is its own again); its log and
// iterations stay. Counted as the requeue move; a queue with routes delivers
// it again, as an arrival. Returns 1, or 0 when the subject is missing, not
// finished, or has a lock_upgrade (Fetchq 4's: never re-queued). Not for a
// topic (it keeps nothing).
// A change of an existing document by `function` (doc_upsert, doc_send's
// requeue) needs more than push, as PostgreSQL's INSERT ... ON CONFLICT DO
// UPDATE needs UPDATE besides INSERT: `caller` must hold pick on a queue with
// grants, UPDATE on its documents table on a queue without; 42501 otherwise.
void require_change(const std::string& queue, const std::string& subject, Oid caller,
                    const std::string& function);

// 0A000 for a topic: it keeps no document to requeue.
void check_requeue_target(const std::string& queue);
int64_t requeue_finished(const std::string& queue, const std::string& subject, int32_t version,
                         int32_t priority, TimestampTz next_iteration, Datum payload,
                         bool payload_null, Expiry expiry = Expiry::queue_default(),
                         const std::optional<std::string>& flow_key = std::nullopt);

// Many documents in one statement (text[], int4[], jsonb[]); duplicates, in
// the table or the batch, skipped. Returns the documents queued (into a
// topic: the copies its destinations queued).
int64_t push_batch(const std::string& queue, Datum subjects, Datum priorities, Datum payloads,
                   int32_t version, TimestampTz next_iteration,
                   Expiry expiry = Expiry::queue_default());

// doc_upsert's second half: priority, payload and next_iteration of a
// document that is not active; returns 1 when it changed one. A completed
// or killed document is changed too and stays as it is (Fetchq 4's
// doc_upsert does the same, and reports it updated): doc_send's
// if_finished => 'requeue' runs it again.
int64_t update_not_active(const std::string& queue, const std::string& subject, int32_t priority,
                          Datum payload, bool payload_null, TimestampTz next_iteration);

// doc_upsert: push_one, or else, when the subject exists, update_not_active.
// Changing a document needs more than push, as PostgreSQL's INSERT ... ON
// CONFLICT DO UPDATE needs UPDATE besides INSERT: `caller` must hold pick on
// a queue with grants, UPDATE on its documents table on a queue without;
// 42501 otherwise (a new subject is still inserted with push alone).
struct Upserted {
    int64_t queued = 0;
    int64_t updated = 0;
};
Upserted upsert_one(const std::string& queue, const std::string& subject, int32_t version,
                    int32_t priority, TimestampTz next_iteration, Datum payload, bool payload_null,
                    Oid caller);

}  // namespace fetchq::ops
