#include "ops/documents/doc_pick.hpp"

#include "ops/documents/doc_moves.hpp"
#include "ops/flow/flow_limits.hpp"
#include "ops/queues/doc_status_sql.hpp"
#include "ops/shared_memory/pick_start.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/queues/queue_tables.hpp"
#include "ops/config/settings.hpp"
#include "ops/shared_memory/session_end.hpp"
#include "ops/shared_memory/wake.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>
#include <string>
#include <unordered_map>

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "storage/itemptr.h"
#include "pgstat.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

// The place in pick order of the first document the running pick took, as
// doc_pick_position saw it.
struct Taken {
    bool any = false;
    bool unknown = false;  // a document with a NULL in its key
    core::PickKey first;
    bool first_clear = false;  // nothing pending but not due lies before it
    // Each document's key, in the order the statement updated (and returns)
    // them: g_keys[base, base + count).
    bool recording = false;
    int base = 0;
    int count = 0;
};
Taken g_taken;

// The keys the running picks noted, as a stack (a pick run by a trigger of a
// pick's table notes above the outer one's). In TopMemoryContext for the
// backend's life, so that a pick that failed leaves nothing dangling; a
// large one's room is given back after it.
core::PickKey* g_keys = nullptr;
int g_keys_capacity = 0;
constexpr int kKeysKept = 4096;

void note_key(const core::PickKey& key) {
    const int at = g_taken.base + g_taken.count;
    if (at >= g_keys_capacity) {
        const int capacity = std::max({64, 2 * g_keys_capacity, at + 1});
        const Size size = sizeof(core::PickKey) * capacity;
        g_keys = static_cast<core::PickKey*>(g_keys ? repalloc(g_keys, size)
                                                    : MemoryContextAlloc(TopMemoryContext, size));
        g_keys_capacity = capacity;
    }
    g_keys[at] = key;
    ++g_taken.count;
}

void trim_keys() {
    if (g_keys_capacity <= kKeysKept || g_taken.recording) return;
    pfree(g_keys);
    g_keys = nullptr;
    g_keys_capacity = 0;
}

