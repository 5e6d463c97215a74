// A queue's settings that every push needs (its default_ttl), cached per
// backend (ops/catalog/catalog_cache.hpp) so a push does not read fetchq.queues.
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

}  // namespace fetchq::ops
