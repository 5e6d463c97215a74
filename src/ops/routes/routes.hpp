// Routes and topics as catalog rows: route_create checks the caller's rights,
// the selector and the cycles, then writes fetchq.routes as that table's
// owner (no role writes it directly); route_drop removes one. Topics are
// queues marked is_topic. Every function needs an SPI connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fetchq::ops {

// The new route's id. Raises 42501 unless the caller may read `source` and
// push into `destination`, 22023 for a bad selector or a cycle (a self-route
// included), 42710 when the route exists. The cycle is checked again when
// the transaction commits, against the routes committed since: a commit
// that would close a cycle fails with 22023 too.
int64_t create_route(const std::string& source, const std::string& destination,
                     const std::optional<std::string>& selector);

// Registers the check at commit; in _PG_init, before the other transaction
// callbacks, so that it runs last and holds its lock for the least time.
void routes_register_callbacks();

// The dropped route's id. Raises 42704 when there is none, 42501 unless the
// caller has the privileges of its creator or of the owner of either queue.
int64_t drop_route(const std::string& source, const std::string& destination);

struct CreatedTopic {
    bool created = false;
    int32_t id = 0;
};
// A queue that keeps nothing and only routes; an existing topic is not an
// error, an existing queue that is not a topic is (42710).
CreatedTopic create_topic(const std::string& topic);

// Raises "queue does not exist", or 42809 when the queue is not a topic.
void require_topic(const std::string& topic);

}  // namespace fetchq::ops
