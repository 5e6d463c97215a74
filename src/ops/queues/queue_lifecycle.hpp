// A queue's catalog row, its three tables and its maintenance jobs come and
// go together: queue_create, queue_drop, queue_create_temporary and the
// scheduler's drop of the temporary queues of ended sessions. Every function
// needs an SPI connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// The id of a registered queue; nullopt when it has no catalog row.
std::optional<int32_t> registered_id(const std::string& queue);

struct CreatedQueue {
    bool created = false;
    int32_t id = 0;
};
// Registers the queue and creates its tables and jobs, unless it exists
// (asking again consumes no id).
CreatedQueue create_queue(const std::string& queue);

// Drops the queue's tables, catalog row, jobs and counters; returns its old
// id. Raises 42501 unless the caller may act as the owner of its tables.
int32_t drop_queue(const std::string& queue);

// A queue of the calling session, with unlogged tables, registered in
// fetchq.temporary_queues; returns its generated name. With an idle
// timeout (nullptr: none), the scheduler also drops it once nothing was
// pushed into or picked from it for that long.
std::string create_temporary_queue(const Interval* idle_timeout = nullptr);

}  // namespace fetchq::ops
