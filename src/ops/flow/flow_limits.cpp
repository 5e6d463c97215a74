#include "ops/flow/flow_limits.hpp"

#include "core/flow_rate.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "ops/catalog/catalog_cache.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

constexpr const char* kFlowPickIndexSuffix = "__docs_flow_pick_idx";
constexpr const char* kFlowActiveIndexSuffix = "__docs_flow_active_idx";

std::optional<int32_t> optional_int(uint64_t row, int col) {
    bool isnull = true;
    const Datum value = spi_value(row, col, &isnull);
    if (isnull) return std::nullopt;
    return DatumGetInt32(value);
}

std::shared_ptr<const FlowLimits> read_limits(const std::string& queue) {
    SPIPlanPtr queue_plan =
        cached_plan("", "flow_limits_read",
                    [] {
                        return std::string(
                            "SELECT max_active, key_max_active, key_rate,"
                            " (pg_catalog.date_part('epoch', key_rate_interval) * 1000000)::int8,"
                            " key_burst, fair FROM fetchq.flow_limits WHERE queue = $1");
                    },
                    {TEXTOID});
    SPIPlanPtr keys_plan = cached_plan(
        "", "flow_key_limits_read",
        [] {
            return std::string(
                "SELECT flow_key, key_max_active, key_rate FROM fetchq.flow_key_limits"
                " WHERE queue = $1 AND (key_max_active IS NOT NULL OR key_rate IS NOT NULL)");
        },
        {TEXTOID});
    auto limits = std::make_shared<FlowLimits>();
    Datum arg = to_text(queue);
    as_catalog_owner([&] {
        if (spi_execute_latest(queue_plan, &arg, nullptr) > 0) {
            limits->max_active = optional_int(0, 1);
            limits->key_max_active = optional_int(0, 2);
            limits->key_rate = optional_int(0, 3);
            limits->rate_interval_us = std::max<int64_t>(1000, spi_int(0, 4, 1000000));
            limits->key_burst = optional_int(0, 5).value_or(0);
            bool isnull = true;
            const Datum fair = spi_value(0, 6, &isnull);
            limits->fair = !isnull && DatumGetBool(fair);
        }
        const uint64_t n = spi_execute_latest(keys_plan, &arg, nullptr);
        for (uint64_t row = 0; row < n; ++row) {
            const std::string key = spi_text(row, 1);
            if (const std::optional<int32_t> cap = optional_int(row, 2))
                limits->key_caps.emplace(key, *cap);
            if (const std::optional<int32_t> rate = optional_int(row, 3))
                limits->key_rates.emplace(key, *rate);
        }
    });
    if (!limits->max_active && !limits->per_key()) return nullptr;
    return limits;
}

// The moment the key's next pick is due (its theoretical arrival time), as
// recorded by the last pick that committed; 0 when none was.
int64_t read_due(const std::string& queue, const std::string& key) {
    SPIPlanPtr plan = cached_plan(
        "", "flow_key_due_read",
        [] {
            return std::string(
                "SELECT next_due FROM fetchq.flow_key_rates WHERE queue = $1 AND flow_key = $2");
        },
        {TEXTOID, TEXTOID});
    Datum args[2] = {to_text(queue), to_text(key)};
    int64_t due = 0;
    as_catalog_owner([&] {
        if (spi_execute_latest(plan, args, nullptr) > 0) {
            bool isnull = true;
            const Datum v = spi_value(0, 1, &isnull);
            if (!isnull) due = DatumGetTimestampTz(v);
        }
    });
    return due;
}

// The active documents of the queue (of one key when `key`), on the latest
// committed state and this transaction's own changes.
int64_t count_active(const std::string& queue, const std::string* key) {
    const std::string where = "status = " + status_sql::active;
    if (!key) {
        SPIPlanPtr plan = queue_plan(
            queue, "flow_count_active",
            [&] { return "SELECT count(*) FROM " + docs_rel(queue) + " WHERE " + where; }, {});
        spi_execute_latest(plan, nullptr, nullptr);
        return spi_int(0, 1);
    }
    SPIPlanPtr plan = queue_plan(queue, "flow_count_key_active",
                                 [&] {
                                     return "SELECT count(*) FROM " + docs_rel(queue) + " WHERE " +
                                            where + " AND flow_key = $1";
                                 },
                                 {TEXTOID});
    Datum arg = to_text(*key);
    spi_execute_latest(plan, &arg, nullptr);
    return spi_int(0, 1);
}

bool index_exists(const std::string& name) {
    const char* relname = name.c_str();
    return pg_call([&] {
        Oid schema = get_namespace_oid("fetchq_data", false);
        return OidIsValid(get_relname_relid(relname, schema));
    });
}

CatalogCache<std::shared_ptr<const FlowLimits>>& limits_cache() {
    static CatalogCache<std::shared_ptr<const FlowLimits>> cache;
    return cache;
}

}  // namespace

std::shared_ptr<const FlowLimits> flow_limits(const std::string& queue) {
    return limits_cache().get(queue, [&] { return read_limits(queue); });
}

