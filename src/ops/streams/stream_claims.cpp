#include "ops/streams/stream_claims.hpp"

#include "ops/catalog/catalog_owner.hpp"
#include "ops/shared_memory/session_end.hpp"
#include "ops/streams/stream_locks.hpp"
#include "ops/streams/streams.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "utils/timestamp.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// A lease of another session that is still running and has not ended.
constexpr const char* kLiveLease =
    "l.until OPERATOR(pg_catalog.>) pg_catalog.clock_timestamp() AND l.session <> $3"
    " AND l.session = ANY ($4::pg_catalog.int8[])";

// Keys with unread messages and no live lease, oldest unread first; all of
// them, since any number may be held by claims under way. A key whose last
// offset the group committed is left out before its lease and messages are
// looked at.
std::vector<std::string> candidates(const Datum* values) {
    SPIPlanPtr plan = cached_plan(
        "", "stream_claim_candidates",
        [] {
            // The keys whose last offset the group did not commit first
            // (materialized: the planner would otherwise look up a lease
            // for every key of the stream), then their leases and first
            // unread message.
            return "WITH unread AS MATERIALIZED (SELECT k.stream_id, k.key,"
                   " COALESCE(o.committed, 0) AS committed FROM fetchq.stream_keys AS k"
                   " LEFT JOIN fetchq.stream_offsets AS o ON o.stream_id = k.stream_id"
                   "  AND o.group_name = $2 AND o.key = k.key"
                   " WHERE k.stream_id = $1"
                   "  AND k.last_offset OPERATOR(pg_catalog.>) COALESCE(o.committed, 0))"
                   " SELECT u.key FROM unread AS u"
                   " CROSS JOIN LATERAL (SELECT m.appended_at FROM fetchq.stream_messages AS m"
                   "  WHERE m.stream_id = u.stream_id AND m.key = u.key"
                   "  AND m.\"offset\" OPERATOR(pg_catalog.>) u.committed"
                   "  ORDER BY m.\"offset\" LIMIT 1) AS f"
                   " WHERE NOT EXISTS (SELECT 1 FROM fetchq.stream_leases AS l"
                   "  WHERE l.stream_id = u.stream_id AND l.group_name = $2 AND l.key = u.key "
                   "AND " +
                   std::string(kLiveLease) + ") ORDER BY f.appended_at, u.key";
        },
        {INT4OID, TEXTOID, INT8OID, INT8ARRAYOID});
    const uint64_t n = spi_execute(plan, values, nullptr, false);
    std::vector<std::string> keys;
    for (uint64_t row = 0; row < n; ++row) keys.emplace_back(spi_text(row, 1));
    return keys;
}

// With the key held for this claim: takes the lease unless, on the latest
// committed state, another session took it or the group committed all of the
// key meanwhile (after the candidates were read, or, under REPEATABLE READ,
// after the transaction's snapshot).
bool take_lease(const Datum* values, const std::string& key, ClaimedKey* out) {
    SPIPlanPtr taken = cached_plan(
        "", "stream_lease_taken",
        [] {
            return "SELECT 1 WHERE EXISTS (SELECT 1 FROM fetchq.stream_leases AS l"
                   " WHERE l.stream_id = $1 AND l.group_name = $2 AND l.key = $5 AND " +
                   std::string(kLiveLease) +
                   ") OR NOT EXISTS (SELECT 1 FROM fetchq.stream_messages AS m"
                   " WHERE m.stream_id = $1 AND m.key = $5 AND m.\"offset\" > COALESCE("
                   "  (SELECT o.committed FROM fetchq.stream_offsets AS o WHERE o.stream_id = $1"
                   "    AND o.group_name = $2 AND o.key = $5), 0))";
        },
        {INT4OID, TEXTOID, INT8OID, INT8ARRAYOID, TEXTOID});
    Datum args[6] = {values[0], values[1], values[2], values[3], to_text(key), values[4]};
    if (spi_execute_latest(taken, args, nullptr, 1) > 0) return false;
    SPIPlanPtr lease = cached_plan(
        "", "stream_lease",
        [] {
            return std::string(
                "INSERT INTO fetchq.stream_leases AS l (stream_id, group_name, key, session, until)"
                " VALUES ($1, $2, $5, $3, pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) $6)"
                " ON CONFLICT (stream_id, group_name, key) DO UPDATE"
                " SET session = EXCLUDED.session, until = EXCLUDED.until RETURNING until");
        },
        {INT4OID, TEXTOID, INT8OID, INT8ARRAYOID, TEXTOID, INTERVALOID});
    spi_execute(lease, args, nullptr, false);
    bool isnull = false;
    out->key = key;
    out->until = DatumGetTimestampTz(spi_value(0, 1, &isnull));
    return true;
}

std::vector<ClaimedKey> claim_as_owner(int32_t stream, const std::string& group, int32_t max_keys,
                                       const Interval* lease) {
    std::vector<ClaimedKey> claimed;
    Datum values[5] = {Int32GetDatum(stream), to_text(group), Int64GetDatum(session_key()),
                       session_key_array(live_session_keys()), IntervalPGetDatum(lease)};
    for (const std::string& key : candidates(values)) {
        if (static_cast<int32_t>(claimed.size()) == max_keys) break;
        if (!try_lock_key_for_claim(stream, group, key)) continue;
        ClaimedKey c;
        if (take_lease(values, key, &c)) claimed.push_back(std::move(c));
    }
    return claimed;
}

int64_t release_as_owner(int32_t stream, const std::string& group, const std::string& key) {
    // Each key is held as a claim holds it, so that a claim skips a key whose
    // lease is being released rather than wait for the release.
    SPIPlanPtr mine = cached_plan(
        "", "stream_leases_mine",
        [] {
            return std::string(
                "SELECT key FROM fetchq.stream_leases WHERE stream_id = $1 AND group_name = $2"
                " AND session = $3 AND ($4 = '' OR key = $4) ORDER BY key");
        },
        {INT4OID, TEXTOID, INT8OID, TEXTOID});
    Datum values[4] = {Int32GetDatum(stream), to_text(group), Int64GetDatum(session_key()),
                       to_text(key)};
    const uint64_t n = spi_execute(mine, values, nullptr, true);
    std::vector<std::string> keys;
    for (uint64_t row = 0; row < n; ++row) keys.emplace_back(spi_text(row, 1));
    for (const std::string& k : keys) lock_key_for_release(stream, group, k);
    SPIPlanPtr plan = cached_plan(
        "", "stream_release",
        [] {
            return std::string(
                "DELETE FROM fetchq.stream_leases WHERE stream_id = $1 AND group_name = $2"
                " AND session = $3 AND ($4 = '' OR key = $4)");
        },
        {INT4OID, TEXTOID, INT8OID, TEXTOID});
    return static_cast<int64_t>(spi_execute(plan, values, nullptr, false));
}

}  // namespace

std::vector<ClaimedKey> claim_keys(int32_t stream, const std::string& group, int32_t max_keys,
                                   const Interval* lease) {
    ensure_group(stream, group);
    std::vector<ClaimedKey> claimed;
    if (max_keys <= 0) return claimed;
    as_catalog_owner([&] { claimed = claim_as_owner(stream, group, max_keys, lease); });
    return claimed;
}

int64_t release_keys(int32_t stream, const std::string& group, const std::string& key) {
    int64_t n = 0;
    as_catalog_owner([&] { n = release_as_owner(stream, group, key); });
    return n;
}

}  // namespace fetchq::ops
