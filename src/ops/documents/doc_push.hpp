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
int64_t push_one(const std::string& queue, const std::string& subject, int32_t version,
                 int32_t priority, TimestampTz next_iteration, Datum payload, bool payload_null,
                 Expiry expiry = Expiry::queue_default());

// Many documents in one statement (text[], int4[], jsonb[]); duplicates, in
// the table or the batch, skipped. Returns the documents queued (into a
// topic: the copies its destinations queued).
int64_t push_batch(const std::string& queue, Datum subjects, Datum priorities, Datum payloads,
                   int32_t version, TimestampTz next_iteration,
                   Expiry expiry = Expiry::queue_default());

// doc_upsert's second half: priority, payload and next_iteration of a
// document that is not active; returns 1 when it changed one.
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
