// doc_send: the full push. A document goes in as doc_push puts it
// (ops/documents/doc_push.hpp: unique subject, routes and topics, counters),
// with its payload as given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/documents/doc_dependencies.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

struct SendDoc {
    std::string queue;
    std::string subject;
    Datum payload = 0;
    bool payload_null = false;
    int32_t version = 0;
    int32_t priority = 0;
    TimestampTz next_iteration = 0;
    // none: the queue's default_ttl, as doc_push
    std::optional<TimestampTz> expires_at;
    std::vector<DocRef> depends_on;
    std::optional<std::string> reply_to;
    // if_finished => 'requeue': a completed or killed document of that
    // subject runs again (ops/documents/doc_push.hpp's requeue_finished);
    // else ('skip') it is left alone, as doc_push leaves it.
    bool requeue_finished = false;
    // The document's key for the queue's flow limits; none: not limited per key.
    std::optional<std::string> flow_key;
};

// Sends one document; returns what doc_push returns (1 queued, 0 when the
// subject exists; into a topic, the copies queued), and 1 for a finished
// document requeued. `caller` is the role
// that called doc_send (its rights on the queues of depends_on and
// reply_to are checked). Needs SPI, inside the queue's push scope
// (ops/queues/queue_access.hpp).
int64_t send(const SendDoc& doc, Oid caller);

}  // namespace fetchq::ops