// The statement returns the documents in the order it updated them (their
// addresses); doc_pick_position saw each one's key in that same order. The
// rows of SPI_tuptable are put in pick order. Inside one pg_call.
void sort_in_pick_order(const Taken& taken, uint64_t n) {
    if (n < 2 || taken.unknown || taken.count != static_cast<int>(n)) return;
    const core::PickKey* keys = g_keys + taken.base;
    int* order = static_cast<int*>(palloc(sizeof(int) * n));
    for (uint64_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
    std::sort(order, order + n,
              [keys](int a, int b) { return core::picked_before(keys[a], keys[b]); });
    HeapTuple* rows = SPI_tuptable->vals;
    HeapTuple* sorted = static_cast<HeapTuple*>(palloc(sizeof(HeapTuple) * n));
    for (uint64_t i = 0; i < n; ++i) sorted[i] = rows[order[i]];
    memcpy(rows, sorted, sizeof(HeapTuple) * n);
    pfree(sorted);
    pfree(order);
}

// The statement's parts: the documents are chosen by the subquery, then
// fetched by their address (ctid = ANY(ARRAY(...)): a TID scan; a join here
// gets a generic plan that hashes the table). The rows are locked, so their
// address holds until commit. doc_pick_position sees each one's place in
// pick order before the SET changes it, and `waits_before`: whether a
// pending document not due yet lies before it (NULL: not looked for).
std::string pick_update(const std::string& docs, const std::string& chosen,
                        const std::string& waits_before) {
    return "UPDATE " + docs + " AS d SET status = " + status_sql::active +
           ", next_iteration = now() + $3,"
           " attempts = fetchq.doc_pick_position(d.priority, d.next_iteration, d.attempts, " +
           waits_before +
           "),"
           " lock_session = $4"
           " WHERE d.ctid = ANY (ARRAY(" +
           chosen +
           "))"
           " RETURNING d.subject, d.payload, d.version, d.priority, d.attempts,"
           " d.iterations, d.created_at, d.last_iteration, d.next_iteration,"
           " d.lock_upgrade, d.flow_key";
}

// A pending document not due yet before the taken one d: of a higher
// priority, or of a NULL one (first in pick order). Two index probes that
// find nothing in a queue of one priority.
std::string waiting_before(const std::string& docs) {
    const std::string pending = "SELECT 1 FROM " + docs +
                                " AS t WHERE t.status = " + status_sql::pending +
                                " AND t.lock_upgrade IS NULL AND t.version = $1 AND ";
    return "(EXISTS (" + pending + "t.priority > d.priority AND t.next_iteration > now())" +
           " OR EXISTS (" + pending + "t.priority IS NULL))";
}

std::string chosen_where(const std::string& docs, const std::string& where,
                         const std::string& order) {
    return "SELECT ctid FROM " + docs + " WHERE " + status_sql::ready + " AND version = $1" +
           where + " ORDER BY " + order + " LIMIT $2 FOR UPDATE SKIP LOCKED";
}

// From the beginning of the pick index; `probed`: looking whether a pending
// document not due yet waits before each taken one, which only a pick that
// may set a start needs.
SPIPlanPtr pick_plan(const std::string& queue, bool probed) {
    return queue_plan(queue, probed ? "pick_probed" : "pick",
                      [&] {
                          const std::string docs = docs_rel(queue);
                          return pick_update(
                              docs,
                              chosen_where(docs, "", "priority DESC, next_iteration, attempts"),
                              probed ? waiting_before(docs) : "NULL");
                      },
                      {INT4OID, INT4OID, INTERVALOID, INT8OID});
}

// From the start ($5 priority, $6 next_iteration, $7 attempts): the rest of
// the start's priority, then the lower ones. A row comparison needs columns
// sorted one way, so the priority (descending) is matched apart.
SPIPlanPtr pick_from_plan(const std::string& queue) {
    return queue_plan(
        queue, "pick_from",
        [&] {
            const std::string docs = docs_rel(queue);
            // Each part locks in a subquery: FOR UPDATE is not allowed
            // on a UNION's parts themselves.
            return pick_update(
                docs,
                "SELECT ctid FROM (" +
                    chosen_where(docs,
                                 " AND priority = $5 AND (next_iteration, attempts) >= "
                                 "($6, $7)",
                                 "next_iteration, attempts") +
                    ") AS from_start UNION ALL SELECT ctid FROM (" +
                    chosen_where(docs, " AND priority < $5",
                                 "priority DESC, next_iteration, attempts") +
                    ") AS lower_priorities LIMIT $2",
                // Looked for only past the start's priority.
                "CASE WHEN d.priority < $5 THEN " + waiting_before(docs) + " END");
        },
        {INT4OID, INT4OID, INTERVALOID, INT8OID, INT4OID, TIMESTAMPTZOID, INT4OID});
}

// Per queue, in this backend: its pick index, and the index entries per
// document the last pick from the beginning read.
struct PickIndex {
    Oid oid = InvalidOid;
    int64 last_per_doc = 0;
};
std::unordered_map<std::string, PickIndex> g_pick_indexes;

// Index entries this backend's scans have read from the queue's pick index
// so far (what pg_stat_user_indexes.idx_tup_read gets at the next report);
// -1 when unknown (no such index, track_counts off).
int64 pick_index_reads(const std::string& queue, PickIndex& index) {
    const std::string name = pick_index_name(queue);
    const char* index_name = name.c_str();
    Oid* oid = &index.oid;
    return pg_call([&]() -> int64 {
        Relation rel = OidIsValid(*oid) ? RelationIdGetRelation(*oid) : nullptr;
        if (RelationIsValid(rel) && strcmp(RelationGetRelationName(rel), index_name) != 0) {
            RelationClose(rel);
            rel = nullptr;
        }
        if (!RelationIsValid(rel)) {
            *oid = get_relname_relid(index_name, get_namespace_oid("fetchq_data", false));
            if (!OidIsValid(*oid)) return -1;
            rel = RelationIdGetRelation(*oid);
            if (!RelationIsValid(rel)) return -1;
        }
        const int64 reads = rel->pgstat_info ? rel->pgstat_info->t_counts.t_tuples_returned : 0;
        RelationClose(rel);
        return reads;
    });
}

// Index entries per document taken, when known.
int64 per_doc(int64 reads_before, int64 reads_after, uint64_t taken) {
    if (reads_before < 0 || reads_after < 0) return -1;
    return (reads_after - reads_before) / static_cast<int64>(std::max<uint64_t>(taken, 1));
}

uint64_t execute_pick(const std::string& queue, const std::optional<core::PickKey>& start,
                      bool probed, int32_t version, int32_t limit, Interval* lock,
                      bool session_bound) {
    Datum values[7] = {Int32GetDatum(version), Int32GetDatum(limit), IntervalPGetDatum(lock),
                       Int64GetDatum(session_bound ? session_key() : 0)};
    const char nulls[7] = {' ', ' ', ' ', session_bound ? ' ' : 'n', ' ', ' ', ' '};
    if (!start) return queue_execute(queue, pick_plan(queue, probed), values, nulls);
    values[4] = Int32GetDatum(start->priority);
    values[5] = TimestampTzGetDatum(start->next_iteration);
    values[6] = Int32GetDatum(start->attempts);
    return queue_execute(queue, pick_from_plan(queue), values, nulls);
}

}  // namespace