std::optional<bool> flow_limited_cached(const std::string& queue) {
    const std::shared_ptr<const FlowLimits>* cached = limits_cache().peek(queue);
    if (!cached) return std::nullopt;
    return *cached != nullptr;
}

std::optional<int64_t> queue_room(const std::string& queue, int32_t max_active, bool wait) {
    SPIPlanPtr plan = cached_plan("", wait ? "flow_queue_lock" : "flow_queue_lock_nowait",
                                  [wait] {
                                      return std::string(
                                                 "SELECT 1 FROM fetchq.flow_limits WHERE queue = $1"
                                                 " FOR NO KEY UPDATE") +
                                             (wait ? "" : " SKIP LOCKED");
                                  },
                                  {TEXTOID});
    Datum arg = to_text(queue);
    uint64_t locked = 0;
    as_catalog_owner([&] { locked = spi_execute_current(plan, &arg, nullptr); });
    if (locked == 0) return std::nullopt;
    return std::max<int64_t>(0, max_active - count_active(queue, nullptr));
}

int64_t key_room(const std::string& queue, const std::string& key, const FlowLimits& limits,
                 bool wait, KeyRate* rate) {
    const std::optional<int32_t> cap = limits.cap_of(key);
    const std::optional<int32_t> per_interval = limits.rate_of(key);
    if (!cap && !per_interval) return INT64_MAX;
    // A transaction-level advisory lock of the key: (the OID of the queue's
    // documents table, a hash of the key). Two keys with the same hash
    // share a lock, which can only hold one back while the other is being
    // picked, never let one past its limits. Nothing is written to take it:
    // no transaction ever waits for another that made a lock.
    const std::string docs = queue + "__docs";
    const char* docs_name = docs.c_str();
    const char* key_data = key.data();
    const int key_len = static_cast<int>(key.size());
    const bool held = pg_call([&] {
        const Oid relid = get_relname_relid(docs_name, get_namespace_oid("fetchq_data", false));
        const int32 hash = static_cast<int32>(
            DatumGetUInt32(hash_any(reinterpret_cast<const unsigned char*>(key_data), key_len)));
        const Datum class_id = Int32GetDatum(static_cast<int32>(relid));
        if (wait) {
            DirectFunctionCall2(pg_advisory_xact_lock_int4, class_id, Int32GetDatum(hash));
            return true;
        }
        return DatumGetBool(
            DirectFunctionCall2(pg_try_advisory_xact_lock_int4, class_id, Int32GetDatum(hash)));
    });
    if (!held) return 0;
    int64_t room = cap ? std::max<int64_t>(0, *cap - count_active(queue, &key)) : INT64_MAX;
    if (per_interval && room > 0) {
        // core/flow_rate.hpp. The clock is read under the key's lock, after
        // the pick before committed.
        const int64_t emission = core::rate_emission(limits.rate_interval_us, *per_interval);
        const int64_t now = pg_call([] { return static_cast<int64_t>(GetCurrentTimestamp()); });
        const int64_t due = read_due(queue, key);
        const int64_t base = core::rate_base(due, now);
        room = std::min(room, core::rate_allowed(due, now, emission, limits.key_burst));
        if (rate) *rate = KeyRate{true, base, emission};
    }
    return room;
}

void note_key_picks(const std::string& queue, const std::string& key, const KeyRate& rate,
                    int64_t picked) {
    if (!rate.limited || picked <= 0) return;
    SPIPlanPtr plan = cached_plan(
        "", "flow_key_due_write",
        [] {
            return std::string(
                "INSERT INTO fetchq.flow_key_rates (queue, flow_key, next_due) VALUES ($1, $2, $3)"
                " ON CONFLICT (queue, flow_key) DO UPDATE SET next_due = EXCLUDED.next_due");
        },
        {TEXTOID, TEXTOID, TIMESTAMPTZOID});
    Datum args[3] = {to_text(queue), to_text(key),
                     TimestampTzGetDatum(rate.base_us + picked * rate.emission_us)};
    as_catalog_owner([&] { spi_execute_current(plan, args, nullptr); });
}

void create_flow_indexes(const std::string& queue) {
    const std::string pick = queue + kFlowPickIndexSuffix;
    if (!index_exists(pick))
        spi_execute_text("CREATE INDEX IF NOT EXISTS " + quote_ident(pick) + " ON " +
                         docs_rel(queue) +
                         " (version, flow_key, priority DESC, next_iteration, attempts)"
                         " WHERE status = " +
                         status_sql::pending + " AND lock_upgrade IS NULL");
    const std::string active = queue + kFlowActiveIndexSuffix;
    if (!index_exists(active))
        spi_execute_text("CREATE INDEX IF NOT EXISTS " + quote_ident(active) + " ON " +
                         docs_rel(queue) + " (flow_key) WHERE status = " + status_sql::active);
}

