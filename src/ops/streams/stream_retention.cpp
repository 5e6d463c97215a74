#include "ops/streams/stream_retention.hpp"

#include <vector>

#include "pg/as_user.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// Per key, the offset every group committed (and, with the stream's max_age,
// whatever is older); the lowest messages first. The key's head row keeps its
// last offset, so appends continue after what goes.
constexpr const char* kRetainSql =
    "WITH stream AS (SELECT pg_catalog.now() OPERATOR(pg_catalog.-) max_age AS before"
    " FROM fetchq.streams WHERE id = $1),"
    " safe AS ("
    " SELECT k.key, (SELECT pg_catalog.min(COALESCE(o.committed, 0))"
    "   FROM fetchq.stream_groups AS g LEFT JOIN fetchq.stream_offsets AS o"
    "   ON o.stream_id = g.stream_id AND o.group_name = g.group_name AND o.key = k.key"
    "   WHERE g.stream_id = k.stream_id) AS upto"
    " FROM fetchq.stream_keys AS k WHERE k.stream_id = $1),"
    " victims AS (SELECT m.ctid AS tid FROM safe AS s JOIN fetchq.stream_messages AS m"
    "  ON m.stream_id = $1 AND m.key = s.key AND (m.\"offset\" <= s.upto"
    "   OR m.appended_at < (SELECT before FROM stream))"
    "  ORDER BY m.key, m.\"offset\" LIMIT $2),"
    " gone AS (DELETE FROM fetchq.stream_messages AS m USING victims AS v"
    "  WHERE m.ctid = v.tid RETURNING 1)"
    " SELECT pg_catalog.count(*) FROM gone";

// Idle: registered, and last committed (any key), longer ago than the
// stream's group_max_idle, and no lease that has not ended.
constexpr const char* kIdleGroupsSql =
    "WITH idle AS (SELECT g.stream_id, g.group_name FROM fetchq.stream_groups AS g"
    " JOIN fetchq.streams AS s ON s.id = g.stream_id"
    " WHERE s.group_max_idle IS NOT NULL"
    "  AND g.created_at < pg_catalog.now() OPERATOR(pg_catalog.-) s.group_max_idle"
    "  AND NOT EXISTS (SELECT 1 FROM fetchq.stream_offsets AS o"
    "   WHERE o.stream_id = g.stream_id AND o.group_name = g.group_name"
    "   AND o.committed_at >= pg_catalog.now() OPERATOR(pg_catalog.-) s.group_max_idle)"
    "  AND NOT EXISTS (SELECT 1 FROM fetchq.stream_leases AS l"
    "   WHERE l.stream_id = g.stream_id AND l.group_name = g.group_name"
    "   AND l.until > pg_catalog.clock_timestamp())"
    " FOR UPDATE OF g SKIP LOCKED),"
    " offsets AS (DELETE FROM fetchq.stream_offsets AS o USING idle AS i"
    "  WHERE o.stream_id = i.stream_id AND o.group_name = i.group_name),"
    " leases AS (DELETE FROM fetchq.stream_leases AS l USING idle AS i"
    "  WHERE l.stream_id = i.stream_id AND l.group_name = i.group_name),"
    " gone AS (DELETE FROM fetchq.stream_groups AS g USING idle AS i"
    "  WHERE g.stream_id = i.stream_id AND g.group_name = i.group_name RETURNING 1)"
    " SELECT pg_catalog.count(*) FROM gone";

}  // namespace

int64_t expire_idle_groups() {
    const Oid owner = table_owner("fetchq", "stream_groups");
    if (!OidIsValid(owner)) return 0;
    SPIPlanPtr plan =
        cached_plan("", "stream_idle_groups", [] { return std::string(kIdleGroupsSql); }, {});
    int64_t removed = 0;
    as_user(owner, [&] {
        spi_execute(plan, nullptr, nullptr, false);
        removed = spi_int(0, 1);
    });
    return removed;
}

int64_t retain_streams(int32_t batch) {
    const Oid owner = table_owner("fetchq", "stream_messages");
    if (!OidIsValid(owner)) return 0;
    SPIPlanPtr list =
        cached_plan("", "stream_ids",
                    [] { return std::string("SELECT id FROM fetchq.streams ORDER BY id"); }, {});
    SPIPlanPtr retain = cached_plan("", "stream_retain", [] { return std::string(kRetainSql); },
                                    {INT4OID, INT4OID});
    int64_t removed = 0;
    // As the tables' owner: the rows are fetchq's, whoever wrote them.
    as_user(owner, [&] {
        const uint64_t n = spi_execute(list, nullptr, nullptr, true);
        std::vector<int32_t> ids;
        for (uint64_t row = 0; row < n; ++row) ids.push_back(static_cast<int32_t>(spi_int(row, 1)));
        for (int32_t id : ids) {
            Datum values[2] = {Int32GetDatum(id), Int32GetDatum(batch)};
            spi_execute(retain, values, nullptr, false);
            removed += spi_int(0, 1);
        }
    });
    return removed;
}

int64_t remove_stream_orphans() {
    const Oid owner = table_owner("fetchq", "stream_offsets");
    if (!OidIsValid(owner)) return 0;
    int64_t removed = 0;
    as_user(owner, [&] {
        for (const char* table : {"stream_offsets", "stream_leases"}) {
            const std::string name = std::string("stream_orphans_") + table;
            SPIPlanPtr plan =
                cached_plan("", name,
                            [table] {
                                return std::string("DELETE FROM fetchq.") + table +
                                       " AS r WHERE NOT EXISTS (SELECT 1 FROM fetchq.streams AS s"
                                       " WHERE s.id = r.stream_id)";
                            },
                            {});
            removed += static_cast<int64_t>(spi_execute(plan, nullptr, nullptr, false));
        }
    });
    return removed;
}

}  // namespace fetchq::ops
