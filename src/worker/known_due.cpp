#include "worker/known_due.hpp"

#include <unordered_map>
#include <unordered_set>

#include "ops/catalog/catalog_cache.hpp"
#include "ops/shared_memory/queue_activity.hpp"

namespace fetchq::worker {
namespace {

struct KnownDue {
    TimestampTz due;
    DueReading reading;
};

std::unordered_map<std::string, KnownDue>& known() {
    static std::unordered_map<std::string, KnownDue> map;
    return map;
}

}  // namespace

DueReading begin_due_reading() {
    return DueReading{GetCurrentTimestamp(), ops::catalog_generation_seen()};
}

bool known_due(const std::string& queue, TimestampTz now, TimestampTz* due) {
    auto it = known().find(queue);
    if (it == known().end()) return false;
    const KnownDue& k = it->second;
    // A commit that moved documents records its time after it became
    // visible: one before the reading began is in what the reading saw.
    const bool holds = k.due > now && ops::last_activity(queue) < k.reading.started &&
                       k.reading.generation == ops::catalog_generation_seen() &&
                       now < TimestampTzPlusMilliseconds(k.reading.started, kRecheckMs);
    if (holds) *due = k.due;
    return holds;
}

void remember_due(const std::string& queue, const DueReading& reading, TimestampTz due) {
    known()[queue] = KnownDue{due, reading};
}

void forget_due_of(const std::string& queue) { known().erase(queue); }

void retain_known_dues(const std::vector<std::string>& queues) {
    const std::unordered_set<std::string> listed(queues.begin(), queues.end());
    for (auto it = known().begin(); it != known().end();)
        it = listed.count(it->first) ? std::next(it) : known().erase(it);
}

}  // namespace fetchq::worker
