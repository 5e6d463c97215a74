#include "ops/documents/doc_moves.hpp"

#include "ops/flow/flow_limits.hpp"
#include "ops/shared_memory/pick_start.hpp"
#include "ops/shared_memory/pick_wake.hpp"
#include "ops/shared_memory/queue_activity.hpp"

#include <string>

#include "ops/counters/counters.hpp"

namespace fetchq::ops {
namespace {

void count_case(std::string_view queue, const core::MoveCase& c, int64_t n, int32_t version,
                const core::PickKey* earliest) {
    if (n == 0) return;
    // Documents that became pickable wake the queue's waiting picks at
    // commit and may move where its picks start; any move makes the queue
    // not idle (queue_activity.hpp).
    if (c.to == core::DocStatus::kPending) {
        note_pickable(queue);
        if (earliest)
            note_pickable_at(queue, version, *earliest);
        else
            note_pickable_anywhere(queue);
    }
    if (c.from == core::DocStatus::kPending) {
        note_picked(queue);
        note_pending_locked(queue);
    }
    // A document leaving status 2 frees a slot of a queue with flow limits:
    // its waiting picks look again. The setting is only looked up in the
    // cache (a move's caller may still read its statement's rows): a queue
    // this backend does not know wakes them too, in case.
    if (c.from == core::DocStatus::kActive && c.to != core::DocStatus::kPending &&
        flow_limited_cached(std::string(queue)).value_or(true))
        note_pickable(queue);
    note_activity(queue);
    for (const core::CounterDelta& d : c.deltas) metric_add(queue, d.counter, d.delta * n);
    if (c.version_delta != 0)
        metric_add(queue, core::version_counter(version), c.version_delta * n);
}

}  // namespace

void count_move(std::string_view queue, core::DocMove move, std::optional<core::DocStatus> to,
                int64_t n, int32_t version, const core::PickKey* earliest) {
    count_case(queue, core::move_spec(move).ending_in(to), n, version, earliest);
}

void count_move_from(std::string_view queue, core::DocMove move, core::DocStatus from, int64_t n,
                     int32_t version) {
    count_case(queue, core::move_spec(move).starting_from(from), n, version, nullptr);
}

void count_move_between(std::string_view queue, core::DocMove move, core::DocStatus from,
                        core::DocStatus to, int64_t n, int32_t version,
                        const core::PickKey* earliest) {
    count_case(queue, core::move_spec(move).between(from, to), n, version, earliest);
}

void count_version_change(std::string_view queue, int32_t from, int32_t to, int64_t n) {
    if (n == 0 || from == to) return;
    metric_add(queue, core::version_counter(from), -n);
    metric_add(queue, core::version_counter(to), n);
}

}  // namespace fetchq::ops
