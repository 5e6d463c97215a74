#include "core/counter_columns.hpp"

namespace fetchq::core {

std::optional<std::size_t> counter_column(std::string_view metric) {
    for (std::size_t i = 0; i < kCounterColumns.size(); ++i)
        if (kCounterColumns[i] == metric) return i;
    return std::nullopt;
}

SplitDeltas split_counter_deltas(const std::vector<MetricDelta>& sorted) {
    SplitDeltas out;
    for (const MetricDelta& d : sorted) {
        const std::optional<std::size_t> column = counter_column(d.metric);
        if (!column) {
            out.others.push_back(d);
            continue;
        }
        if (out.rows.empty() || out.rows.back().queue != d.queue)
            out.rows.push_back(CounterRow{d.queue, {}});
        std::optional<int64_t>& slot = out.rows.back().deltas[*column];
        slot = slot.value_or(0) + d.delta;
    }
    return out;
}

}  // namespace fetchq::core
