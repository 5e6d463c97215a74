// A message appended without the executor once its key has a head row: the
// head row found through the primary key and updated in place with the next
// offset (waiting for another append to the key as UPDATE does; READ
// COMMITTED then numbers after what that one committed, REPEATABLE READ
// fails with 40001), and the message inserted with its primary key entry.
// An append ran a statement of two inserts, one with ON CONFLICT, whose
// executor start cost more than both writes.
//
// The first message of a key (no head row yet: an insert that may conflict
// with another appender's), a read-only transaction, and tables changed
// from what the extension creates (a trigger, row security, a CHECK
// constraint, another index, another default, privileges granted only on
// columns) are left to SQL (ops/streams/streams.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// The message's offset, or nothing when SQL is to append it. The caller
// holds the stream's append lock and an SPI connection (its memory is used).
std::optional<int64_t> append_in_place(int32_t stream, const std::string& key, Datum payload,
                                       bool payload_null);

}  // namespace fetchq::ops