void note_pick_position(bool known, const core::PickKey& key, std::optional<bool> waits_before) {
    if (g_taken.recording) note_key(key);
    if (!known) {
        g_taken.unknown = true;
    } else if (!g_taken.any || core::picked_before(key, g_taken.first)) {
        g_taken.first = key;
        g_taken.first_clear = waits_before == false;
    }
    g_taken.any = true;
}

namespace {

// The lock ends at now + duration: the scheduler must be awake then.
void note_lock_expiry(Interval* lock) {
    note_due(pg_call([&] {
        return DatumGetTimestampTz(DirectFunctionCall2(
            timestamptz_pl_interval, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()),
            IntervalPGetDatum(lock)));
    }));
}

uint64_t plain_pick(const std::string& queue, int32_t version, int32_t limit, Interval* lock,
                    bool session_bound) {
    if (session_bound) watch_session_end();
    PickStartReading reading(queue, version);
    // Before the statement: one that fails may have locked some documents.
    note_pending_locked(queue);
    // Kept aside: a pick run by a trigger of this pick's table has its own.
    const Taken outer = g_taken;
    g_taken = Taken{};
    g_taken.recording = true;
    // Above the outer pick's keys; a pick that failed left its state behind
    // (nothing restores it): past kKeysKept, the stack starts again at 0.
    const int above = outer.recording ? outer.base + outer.count : 0;
    g_taken.base = above <= kKeysKept ? above : 0;
    // A pick from the beginning measures the dead prefix it reads; it may set
    // a start (and so looks for documents not due yet: probed) once one was
    // seen, by it or by the pick before it in this backend.
    const bool from_beginning = !reading.start() && reading.open();
    const int threshold = settings.pick_start_threshold;
    PickIndex* index = from_beginning ? &g_pick_indexes[queue] : nullptr;
    const bool probed = index && (threshold == 0 || index->last_per_doc > threshold / 2);
    const int64 reads_before = index ? pick_index_reads(queue, *index) : 0;
    const uint64_t n =
        execute_pick(queue, reading.start(), probed, version, limit, lock, session_bound);
    const Taken taken = g_taken;
    g_taken = outer;
    pg_call([&] {
        sort_in_pick_order(taken, n);
        trim_keys();
    });
    core::PickOutcome outcome;
    outcome.usable = !taken.unknown && (n == 0 || taken.any);
    if (n > 0) outcome.first = taken.first;
    outcome.first_clear = taken.first_clear;
    if (index) {
        index->last_per_doc = per_doc(reads_before, pick_index_reads(queue, *index), n);
        outcome.engage = threshold == 0 || index->last_per_doc > threshold;
    }
    reading.finish(outcome);
    if (n > 0) {
        note_lock_expiry(lock);
        count_move(queue, core::DocMove::kPick, core::DocStatus::kActive, static_cast<int64_t>(n));
    }
    return n;
}

