#include "ops/streams/streams.hpp"

#include <utility>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "ops/catalog/catalog_cache.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/streams/stream_access.hpp"
#include "ops/streams/stream_append.hpp"
#include "ops/streams/stream_commit.hpp"
#include "ops/streams/stream_locks.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "utils/inval.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

constexpr std::size_t kMaxKeyBytes = 255;
constexpr int kMaxGroupChars = 40;

// The catalog of streams and their tables are read and written by fetchq
// only, as the catalog's owner (ops/catalog/catalog_owner.hpp), once the
// caller's right was checked (ops/streams/stream_access.hpp): to create a
// stream, CREATE on schema fetchq_data; to append, the append privilege;
// to read, commit, claim or register a group, the read privilege; to
// change, drop or grant a stream, being its owner.

[[noreturn]] void throw_beyond_last(const std::string& key, int64_t offset, int64_t last) {
    throw core::Error(core::sqlstate::kInvalidParameterValue,
                      "offset " + std::to_string(offset) + " is beyond the last message of key " +
                          core::echo(key),
                      "The last offset of the key is " + std::to_string(last) + ".",
                      "Commit the offset of a message that stream_read returned.");
}

}  // namespace

void check_stream_key(const std::string& key) {
    if (key.empty())
        throw core::Error(core::sqlstate::kInvalidParameterValue, "argument key must not be empty",
                          {}, "Give each message a key of 1 to 255 bytes.");
    if (key.size() > kMaxKeyBytes)
        throw core::Error(
            core::sqlstate::kStringDataRightTruncation, "argument key is longer than 255 bytes",
            "The key " + core::echo(key) + " has " + std::to_string(key.size()) + " bytes.",
            "Use a shorter key, such as a hash of it.");
}

void check_group_name(const std::string& group) {
    const char* s = group.c_str();
    const int len = static_cast<int>(group.size());
    const int chars = len == 0 ? 0 : pg_call([&] { return pg_mbstrlen_with_len(s, len); });
    if (chars == 0 || chars > kMaxGroupChars)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument group_name must have 1 to 40 characters",
                          "The value was " + core::echo(group) + ".",
                          "Name each consumer group, for example 'billing'.");
}

int32_t stream_id(const std::string& name) {
    const int32_t id = stream_entry(name)->id;
    if (id < 0) throw_stream_missing(name);
    return id;
}

int32_t stream_for_read(const std::string& name) {
    return require_stream_privilege(name, core::StreamPrivilege::kRead);
}

int32_t stream_for_append(const std::string& name) {
    for (;;) {
        const uint64_t seen = catalog_generation();
        const int32_t id = require_stream_privilege(name, core::StreamPrivilege::kAppend);
        if (!lock_stream_shared(id)) return id;
        // A drop that held the lock committed (or rolled back) before it was
        // released, and its invalidation came first: an unchanged generation
        // means the stream is still there, else it is read again.
        pg_call([] { AcceptInvalidationMessages(); });
        if (catalog_generation() == seen) return id;
    }
}

CreatedStream create_stream(const std::string& name) {
    require_stream_creator(name);
    SPIPlanPtr plan = cached_plan(
        "", "stream_create",
        [] {
            return std::string(
                "INSERT INTO fetchq.streams (name, owner) VALUES ($1, $2::pg_catalog.regrole)"
                " ON CONFLICT (name) DO NOTHING RETURNING id");
        },
        {TEXTOID, OIDOID});
    Datum values[2] = {to_text(name), ObjectIdGetDatum(pg_call([] { return GetUserId(); }))};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    if (n > 0) return {true, static_cast<int32_t>(spi_int(0, 1))};
    return {false, stream_id(name)};
}

namespace {

// The stream's id, its row locked when `lock_row` (read as the catalog's
// owner: the caller has no UPDATE on fetchq.streams); raises 42704 when it
// does not exist, 42501 unless the caller has the privileges of its creator.
int32_t require_stream_owner(const std::string& name, bool lock_row = true) {
    SPIPlanPtr find = lock_row ? cached_plan("", "stream_owner_locked",
                                             [] {
                                                 return std::string(
                                                     "SELECT id, owner::pg_catalog.oid FROM "
                                                     "fetchq.streams WHERE name = $1 FOR UPDATE");
                                             },
                                             {TEXTOID})
                               : cached_plan("", "stream_owner",
                                             [] {
                                                 return std::string(
                                                     "SELECT id, owner::pg_catalog.oid FROM "
                                                     "fetchq.streams WHERE name = $1");
                                             },
                                             {TEXTOID});
    Datum arg = to_text(name);
    uint64_t found = 0;
    as_catalog_owner([&] { found = spi_execute(find, &arg, nullptr, !lock_row); });
    if (found == 0) throw_stream_missing(name);
    const int32_t id = static_cast<int32_t>(spi_int(0, 1));
    bool isnull = false;
    const Oid owner = DatumGetObjectId(spi_value(0, 2, &isnull));
    if (pg_call([&] { return has_privs_of_role(GetUserId(), owner); })) return id;
    const char* role = pg_call([&] { return GetUserNameFromId(owner, true); });
    throw core::Error(
        core::sqlstate::kInsufficientPrivilege, "must be owner of stream \"" + name + "\"",
        "Stream \"" + name + "\" was created by role \"" + std::string(role ? role : "?") + "\".",
        "Only that role (or a member of it, or a superuser) may drop or change it.");
}

}  // namespace

