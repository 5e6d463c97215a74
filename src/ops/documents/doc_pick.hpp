// Taking documents: the statement of doc_pick and the counters of a pick.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/pick_start.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

// Makes up to `limit` due pending documents of `version` active, locked for
// `lock` (and tied to this session when `session_bound`), in pick order;
// returns how many, their rows in SPI_tuptable (subject, payload, version,
// priority, attempts, iterations, created_at, last_iteration,
// next_iteration, lock_upgrade). Needs an SPI connection.
// Picks start where the documents still to take begin (ops/shared_memory/pick_start.hpp).
uint64_t pick(const std::string& queue, int32_t version, int32_t limit, Interval* lock,
              bool session_bound);

// From doc_pick_position, for each document the running pick takes: its
// place in pick order before the pick (known: no NULL in it), and whether a
// pending document not due yet lies before it (none: not looked for).
void note_pick_position(bool known, const core::PickKey& key, std::optional<bool> waits_before);

}  // namespace fetchq::ops
