// Delivery through routes: a document that arrived in a queue (pushed into
// it, or offered to a topic) is pushed into the destination of every route
// out of that queue whose selector it matches, in the same transaction, with
// the rights of the route's creator (checked here, at delivery) in a
// security-restricted context with a GUC nest level of its own. An arrival
// in a destination is an arrival there too: its routes apply in turn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/routes/route_cache.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

// One document as it arrived; a copy keeps every field, its expiry included.
struct Arrival {
    std::string subject;
    int32_t version = 0, priority = 0;
    TimestampTz next_iteration = 0;
    Datum payload = 0;
    bool payload_null = false;
    std::optional<TimestampTz> expires_at;
    // A copy keeps its source's key (doc_send's flow_key).
    std::optional<std::string> flow_key;
};

// Documents that arrived in one statement: their own subjects, priorities
// and payloads (text, int4 and jsonb Datums), the rest shared.
struct Arrivals {
    std::vector<Datum> subjects, priorities, payloads;
    std::vector<bool> payload_nulls;
    int32_t version = 0;
    TimestampTz next_iteration = 0;
    std::optional<TimestampTz> expires_at;
};

// Delivers through the routes out of a queue; returns the copies queued (a
// subject that exists in a destination is skipped there). Needs SPI.
int64_t deliver(const QueueRoutes& from, const Arrival& doc);
int64_t deliver(const QueueRoutes& from, const Arrivals& docs);

}  // namespace fetchq::ops