// ---- Picks under flow limits (ops/flow/flow_limits.hpp) ----
//
// The documents are chosen before the statement that takes them: each key
// met is locked (SKIP LOCKED) and its active documents counted once per
// pick, its documents taken while it has room. First from the head of the
// pick index (a window of the next documents in pick order, whatever their
// key); when the window is full of documents held back, from the head of
// each key's own documents (the flow pick index, one probe per key that has
// pending documents): a capped key's backlog never delays another key's
// documents. Documents without a key are not chosen by address: the
// statement takes as many of them as the choice counted, with SKIP LOCKED
// as a plain pick does. The statement never updates a document that another
// transaction changed since it was chosen (ctid, status and due time checked
// again under the row's lock).

struct Chosen {
    std::vector<ItemPointerData> tids;  // of documents with a key
    std::vector<ItemPointerData> seen;  // every document looked at
    int64_t without_key = 0;
    int64_t count() const { return static_cast<int64_t>(tids.size()) + without_key; }
};

std::string flow_ready(const std::string& alias) {
    return alias + "status = " + status_sql::pending + " AND " + alias +
           "lock_upgrade IS NULL AND " + alias + "next_iteration <= now() AND (" + alias +
           "expires_at IS NULL OR " + alias + "expires_at > now())";
}

SPIPlanPtr window_plan(const std::string& queue) {
    return queue_plan(
        queue, "flow_window",
        [&] {
            return "SELECT ctid, flow_key FROM " + docs_rel(queue) + " WHERE " + flow_ready("") +
                   " AND version = $1 ORDER BY priority DESC, next_iteration, attempts LIMIT $2";
        },
        {INT4OID, INT4OID});
}

// The first ready document of each key not looked at yet, found by a skip
// scan of the flow pick index (the next key after the last one: one probe
// per key, however many documents each has), and the first $2 ready
// documents without a key; in pick order.
SPIPlanPtr heads_plan(const std::string& queue) {
    return queue_plan(
        queue, "flow_heads",
        [&] {
            const std::string docs = docs_rel(queue);
            auto pending = [](const std::string& alias) {
                return alias + "status = " + status_sql::pending + " AND " + alias +
                       "lock_upgrade IS NULL AND " + alias + "version = $1 AND ";
            };
            return "WITH RECURSIVE k(flow_key) AS ((SELECT flow_key FROM " + docs + " WHERE " +
                   pending("") +
                   "flow_key IS NOT NULL ORDER BY flow_key LIMIT 1) UNION ALL SELECT"
                   " (SELECT t.flow_key FROM " +
                   docs + " AS t WHERE " + pending("t.") +
                   "t.flow_key > k.flow_key"
                   " ORDER BY t.flow_key LIMIT 1) FROM k WHERE k.flow_key IS NOT NULL)"
                   " SELECT h.ctid, h.flow_key FROM (SELECT d.ctid, d.flow_key, d.priority,"
                   " d.next_iteration, d.attempts FROM k CROSS JOIN LATERAL (SELECT ctid,"
                   " flow_key, priority, next_iteration, attempts FROM " +
                   docs + " AS d WHERE " + flow_ready("d.") +
                   " AND d.version = $1 AND d.ctid <> ALL ($3)"
                   // A range, not `=`: with `=` the planner drops flow_key from
                   // the ORDER BY and may walk the pick index, through every
                   // document of the keys before.
                   " AND d.flow_key >= k.flow_key AND d.flow_key <= k.flow_key"
                   // In the flow pick index's order: the planner takes it.
                   " ORDER BY d.flow_key, d.priority DESC, d.next_iteration, d.attempts LIMIT 1)"
                   " AS d"
                   " WHERE k.flow_key IS NOT NULL UNION ALL (SELECT ctid, flow_key, priority,"
                   " next_iteration, attempts FROM " +
                   docs + " WHERE " + flow_ready("") +
                   " AND version = $1 AND flow_key IS NULL ORDER BY flow_key, priority DESC,"
                   " next_iteration, attempts LIMIT $2)) AS h"
                   " ORDER BY h.priority DESC, h.next_iteration, h.attempts";
        },
        {INT4OID, INT4OID, TIDARRAYOID});
}

