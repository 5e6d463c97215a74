// The counters of the document moves (core/doc_status.hpp's table), added to
// the transaction's tally (ops/counters/counters.hpp): no move names its counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/doc_status.hpp"
#include "core/pick_start.hpp"

namespace fetchq::ops {

// `n` documents of `version` made `move` and ended in `to` (core::kDeleted:
// deleted). Documents that ended pending: `earliest`, when given, is the
// first of them in pick order; else they may lie anywhere (ops/shared_memory/pick_start.hpp).
void count_move(std::string_view queue, core::DocMove move, std::optional<core::DocStatus> to,
                int64_t n, int32_t version = 0, const core::PickKey* earliest = nullptr);

// The same for a move whose counters depend on where it started (expire).
void count_move_from(std::string_view queue, core::DocMove move, core::DocStatus from, int64_t n,
                     int32_t version = 0);

// The same for a move whose counters depend on both ends (requeue).
void count_move_between(std::string_view queue, core::DocMove move, core::DocStatus from,
                        core::DocStatus to, int64_t n, int32_t version = 0,
                        const core::PickKey* earliest = nullptr);

// `n` documents changed their version from `from` to `to` (requeue): the
// version counters follow them.
void count_version_change(std::string_view queue, int32_t from, int32_t to, int64_t n);

}  // namespace fetchq::ops