void set_stream_max_age(const std::string& name, const Interval* max_age) {
    lock_stream_shared(require_stream_owner(name, false));
    require_stream_owner(name);
    SPIPlanPtr plan = cached_plan(
        "", "stream_set_max_age",
        [] { return std::string("UPDATE fetchq.streams SET max_age = $2 WHERE name = $1"); },
        {TEXTOID, INTERVALOID});
    Datum values[2] = {to_text(name), max_age ? IntervalPGetDatum(max_age) : (Datum)0};
    const char nulls[2] = {' ', max_age ? ' ' : 'n'};
    as_catalog_owner([&] { spi_execute(plan, values, nulls, false); });
}

void drop_stream(const std::string& name) {
    // The stream's lock before its row: an append under way holds the lock
    // and may still want the row (a new group's foreign key), so taking the
    // row first could deadlock with it. Waits for the appends under way; the
    // rows are then deleted as they are now, those appends' included
    // (REPEATABLE READ fails with 40001 when it cannot see some of them, as a
    // cascading foreign key would). Its groups go with the stream's row (ON
    // DELETE CASCADE).
    int32_t stream = require_stream_owner(name, false);
    for (;;) {
        lock_stream_for_drop(stream);
        const int32_t locked = stream;
        stream = require_stream_owner(name);
        if (stream == locked) break;  // else dropped and created again meanwhile
    }
    // The owner checked, the stream's rows go as the catalog's owner.
    Datum arg = to_text(name);
    SPIPlanPtr drop = cached_plan(
        "", "stream_drop", [] { return std::string("DELETE FROM fetchq.streams WHERE name = $1"); },
        {TEXTOID});
    Datum id = Int32GetDatum(stream);
    as_catalog_owner([&] {
        spi_execute(drop, &arg, nullptr, false);
        for (const char* table :
             {"stream_keys", "stream_messages", "stream_offsets", "stream_leases"}) {
            const std::string plan = std::string("stream_drop_") + table;
            SPIPlanPtr rows = cached_plan("", plan,
                                          [table] {
                                              return std::string("DELETE FROM fetchq.") + table +
                                                     " WHERE stream_id = $1";
                                          },
                                          {INT4OID});
            spi_execute_current(rows, &id, nullptr);
        }
    });
}

