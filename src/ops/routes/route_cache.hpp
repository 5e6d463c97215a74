// The routes out of each queue, cached per backend (ops/catalog/catalog_cache.hpp)
// so that a warm push reads no catalog: any committed change of
// fetchq.routes or fetchq.queues reaches every backend's next push.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct Route {
    int64_t id = 0;
    std::string source, destination;
    Oid owner = InvalidOid;  // the role that created it: delivery runs as that role
    // The jsonpath's bytes (empty: no selector, every document matches).
    std::string selector;
    bool uses_variables = false;
    // A remote route (fetchq.remote_routes; ops/routes/remote_outbox.hpp):
    // its copies go to the outbox, for queue `remote_queue` of the database
    // subscribed as `link`; destination reads "link/queue".
    bool remote = false;
    std::string link, remote_queue;
    Datum selector_datum() const { return PointerGetDatum(selector.data()); }
};

struct QueueRoutes {
    bool is_topic = false;
    bool any_variables = false;  // some selector reads $subject, $version or $priority
    std::vector<Route> routes;   // in the order they were created, remote ones last
};

// The routes out of `queue` (none for a missing queue). Shared: a cache
// emptied during a delivery leaves the caller's copy intact. Needs SPI.
std::shared_ptr<const QueueRoutes> routes_from(const std::string& queue);

}  // namespace fetchq::ops