SPIPlanPtr take_chosen_plan(const std::string& queue) {
    return queue_plan(
        queue, "flow_take",
        [&] {
            const std::string docs = docs_rel(queue);
            return "UPDATE " + docs + " AS d SET status = " + status_sql::active +
                   ", next_iteration = now() + $3, attempts = d.attempts + 1,"
                   " lock_session = $4 WHERE d.ctid = ANY (ARRAY(SELECT ctid FROM " +
                   docs + " WHERE ctid = ANY ($5) AND " + flow_ready("") +
                   " AND version = $1 FOR UPDATE SKIP LOCKED) || ARRAY(SELECT ctid FROM " + docs +
                   " WHERE " + flow_ready("") +
                   " AND version = $1 AND flow_key IS NULL ORDER BY flow_key, priority DESC,"
                   " next_iteration, attempts LIMIT $2 FOR UPDATE SKIP LOCKED))"
                   " RETURNING d.subject, d.payload, d.version, d.priority, d.attempts,"
                   " d.iterations, d.created_at, d.last_iteration, d.next_iteration,"
                   " d.lock_upgrade, d.flow_key";
        },
        {INT4OID, INT4OID, INTERVALOID, INT8OID, TIDARRAYOID});
}

Datum tid_array(const std::vector<ItemPointerData>& tids) {
    return pg_call([&] {
        const int n = static_cast<int>(tids.size());
        Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * std::max(n, 1)));
        for (int i = 0; i < n; ++i) {
            ItemPointer copy = static_cast<ItemPointer>(palloc(sizeof(ItemPointerData)));
            *copy = tids[i];
            elems[i] = PointerGetDatum(copy);
        }
        return PointerGetDatum(
            construct_array(elems, n, TIDOID, sizeof(ItemPointerData), false, TYPALIGN_SHORT));
    });
}

// Walks the rows of SPI_tuptable (ctid, flow_key), taking what the limits
// allow until `want`; returns how many rows there were.
// A key's room in this pick, and how many of its documents it chose.
struct KeyTurn {
    int64_t room = 0;
    int64_t chosen = 0;
    KeyRate rate;
};

uint64_t choose(const std::string& queue, const FlowLimits& limits, uint64_t rows, int64_t want,
                std::unordered_map<std::string, KeyTurn>& keys, Chosen& chosen) {
    // Copied first: key_room runs statements of its own.
    struct Row {
        ItemPointerData tid;
        bool keyed;
        std::string key;
    };
    std::vector<Row> seen;
    seen.reserve(rows);
    for (uint64_t r = 0; r < rows; ++r) {
        Row row;
        bool isnull = true;
        const Datum tid = spi_value(r, 1, &isnull);
        row.tid = *reinterpret_cast<ItemPointer>(DatumGetPointer(tid));
        const char* key = spi_text(r, 2);
        row.keyed = key != nullptr;
        if (key) row.key = key;
        seen.push_back(std::move(row));
    }
    for (const Row& row : seen) {
        if (chosen.count() >= want) break;
        chosen.seen.push_back(row.tid);
        if (!row.keyed) {
            ++chosen.without_key;
            continue;
        }
        auto it = keys.find(row.key);
        if (it == keys.end()) {
            KeyTurn turn;
            turn.room = key_room(queue, row.key, limits, false, &turn.rate);
            it = keys.emplace(row.key, turn).first;
        }
        if (it->second.room <= 0) continue;
        --it->second.room;
        ++it->second.chosen;
        chosen.tids.push_back(row.tid);
    }
    return rows;
}