bool register_group(int32_t stream, const std::string& group) {
    // Before the foreign key locks the stream's row (ops/streams/stream_locks.hpp).
    lock_stream_shared(stream);
    SPIPlanPtr plan = cached_plan(
        "", "stream_group_register",
        [] {
            return std::string(
                "INSERT INTO fetchq.stream_groups (stream_id, group_name) VALUES ($1, $2)"
                " ON CONFLICT DO NOTHING");
        },
        {INT4OID, TEXTOID});
    Datum values[2] = {Int32GetDatum(stream), to_text(group)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    return n > 0;
}

namespace {

enum class GroupRow { kMissing, kOwn, kCommitted };

// kOwn: registered by this transaction, which may still roll back.
GroupRow read_group(int32_t stream, const std::string& group) {
    SPIPlanPtr plan = cached_plan(
        "", "stream_group_exists",
        [] {
            return std::string(
                "SELECT xmin FROM fetchq.stream_groups WHERE stream_id = $1 AND group_name = $2");
        },
        {INT4OID, TEXTOID});
    Datum values[2] = {Int32GetDatum(stream), to_text(group)};
    uint64_t found = 0;
    as_catalog_owner([&] { found = spi_execute_latest(plan, values, nullptr, 1); });
    if (found == 0) return GroupRow::kMissing;
    bool isnull = false;
    const TransactionId xmin = DatumGetTransactionId(spi_value(0, 1, &isnull));
    const bool own = pg_call([&] { return TransactionIdIsCurrentTransactionId(xmin); });
    return own ? GroupRow::kOwn : GroupRow::kCommitted;
}

}  // namespace

void ensure_group(int32_t stream, const std::string& group) {
    // A committed registration is remembered until fetchq.stream_groups
    // loses a row (a delete moves the catalog generation); the lookup
    // neither writes nor waits.
    static CatalogCache<GroupRow> known;
    const GroupRow row = known.get(
        std::to_string(stream) + '/' + group, [&] { return read_group(stream, group); },
        [](GroupRow r) { return r == GroupRow::kCommitted; });
    if (row != GroupRow::kMissing) return;
    // A read in a read-only transaction (a standby) reads without registering.
    if (pg_call([] { return XactReadOnly; })) return;
    register_group(stream, group);
}

namespace {

int64_t append_as_owner(int32_t stream, const std::string& key, Datum payload, bool payload_null) {
    if (const std::optional<int64_t> offset = append_in_place(stream, key, payload, payload_null))
        return *offset;
    // The first message of a key (or tables changed from what the
    // extension creates). The head row's update waits for another append to
    // the key until that one ends, then numbers after what it committed (READ COMMITTED reads
    // the row's latest version; REPEATABLE READ fails with 40001 instead,
    // as for any row updated concurrently).
    // Two statements, not one with a WITH: PostgreSQL refuses a WITH whose
    // statement a rule on the messages rewrites into several.
    SPIPlanPtr head = cached_plan(
        "", "stream_append_head",
        [] {
            return std::string(
                "INSERT INTO fetchq.stream_keys AS k (stream_id, key, last_offset)"
                " VALUES ($1, $2, 1) ON CONFLICT (stream_id, key) DO UPDATE"
                " SET last_offset = k.last_offset OPERATOR(pg_catalog.+) 1 RETURNING last_offset");
        },
        {INT4OID, TEXTOID});
    Datum values[4] = {Int32GetDatum(stream), to_text(key), payload, (Datum)0};
    const char nulls[4] = {' ', ' ', payload_null ? 'n' : ' ', ' '};
    spi_execute(head, values, nulls, false);
    values[3] = Int64GetDatum(spi_int(0, 1));
    SPIPlanPtr insert = cached_plan(
        "", "stream_append_message",
        [] {
            return std::string(
                "INSERT INTO fetchq.stream_messages (stream_id, key, \"offset\", payload)"
                " VALUES ($1, $2, $4, $3) RETURNING \"offset\"");
        },
        {INT4OID, TEXTOID, JSONBOID, INT8OID});
    spi_execute(insert, values, nulls, false);
    return spi_int(0, 1);
}

int64_t commit_as_owner(int32_t stream, const std::string& group, const std::string& key,
                        int64_t offset) {
    if (offset < 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument offset must not be negative",
                          "The value was " + std::to_string(offset) + ".",
                          "Commit the offset of the last message processed.");
    ensure_group(stream, group);
    // Offset 0 (a read that found nothing) moves nothing: only the answer.
    if (offset > 0) {
        const CommitInPlace done = commit_in_place(stream, group, key, offset);
        if (done.outcome == CommitInPlace::Outcome::kBeyond)
            throw_beyond_last(key, offset, done.last);
        if (done.outcome != CommitInPlace::Outcome::kUseSql) return done.committed;
    }
    Datum values[4] = {Int32GetDatum(stream), to_text(key), to_text(group), Int64GetDatum(offset)};
    if (offset > 0) {
        // Only up to the key's last offset, as a reader sees it (committed, or
        // appended by this transaction).
        SPIPlanPtr move = cached_plan(
            "", "stream_commit",
            [] {
                return std::string(
                    "INSERT INTO fetchq.stream_offsets AS o (stream_id, group_name, key, committed)"
                    " SELECT $1, $3, $2, $4 FROM fetchq.stream_keys AS k"
                    " WHERE k.stream_id = $1 AND k.key = $2"
                    "   AND k.last_offset OPERATOR(pg_catalog.>=) $4"
                    " ON CONFLICT (stream_id, group_name, key) DO UPDATE"
                    " SET committed = EXCLUDED.committed, committed_at = pg_catalog.now()"
                    " WHERE o.committed OPERATOR(pg_catalog.<) EXCLUDED.committed"
                    " RETURNING committed");
            },
            {INT4OID, TEXTOID, TEXTOID, INT8OID});
        if (spi_execute(move, values, nullptr, false) > 0) return spi_int(0, 1);
    }
    // Not moved: an offset at or below the committed one, or beyond the last.
    SPIPlanPtr current = cached_plan(
        "", "stream_committed",
        [] {
            return std::string(
                "SELECT COALESCE((SELECT last_offset FROM fetchq.stream_keys WHERE stream_id = $1"
                "   AND key = $2), 0),"
                " COALESCE((SELECT committed FROM fetchq.stream_offsets WHERE stream_id = $1"
                "   AND group_name = $3 AND key = $2), 0)");
        },
        {INT4OID, TEXTOID, TEXTOID});
    spi_execute(current, values, nullptr, false);
    const int64_t top = spi_int(0, 1);
    if (offset > top) throw_beyond_last(key, offset, top);
    return spi_int(0, 2);
}

}  // namespace

int64_t append_message(int32_t stream, const std::string& key, Datum payload, bool payload_null) {
    int64_t offset = 0;
    as_catalog_owner([&] { offset = append_as_owner(stream, key, payload, payload_null); });
    return offset;
}

int64_t commit_offset(int32_t stream, const std::string& group, const std::string& key,
                      int64_t offset) {
    int64_t committed = 0;
    as_catalog_owner([&] { committed = commit_as_owner(stream, group, key, offset); });
    return committed;
}

}  // namespace fetchq::ops
