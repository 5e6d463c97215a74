// Counter changes made by the current transaction, kept per subtransaction
// level so that a rolled-back savepoint takes its changes with it. They are
// written to the counter tables once, just before the transaction commits.
#pragma once

#include <boost/container/flat_map.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fetchq::core {

struct MetricDelta {
    std::string queue;
    std::string metric;
    int64_t delta;
};

class MetricDeltas {
  public:
    void add(std::string_view queue, std::string_view metric, int64_t delta, int level);

    // A savepoint at `level` was released: its changes belong to level - 1.
    void commit_subtransaction(int level);
    // A savepoint at `level` was rolled back: its changes are gone.
    void abort_subtransaction(int level);

    // Cancels the pending change of one counter (it was just set to a value)
    // or of every counter of one queue, at `level` only: a rolled-back
    // savepoint must give the changes made before it back.
    void forget(std::string_view queue, std::string_view metric, int level);
    void forget_queue(std::string_view queue, int level);

    // The pending change of one counter, all levels together.
    int64_t pending(std::string_view queue, std::string_view metric) const;

    // Non-zero changes summed over levels, sorted by (queue, metric) so that
    // concurrent writers lock counter rows in the same order.
    std::vector<MetricDelta> totals() const;
    // totals(), then clears.
    std::vector<MetricDelta> drain();

    void clear() { levels_.clear(); }
    bool empty() const { return levels_.empty(); }

  private:
    using Key = std::pair<std::string, std::string>;
    struct KeyHash {
        size_t operator()(const Key& k) const {
            return std::hash<std::string>()(k.first) * 31 + std::hash<std::string>()(k.second);
        }
    };
    // A push routed to many queues adds to many counters: hashed, not sorted
    // (totals() sorts).
    using Counters = std::unordered_map<Key, int64_t, KeyHash>;
    boost::container::flat_map<int, Counters> levels_;
};

}  // namespace fetchq::core