// fair: the keys that have pending documents, in key order, after `$2`
// (a skip scan of the flow pick index: one probe per key), at most $3.
SPIPlanPtr fair_keys_plan(const std::string& queue) {
    return queue_plan(queue, "flow_fair_keys",
                      [&] {
                          const std::string docs = docs_rel(queue);
                          auto pending = [](const std::string& alias) {
                              return alias + "status = " + status_sql::pending + " AND " + alias +
                                     "lock_upgrade IS NULL AND " + alias + "version = $1 AND ";
                          };
                          return "WITH RECURSIVE k(flow_key) AS ((SELECT flow_key FROM " + docs +
                                 " WHERE " + pending("") +
                                 "flow_key > $2 ORDER BY flow_key LIMIT 1) UNION ALL SELECT"
                                 " (SELECT t.flow_key FROM " +
                                 docs + " AS t WHERE " + pending("t.") +
                                 "t.flow_key > k.flow_key ORDER BY t.flow_key LIMIT 1) FROM k"
                                 " WHERE k.flow_key IS NOT NULL)"
                                 " SELECT flow_key FROM k WHERE flow_key IS NOT NULL LIMIT $3";
                      },
                      {INT4OID, TEXTOID, INT4OID});
}

// fair: the first ready document of key $2 in pick order, not one of $3.
SPIPlanPtr key_head_plan(const std::string& queue) {
    return queue_plan(
        queue, "flow_key_head",
        [&] {
            return "SELECT ctid FROM " + docs_rel(queue) + " WHERE " + flow_ready("") +
                   " AND version = $1 AND flow_key >= $2 AND flow_key <= $2"
                   " AND ctid <> ALL ($3)"
                   " ORDER BY flow_key, priority DESC, next_iteration, attempts LIMIT 1";
        },
        {INT4OID, TEXTOID, TIDARRAYOID});
}

// fair: whether a ready document without a key is there.
SPIPlanPtr keyless_plan(const std::string& queue) {
    return queue_plan(
        queue, "flow_keyless",
        [&] {
            return "SELECT 1 FROM " + docs_rel(queue) + " WHERE " + flow_ready("") +
                   " AND version = $1 AND flow_key IS NULL"
                   " ORDER BY flow_key, priority DESC, next_iteration, attempts LIMIT 1";
        },
        {INT4OID});
}

// Per queue, in this backend: the key a fair pick served last.
std::unordered_map<std::string, std::string> g_fair_cursor;

// fair => true: one document per key in turn, in key order from the key
// after the one this backend served last, round after round while `want`
// is not reached and a round found one; the documents without a key take
// one turn per round, as one more key. A key's turns end with its room
// (its cap, its tokens): the keys with more allowance left get more of a
// pick of many documents.
void choose_fair(const std::string& queue, const FlowLimits& limits, int32_t version, int64_t want,
                 std::unordered_map<std::string, KeyTurn>& keys, Chosen& chosen) {
    std::string& cursor = g_fair_cursor[queue];
    constexpr int kBatch = 32;
    for (int round = 0; round < 64 && chosen.count() < want; ++round) {
        const int64_t before = chosen.count();
        // From the cursor to the last key, then from the first key to the
        // cursor: each key once.
        const std::string start = cursor;
        bool wrapped = false;
        std::string from = start;
        while (chosen.count() < want) {
            Datum args[3] = {Int32GetDatum(version), to_text(from), Int32GetDatum(kBatch)};
            const uint64_t n = queue_execute(queue, fair_keys_plan(queue), args, nullptr, true);
            std::vector<std::string> batch;
            for (uint64_t r = 0; r < n; ++r) batch.emplace_back(spi_text(r, 1));
            bool cycle_done = false;
            for (const std::string& key : batch) {
                if (wrapped && key > start) {
                    cycle_done = true;
                    break;
                }
                from = key;
                if (chosen.count() >= want) break;
                auto it = keys.find(key);
                if (it == keys.end()) {
                    KeyTurn turn;
                    turn.room = key_room(queue, key, limits, false, &turn.rate);
                    it = keys.emplace(key, turn).first;
                }
                if (it->second.room <= 0) continue;
                Datum head[3] = {Int32GetDatum(version), to_text(key), tid_array(chosen.tids)};
                if (queue_execute(queue, key_head_plan(queue), head, nullptr, true) == 0) continue;
                bool isnull = true;
                const Datum tid = spi_value(0, 1, &isnull);
                chosen.tids.push_back(*reinterpret_cast<ItemPointer>(DatumGetPointer(tid)));
                --it->second.room;
                ++it->second.chosen;
                cursor = key;
            }
            if (cycle_done || chosen.count() >= want) break;
            if (static_cast<int>(n) < kBatch) {
                if (wrapped) break;
                // The end of the keys: the documents without one take their
                // turn (when there are some: the statement takes what the
                // turns counted), then the first keys.
                Datum v = Int32GetDatum(version);
                if (queue_execute(queue, keyless_plan(queue), &v, nullptr, true) > 0)
                    ++chosen.without_key;
                wrapped = true;
                from = "";
                if (start.empty()) break;
            }
        }
        if (chosen.count() <= before) break;
    }
}

