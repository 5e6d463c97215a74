// A queue's settings that every push needs (its default_ttl), cached per
// backend so a push does not read fetchq.queues. Any change of
// fetchq.queues (a statement trigger, fetchq.queues_changed) sends a
// relcache invalidation of the table at commit, which empties every
// backend's cache; the changing transaction sees its own change at once,
// and loses it again with a rollback.
#pragma once

#include <optional>
#include <string>

#include "pg/postgres.hpp"

extern "C" {
#include "datatype/timestamp.h"
}

namespace fetchq::ops {

// The queue's default_ttl (nullopt: none, or no such queue). Needs SPI.
std::optional<Interval> queue_default_ttl(const std::string& queue);

// now() + the queue's default_ttl: the expiry of a document pushed without one.
std::optional<TimestampTz> default_expiry(const std::string& queue);

// Installs the invalidation callback (from _PG_init).
void queue_defaults_register();

}  // namespace fetchq::ops
