// How long a queue keeps its logs and its metric history: the retention
// rules, and the deletes that apply them (queue_drop_logs,
// queue_drop_metrics and the 'drp' job).
//
// A metrics retention is a JSON array of rules {"from", "to", "retain"}: in
// the rows written between now() - from and now() - to, only the latest row
// of each metric per date_trunc(retain, created_at) is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

inline constexpr const char* kDefaultLogsRetention = "24h";
inline constexpr std::size_t kMaxLogsRetentionLength = 25;  // fetchq.queues.logs_retention
extern const char* const kRetentionHint;

struct RetentionRule {
    Interval from;
    Interval to;
    std::string retain;
};

// A duration that is not negative ("older than -1h" would mean the future);
// `where` names its origin in errors, e.g. "for argument retention".
Interval retention_interval(const std::string& text, const std::string& where);
// Raises unless `unit` is one date_trunc accepts for timestamptz.
void check_trunc_unit(const std::string& unit, const std::string& where);
// Reads and checks every rule of a retention config (jsonb); needs SPI.
std::vector<RetentionRule> retention_rules(Datum config, const std::string& where);
// `now` minus `keep`.
TimestampTz before(TimestampTz now, Interval keep);

// Deletes the queue's log rows written before `cutoff`; returns how many.
int64_t drop_logs_before(const std::string& queue, TimestampTz cutoff);
// The same with the queue's logs_retention (default 24h).
int64_t drop_logs_by_setting(const std::string& queue);
// Applies rules to the queue's metric history; returns the rows deleted.
int64_t apply_metrics_retention(const std::string& queue, const std::vector<RetentionRule>& rules);
// The same with the queue's metrics_retention (none: nothing is deleted).
int64_t drop_metrics_by_setting(const std::string& queue);

}  // namespace fetchq::ops