uint64_t limited_pick(const std::string& queue, const FlowLimits& limits, int32_t version,
                      int32_t limit, Interval* lock, bool session_bound) {
    int64_t want = limit;
    if (limits.max_active) {
        want = std::min<int64_t>(want, queue_room(queue, *limits.max_active, true).value_or(0));
        if (want == 0) return 0;
    }
    if (!limits.per_key())
        return plain_pick(queue, version, static_cast<int32_t>(want), lock, session_bound);
    if (session_bound) watch_session_end();
    note_pending_locked(queue);
    std::unordered_map<std::string, KeyTurn> keys;
    Chosen chosen;
    const int64_t window = std::min<int64_t>(want + 32, INT32_MAX);
    if (limits.fair) {
        choose_fair(queue, limits, version, want, keys, chosen);
    } else {
        Datum values[2] = {Int32GetDatum(version), Int32GetDatum(static_cast<int32_t>(window))};
        const uint64_t rows = queue_execute(queue, window_plan(queue), values, nullptr, true);
        choose(queue, limits, rows, want, keys, chosen);
        // A window full of documents held back: each key's head, while a
        // round finds more.
        for (int round = 0;
             static_cast<int64_t>(rows) == window && chosen.count() < want && round < 8; ++round) {
            const int64_t before = chosen.count();
            Datum heads[3] = {Int32GetDatum(version),
                              Int32GetDatum(static_cast<int32_t>(
                                  want - static_cast<int64_t>(chosen.tids.size()))),
                              tid_array(chosen.seen)};
            const uint64_t n = queue_execute(queue, heads_plan(queue), heads, nullptr, true);
            // Documents without a key come again in each round: counted once.
            chosen.without_key = 0;
            choose(queue, limits, n, want, keys, chosen);
            if (chosen.count() <= before) break;
        }
    }
    if (chosen.count() == 0) return 0;
    // Rates are charged for what was chosen: a document that another
    // transaction took meanwhile costs its key a token all the same.
    for (const auto& [key, turn] : keys) note_key_picks(queue, key, turn.rate, turn.chosen);
    Datum values[5] = {Int32GetDatum(version),
                       Int32GetDatum(static_cast<int32_t>(chosen.without_key)),
                       IntervalPGetDatum(lock), Int64GetDatum(session_bound ? session_key() : 0),
                       tid_array(chosen.tids)};
    const char nulls[5] = {' ', ' ', ' ', session_bound ? ' ' : 'n', ' '};
    const uint64_t n = queue_execute(queue, take_chosen_plan(queue), values, nulls);
    if (n > 0) {
        note_lock_expiry(lock);
        count_move(queue, core::DocMove::kPick, core::DocStatus::kActive, static_cast<int64_t>(n));
    }
    return n;
}

}  // namespace

uint64_t pick(const std::string& queue, int32_t version, int32_t limit, Interval* lock,
              bool session_bound) {
    // One look at the cached setting: a queue without limits picks as it
    // always did.
    const std::shared_ptr<const FlowLimits> limits = flow_limits(queue);
    if (!limits) return plain_pick(queue, version, limit, lock, session_bound);
    return limited_pick(queue, *limits, version, limit, lock, session_bound);
}

}  // namespace fetchq::ops
