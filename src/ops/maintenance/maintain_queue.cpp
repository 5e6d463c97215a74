// One maintenance round of a queue, and the argument check the tasks share.
#include <string>

#include "core/error.hpp"
#include "ops/maintenance/maintenance.hpp"

namespace fetchq::ops {

void check_task_limit(int32_t limit) {
    if (limit < 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument limit must not be negative",
                          "The value was " + std::to_string(limit) + ".",
                          "Pass 0 or a positive number of documents.");
}

MaintenanceCounts maintain_queue(std::string_view queue, int32_t limit) {
    MaintenanceCounts counts;
    counts.killed = mark_dead(queue, limit);
    counts.rescheduled = reschedule_orphans(queue, limit);
    counts.activated = promote_planned(queue, limit);
    return counts;
}

}  // namespace fetchq::ops
