// The generation of fetchq's catalog as this backend knows it: bumped by
// every relcache invalidation of fetchq.queues, fetchq.routes,
// fetchq.queue_grants, fetchq.streams, fetchq.stream_groups,
// fetchq.stream_grants, fetchq.awaited_queues, fetchq.flow_limits,
// fetchq.flow_key_limits or fetchq.remote_routes. Statement
// triggers on these tables queue such an invalidation for any change (of
// stream_groups: any but an insert), through a function or plain SQL;
// PostgreSQL delivers it to every backend when the change commits, to the
// changing backend at its next command, and again at a rollback.
//
// CatalogCache is a per-backend cache of what a push reads of the catalog
// (queue settings, routes, queue grants, streams with their grants, and
// groups, and whether a queue's documents are waited on): it keeps the generation its
// entries were read at and drops them when it moved on, and keeps a value only if the generation
// did not move while it was read (an invalidation accepted during the read may be newer than what
// was read). Its readers read on the latest snapshot (pg/spi.hpp's spi_execute_latest), never an
// older one, which could hold what an invalidation already emptied.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace fetchq::ops {

uint64_t catalog_generation();
// The same as of the invalidations this backend processed so far, without
// looking the tables up: usable outside a transaction.
uint64_t catalog_generation_seen();

// Installs the invalidation callback (from _PG_init).
void catalog_generation_register();

template <typename Value>
class CatalogCache {
  public:
    // The value of `key`, read with read() when not cached (needs SPI).
    template <typename Read>
    Value get(const std::string& key, Read&& read) {
        return get(key, read, [](const Value&) { return true; });
    }

    // The same, keeping only a value that keep(value) accepts.
    template <typename Read, typename Keep>
    Value get(const std::string& key, Read&& read, Keep&& keep) {
        const uint64_t now = catalog_generation();
        if (generation_ != now) {
            entries_.clear();
            generation_ = now;
        }
        auto it = entries_.find(key);
        if (it != entries_.end()) return it->second;
        Value value = read();
        if (catalog_generation() == now && keep(value)) entries_.emplace(key, value);
        return value;
    }

    // The cached value of `key`, or nullptr when it is not cached: never
    // reads (runs no statement, leaves SPI_tuptable alone).
    const Value* peek(const std::string& key) {
        if (generation_ != catalog_generation()) return nullptr;
        auto it = entries_.find(key);
        return it == entries_.end() ? nullptr : &it->second;
    }

  private:
    std::unordered_map<std::string, Value> entries_;
    uint64_t generation_ = 0;
};

}  // namespace fetchq::ops
