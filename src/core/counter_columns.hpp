// The standard counters of a queue (Fetchq's metric names) are columns of
// one row per (queue, slot) in fetchq.counters, so a transaction writes one
// row per queue it touched however many counters changed. Other metric
// names keep a row each in fetchq.metrics.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metric_deltas.hpp"

namespace fetchq::core {

// Column order of fetchq.counters: Fetchq's metric names, and v0, the count
// of documents pushed with version 0 (every push counts one "v<version>").
inline constexpr std::array<std::string_view, 15> kCounterColumns = {
    "cnt", "pln", "pnd", "act", "cpl", "kll", "ent", "drp",
    "pkd", "prc", "res", "rej", "orp", "err", "v0"};

// The column index of a standard counter, nullopt for any other name.
std::optional<std::size_t> counter_column(std::string_view metric);

// The counters reported for every queue by fetchq.stats: Fetchq's names, in
// fetchq.counters' order, then "exp", the documents the expiry deleted, and
// "rtn", the finished documents the retention deleted (rows of
// fetchq.custom_counters). metric_get_common/all report all but rtn.
inline constexpr std::array<std::string_view, 16> kReportedCounters = {
    "cnt", "pln", "pnd", "act", "cpl", "kll", "ent", "drp",
    "pkd", "prc", "res", "rej", "orp", "err", "exp", "rtn"};

// The index of a reported counter, nullopt for any other name.
constexpr std::optional<std::size_t> reported_counter(std::string_view metric) {
    for (std::size_t i = 0; i < kReportedCounters.size(); ++i)
        if (kReportedCounters[i] == metric) return i;
    return std::nullopt;
}

// One queue's changes to its standard counters (nullopt: unchanged).
struct CounterRow {
    std::string queue;
    std::array<std::optional<int64_t>, kCounterColumns.size()> deltas;
};

struct SplitDeltas {
    std::vector<CounterRow> rows;     // standard counters, one row per queue, in queue order
    std::vector<MetricDelta> others;  // every other metric, in the input's order
};

// Splits changes sorted by (queue, metric), as MetricDeltas::totals() gives them.
SplitDeltas split_counter_deltas(const std::vector<MetricDelta>& sorted);

}  // namespace fetchq::core
