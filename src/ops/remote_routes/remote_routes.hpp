// Remote routes as catalog rows and as the replication objects that carry
// them (README.md): on the sending database, remote_route_create and
// remote_route_drop; on the receiving one, remote_subscribe and
// remote_unsubscribe; doc_origin reads where a delivered document came from.
// Every function needs an SPI connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// A destination "link/queue": the name the receiving database subscribed
// under (remote_subscribe) and the queue there. 42602 for a bad name.
struct RemoteDestination {
    std::string link, queue;
};
RemoteDestination parse_remote_destination(const std::string& text);

// The publication and the subscription (and its slot) of a link.
std::string link_publication(const std::string& link);

// The new route's id. 42501 unless the caller may read every document of
// `source` (as route_create asks), 22023 for a bad selector, 42710 when the
// route exists. Creates the publication fetchq_remote_<link> when missing.
int64_t create_remote_route(const std::string& source, const RemoteDestination& to,
                            const std::optional<std::string>& selector);

// The dropped route's id; 42704 when there is none, 42501 unless the caller
// has the privileges of its creator or of the source's owner.
int64_t drop_remote_route(const std::string& source, const RemoteDestination& to);

// Subscribes this database to the link (superuser only, as CREATE
// SUBSCRIPTION in PostgreSQL 15): every delivery is checked against the
// rights of as_role. With create_slot the slot is created on the publishing
// server over a replication connection (not transactional: a rollback leaves
// it there); without, it must exist (a subscription within one cluster).
void remote_subscribe(const std::string& link, const std::string& conninfo, Oid as_role,
                      bool create_slot);

// Drops the subscription, and its slot on the publishing server with
// drop_slot (not transactional either).
void remote_unsubscribe(const std::string& link, bool drop_slot);

// A row of fetchq.remote_outbox as the subscription applies it.
struct Incoming {
    std::string link, queue, subject;
    int32_t version = 0, priority = 0;
    TimestampTz next_iteration = 0;
    std::optional<TimestampTz> expires_at;
    Datum payload = 0;
    bool payload_null = false;
    std::string source_db;
    std::vector<std::string> seenby;
    TimestampTz sent_at = 0;
};

// The receiving half: pushes the document into its queue (README.md).
void receive(const Incoming& doc);

struct DocOrigin {
    bool found = false;
    std::string source_db, link;
    std::vector<std::string> seenby;
    std::optional<TimestampTz> sent_at;
    TimestampTz arrived_at = 0;
};
// 42501 unless the caller may read the queue. Not found when the queue's
// document of that subject is not the one delivered (gone, or pushed again
// here since: its created_at differs), whether or not the sweep removed the
// row yet.
DocOrigin doc_origin(const std::string& queue, const std::string& subject);

// Removes every origin row of `queue` (queue_truncate: its documents go).
void forget_queue_origins(const std::string& queue);

// The queues that have origin rows, in name order (as the catalog's owner).
std::vector<std::string> queues_with_origins();

// One batch of the sweep of fetchq.doc_origins (the scheduler's task
// origins): reads the next `batch` rows of `queue` whose subject sorts after
// `after`, and removes those whose document is no longer the delivered one
// (gone, or pushed again with another created_at); a row a delivery
// replaced meanwhile stays. The rows are read and removed as the catalog's
// owner, the documents read as the queue's owner. Needs SPI, in a
// transaction of its own.
struct OriginSweep {
    int64_t checked = 0, removed = 0;
    std::string last;     // the last subject checked: where the next batch starts
    bool at_end = false;  // fewer than `batch` rows were left: the pass is over
};
OriginSweep sweep_origins(const std::string& queue, const std::string& after, int32_t batch);

}  // namespace fetchq::ops