int64_t held_back(const std::string& queue) {
    const std::shared_ptr<const FlowLimits> limits = flow_limits(queue);
    if (!limits) return 0;
    const std::string ready = "status = " + status_sql::pending +
                              " AND lock_upgrade IS NULL AND next_iteration <= now()"
                              " AND (expires_at IS NULL OR expires_at > now())";
    if (limits->max_active) {
        const std::string sql = "SELECT (SELECT count(*) FROM " + docs_rel(queue) +
                                " WHERE status = " + status_sql::active +
                                ") >= $1, count(*) FROM " + docs_rel(queue) + " WHERE " + ready;
        Datum arg = Int32GetDatum(*limits->max_active);
        queue_execute_once(queue, sql, {INT4OID}, &arg, nullptr, true);
        bool isnull = true;
        if (DatumGetBool(spi_value(0, 1, &isnull))) return spi_int(0, 2);
    }
    if (!limits->per_key()) return 0;
    // Per key: its ready documents when it has no room (cap, tokens).
    int64_t held = 0;
    for (const FlowKeyRow& row : flow_keys(queue, *limits)) held += row.held_back;
    return held;
}

std::vector<std::string> limited_queues() {
    SPIPlanPtr plan = cached_plan(
        "", "flow_limited_queues",
        [] {
            return std::string(
                "SELECT queue::text FROM fetchq.flow_limits UNION SELECT queue::text FROM"
                " fetchq.flow_key_limits ORDER BY 1");
        },
        {});
    std::vector<std::string> out;
    as_catalog_owner([&] {
        const uint64_t n = spi_execute(plan, nullptr, nullptr, true);
        for (uint64_t r = 0; r < n; ++r) out.emplace_back(spi_text(r, 1));
    });
    return out;
}

std::vector<FlowKeyRow> flow_keys(const std::string& queue, const FlowLimits& limits) {
    // When each rate-limited key's next pick is due.
    std::unordered_map<std::string, int64_t> due;
    SPIPlanPtr rates = cached_plan(
        "", "flow_key_rates_of",
        [] {
            return std::string(
                "SELECT flow_key, next_due FROM fetchq.flow_key_rates WHERE queue = $1");
        },
        {TEXTOID});
    Datum name = to_text(queue);
    as_catalog_owner([&] {
        const uint64_t n = spi_execute(rates, &name, nullptr, true);
        for (uint64_t r = 0; r < n; ++r) {
            bool isnull = true;
            due[spi_text(r, 1)] = DatumGetTimestampTz(spi_value(r, 2, &isnull));
        }
    });
    const std::string ready = "status = " + status_sql::pending +
                              " AND lock_upgrade IS NULL AND next_iteration <= now()"
                              " AND (expires_at IS NULL OR expires_at > now())";
    const uint64_t n = queue_execute_once(
        queue,
        "SELECT flow_key, count(*) FILTER (WHERE status = " + status_sql::active +
            "), count(*) FILTER (WHERE " + ready + ") FROM " + docs_rel(queue) +
            " WHERE flow_key IS NOT NULL AND status IN (" + status_sql::pending + ", " +
            status_sql::active + ") GROUP BY flow_key ORDER BY flow_key",
        {}, nullptr, nullptr, true);
    std::vector<FlowKeyRow> rows;
    int64_t queue_active = 0;
    for (uint64_t r = 0; r < n; ++r) {
        FlowKeyRow row;
        row.key = spi_text(r, 1);
        row.active = spi_int(r, 2);
        row.ready = spi_int(r, 3);
        rows.push_back(std::move(row));
    }
    for (const auto& [key, at] : due) {
        auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const FlowKeyRow& row) { return row.key == key; });
        if (it == rows.end()) {
            FlowKeyRow row;
            row.key = key;
            rows.push_back(std::move(row));
        }
    }
    std::sort(rows.begin(), rows.end(),
              [](const FlowKeyRow& a, const FlowKeyRow& b) { return a.key < b.key; });
    bool queue_full = false;
    if (limits.max_active) {
        queue_execute_once(
            queue,
            "SELECT count(*) FROM " + docs_rel(queue) + " WHERE status = " + status_sql::active, {},
            nullptr, nullptr, true);
        queue_active = spi_int(0, 1);
        queue_full = queue_active >= *limits.max_active;
    }
    const int64_t now = pg_call([] { return static_cast<int64_t>(GetCurrentTimestamp()); });
    for (FlowKeyRow& row : rows) {
        bool held = queue_full;
        const std::optional<int32_t> cap = limits.cap_of(row.key);
        if (cap && row.active >= *cap) held = true;
        if (const std::optional<int32_t> rate = limits.rate_of(row.key)) {
            const int64_t emission = core::rate_emission(limits.rate_interval_us, *rate);
            auto it = due.find(row.key);
            row.tokens = core::rate_tokens(it == due.end() ? now : it->second, now, emission,
                                           limits.key_burst);
            if (*row.tokens < 1.0) held = true;
        }
        row.held_back = held ? row.ready : 0;
    }
    return rows;
}

}  // namespace fetchq::ops
