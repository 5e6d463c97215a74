#include "ops/streams/stream_groups.hpp"

#include "core/echo.hpp"
#include "core/error.hpp"
#include "ops/catalog/catalog_cache.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/streams/stream_access.hpp"
#include "ops/streams/stream_locks.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "access/xact.h"
#include "utils/acl.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

constexpr int kMaxGroupChars = 40;

}  // namespace

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

bool register_group(int32_t stream, const std::string& group) {
    // Before the foreign key locks the stream's row (ops/streams/stream_locks.hpp).
    lock_stream_shared(stream);
    SPIPlanPtr plan =
        cached_plan("", "stream_group_register",
                    [] {
                        return std::string(
                            "INSERT INTO fetchq.stream_groups (stream_id, group_name, created_by)"
                            " VALUES ($1, $2, $3::pg_catalog.regrole) ON CONFLICT DO NOTHING");
                    },
                    {INT4OID, TEXTOID, OIDOID});
    Datum values[3] = {Int32GetDatum(stream), to_text(group),
                       ObjectIdGetDatum(pg_call([] { return GetUserId(); }))};
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

[[noreturn]] void throw_group_missing(const std::string& stream, const std::string& group) {
    throw core::Error(
        core::sqlstate::kUndefinedObject,
        "consumer group " + core::echo(group) + " of stream \"" + stream + "\" does not exist", {},
        "The groups of a stream are in fetchq.stream_lag.");
}

// The role that registered the group (InvalidOid: none recorded), the row
// locked; false when there is no such group.
bool lock_group_row(int32_t stream, const std::string& group, Oid* created_by) {
    SPIPlanPtr plan =
        cached_plan("", "stream_group_lock",
                    [] {
                        return std::string(
                            "SELECT created_by::pg_catalog.oid FROM fetchq.stream_groups"
                            " WHERE stream_id = $1 AND group_name = $2 FOR UPDATE");
                    },
                    {INT4OID, TEXTOID});
    Datum values[2] = {Int32GetDatum(stream), to_text(group)};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, false); });
    if (n == 0) return false;
    bool isnull = false;
    const Datum d = spi_value(0, 1, &isnull);
    *created_by = isnull ? InvalidOid : DatumGetObjectId(d);
    return true;
}

void require_group_dropper(const std::string& stream, const std::string& group,
                           const StreamEntry& entry, Oid created_by) {
    const bool may = pg_call([&] {
        const Oid me = GetUserId();
        return has_privs_of_role(me, entry.owner) ||
               (OidIsValid(created_by) && has_privs_of_role(me, created_by));
    });
    if (may) return;
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied to drop consumer group " + core::echo(group) +
                          " of stream \"" + stream + "\"",
                      "Only the stream's owner or the role that registered the group (or a "
                      "member of either, or a superuser) may drop it.",
                      {});
}

}  // namespace

void drop_group(const std::string& stream, const std::string& group) {
    const std::shared_ptr<const StreamEntry> entry = stream_entry(stream);
    if (entry->id < 0) throw_stream_missing(stream);
    // Against the stream's drop, which deletes the same rows.
    lock_stream_shared(entry->id);
    Oid created_by = InvalidOid;
    if (!lock_group_row(entry->id, group, &created_by)) throw_group_missing(stream, group);
    require_group_dropper(stream, group, *entry, created_by);
    Datum values[2] = {Int32GetDatum(entry->id), to_text(group)};
    as_catalog_owner([&] {
        for (const char* table : {"stream_offsets", "stream_leases", "stream_groups"}) {
            const std::string name = std::string("stream_group_drop_") + table;
            SPIPlanPtr plan = cached_plan("", name,
                                          [table] {
                                              return std::string("DELETE FROM fetchq.") + table +
                                                     " WHERE stream_id = $1 AND group_name = $2";
                                          },
                                          {INT4OID, TEXTOID});
            spi_execute(plan, values, nullptr, false);
        }
    });
}

}  // namespace fetchq::ops
