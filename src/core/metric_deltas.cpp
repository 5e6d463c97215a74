#include "core/metric_deltas.hpp"

#include <algorithm>
#include <tuple>

namespace fetchq::core {

void MetricDeltas::add(std::string_view queue, std::string_view metric, int64_t delta, int level) {
    if (delta == 0) return;
    levels_[level][Key(std::string(queue), std::string(metric))] += delta;
}

void MetricDeltas::commit_subtransaction(int level) {
    auto it = levels_.find(level);
    if (it == levels_.end()) return;
    Counters moved = std::move(it->second);
    levels_.erase(it);
    Counters& parent = levels_[level - 1];
    for (auto& [key, value] : moved) parent[key] += value;
}

void MetricDeltas::abort_subtransaction(int level) {
    // Deeper levels are already folded or gone, but be safe: drop all >= level.
    levels_.erase(levels_.lower_bound(level), levels_.end());
}

// `level` is the deepest level alive, so adding the opposite of the total
// there cancels it; rolling that level back brings the outer changes back.
void MetricDeltas::forget(std::string_view queue, std::string_view metric, int level) {
    add(queue, metric, -pending(queue, metric), level);
}

void MetricDeltas::forget_queue(std::string_view queue, int level) {
    for (const MetricDelta& d : totals())
        if (d.queue == queue) add(d.queue, d.metric, -d.delta, level);
}

int64_t MetricDeltas::pending(std::string_view queue, std::string_view metric) const {
    int64_t sum = 0;
    Key key{std::string(queue), std::string(metric)};
    for (const auto& [level, counters] : levels_) {
        auto it = counters.find(key);
        if (it != counters.end()) sum += it->second;
    }
    return sum;
}

std::vector<MetricDelta> MetricDeltas::totals() const {
    // Without savepoints there is one level: nothing to sum.
    Counters summed;
    if (levels_.size() > 1)
        for (const auto& [level, counters] : levels_)
            for (const auto& [key, value] : counters) summed[key] += value;
    const Counters& total = levels_.size() == 1 ? levels_.begin()->second : summed;
    std::vector<MetricDelta> out;
    out.reserve(total.size());
    for (const auto& [key, value] : total)
        if (value != 0) out.push_back({key.first, key.second, value});
    std::sort(out.begin(), out.end(), [](const MetricDelta& a, const MetricDelta& b) {
        return std::tie(a.queue, a.metric) < std::tie(b.queue, b.metric);
    });
    return out;
}

std::vector<MetricDelta> MetricDeltas::drain() {
    std::vector<MetricDelta> out = totals();
    levels_.clear();
    return out;
}

}  // namespace fetchq::core
