#include "ops/queues/queue_lifecycle.hpp"

#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/queues/queue_tables.hpp"
#include "ops/shared_memory/session_end.hpp"
#include "pg/as_user.hpp"
#include "pg/fault_injection.hpp"

extern "C" {
#include "utils/acl.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

std::optional<int32_t> registered_id(const std::string& queue) {
    SPIPlanPtr select = cached_plan(
        "", "queue_id", [] { return std::string("SELECT id FROM fetchq.queues WHERE name = $1"); },
        {TEXTOID});
    Datum name = to_text(queue);
    std::optional<int32_t> id;
    // As the catalog's owner: a role with a queue's grants only may not read
    // fetchq.queues; callers check their own right first.
    as_catalog_owner([&] {
        if (spi_execute(select, &name, nullptr, true, 1) == 1)
            id = static_cast<int32_t>(spi_int(0, 1));
    });
    return id;
}

namespace {

// 42501 unless the caller may write the queue's catalog rows (settings,
// jobs): it has the privileges of the owner of the queue's tables.
void require_own_rows(const std::string& queue) {
    if (queue_rows_are_own(queue, pg_call([] { return GetUserId(); }))) return;
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "must be owner of queue \"" + queue + "\"",
                      "The catalog rows of a queue are written only for the role that owns its "
                      "tables.",
                      {});
}

// The rows of a queue without tables are nobody's: only a role with the
// privileges of the catalog's owner (a superuser has them) removes them;
// for any other, as row security hid them, the queue does not exist.
void require_catalog_owner(const std::string& queue) {
    const Oid owner = catalog_owner();
    if (!pg_call([&] { return has_privs_of_role(GetUserId(), owner); })) throw_queue_missing(queue);
}

void warn_if_untrusted_owner(const std::string& queue) {
    const Oid owner = queue_owner_or_invalid(queue);
    const char* role = pg_call([&]() -> const char* {
        if (!superuser() || superuser_arg(owner)) return nullptr;
        return GetUserNameFromId(owner, true);
    });
    if (role == nullptr) return;
    const std::string message =
        "queue \"" + queue + "\" exists and belongs to role \"" + role + "\"";
    pg_call([&] {
        ereport(WARNING,
                (errmsg_internal("%s", message.c_str()),
                 errdetail("Pushing to or finishing documents of it as a superuser runs that "
                           "role's triggers with superuser rights."),
                 errhint("Use a role without superuser rights for this queue's documents.")));
    });
}

// Inserts the catalog row of a queue whose tables exist, as the catalog's
// owner: a role registers only a queue whose tables it owns (as the row
// security of fetchq.queues would let it); returns its id.
int32_t insert_queue_row(const std::string& queue) {
    require_own_rows(queue);
    SPIPlanPtr insert =
        cached_plan("", "queue_register",
                    [] {
                        return std::string(
                            "INSERT INTO fetchq.queues (name, created_at) VALUES ($1, now()) "
                            "RETURNING id");
                    },
                    {TEXTOID});
    Datum name = to_text(queue);
    int32_t id = 0;
    as_catalog_owner([&] {
        spi_execute(insert, &name, nullptr, false);
        id = static_cast<int32_t>(spi_int(0, 1));
    });
    return id;
}

void add_default_jobs(const std::string& queue) {
    SPIPlanPtr plan = cached_plan(
        "", "queue_jobs",
        [] {
            return std::string(
                "INSERT INTO fetchq.jobs (task, queue, next_iteration, last_iteration, "
                "attempts, iterations, settings, payload) VALUES "
                "('mnt', $1, now(), NULL, 0, 0, '{\"delay\":\"100ms\", \"duration\":\"1m\", "
                "\"limit\":500}', '{}'), "
                "('sts', $1, now(), NULL, 0, 0, '{\"delay\":\"5m\", \"duration\":\"5m\"}', '{}'), "
                "('cmp', $1, now(), NULL, 0, 0, '{\"delay\":\"10m\", \"duration\":\"5m\"}', '{}'), "
                "('drp', $1, now(), NULL, 0, 0, '{\"delay\":\"10m\", \"duration\":\"5m\"}', '{}') "
                "ON CONFLICT DO NOTHING");
        },
        {TEXTOID});
    Datum name = to_text(queue);
    as_catalog_owner([&] { spi_execute(plan, &name, nullptr, false); });
}

void notify(const char* channel, const std::string& payload) {
    const char* text = payload.c_str();
    pg_call([&] { Async_Notify(channel, text); });
}

// The scheduler's record of a temporary queue, in a table that only its
// owner (the extension's) may write: inserted as that owner, restricted.
void register_temporary(const std::string& queue, int64_t key, const Interval* idle_timeout) {
    const Oid registry_owner = table_owner("fetchq", "temporary_queues");
    if (!OidIsValid(registry_owner))
        throw core::Error(
            core::sqlstate::kUndefinedObject, "table fetchq.temporary_queues does not exist", {},
            "Reinstall the extension: DROP EXTENSION fetchq; CREATE EXTENSION fetchq;");
    const Oid creator = pg_call([] { return GetUserId(); });
    SPIPlanPtr plan = cached_plan("", "queue_register_temporary",
                                  [] {
                                      return std::string(
                                          "INSERT INTO fetchq.temporary_queues (name, "
                                          "session_key, created_by, idle_timeout) VALUES ($1, "
                                          "$2, $3, $4)");
                                  },
                                  {TEXTOID, INT8OID, OIDOID, INTERVALOID});
    Datum values[4] = {to_text(queue), Int64GetDatum(key), ObjectIdGetDatum(creator),
                       idle_timeout ? IntervalPGetDatum(idle_timeout) : (Datum)0};
    const char nulls[4] = {' ', ' ', ' ', idle_timeout ? ' ' : 'n'};
    as_user(registry_owner, [&] { spi_execute(plan, values, nulls, false); });
}

}  // namespace

CreatedQueue create_queue(const std::string& queue) {
    CreatedQueue out;
    // Looked up first, so that asking again consumes no id.
    const bool may_create = may_create_in_data_schema();
    if (std::optional<int32_t> id = registered_id(queue)) {
        // Fetchq 4's "create if missing" at an application's start: an
        // existing queue is no error for a role that may read it.
        const Oid me = pg_call([] { return GetUserId(); });
        if (!may_create && !queue_privilege_held(queue, core::QueuePrivilege::kRead, me))
            require_create_in_data_schema("queue \"" + queue + "\"");
        out.id = *id;
        // An existing queue: as in Fetchq 4, not an error. A superuser is
        // warned when it belongs to an ordinary role, whose triggers the
        // superuser's pushes and outcomes would run with superuser rights.
        if (OidIsValid(queue_owner_or_invalid(queue))) {
            warn_if_untrusted_owner(queue);
            return out;
        }
        // A catalog row without its tables (a partial restore, a table
        // dropped by hand) is made whole, as Fetchq 4 did, but only by a
        // superuser: whose queue it was is no longer known.
        if (!pg_call([] { return superuser(); }))
            throw core::Error(core::sqlstate::kInsufficientPrivilege,
                              "queue \"" + queue + "\" is registered but has no tables",
                              "Whose queue it was is not known any more.",
                              "A superuser may re-create its tables with fetchq.queue_create, "
                              "or remove it with fetchq.queue_drop.");
        create_queue_tables(queue);
    } else {
        if (!may_create) require_create_in_data_schema("queue \"" + queue + "\"");
        create_queue_tables(queue);
        out.id = insert_queue_row(queue);
    }
    out.created = true;
    require_own_rows(queue);
    add_default_jobs(queue);
    notify("fetchq_queue_create", queue);
    return out;
}

int32_t drop_queue(const std::string& queue) {
    // A queue with tables is its owner's; a catalog row without tables is
    // left to the superuser and the extension's owner, as row security
    // leaves it.
    if (OidIsValid(queue_owner_or_invalid(queue)))
        require_queue_owner(queue);
    else
        require_catalog_owner(queue);
    SPIPlanPtr plan = cached_plan(
        "", "queue_unregister",
        [] { return std::string("DELETE FROM fetchq.queues WHERE name = $1 RETURNING id"); },
        {TEXTOID});
    Datum name = to_text(queue);
    int32_t id = 0;
    as_catalog_owner([&] {
        if (spi_execute(plan, &name, nullptr, false) != 1) throw_queue_missing(queue);
        id = static_cast<int32_t>(spi_int(0, 1));
    });
    drop_queue_tables(queue);
    SPIPlanPtr cleanup =
        cached_plan("", "queue_cleanup",
                    [] {
                        return std::string(
                            "WITH j AS (DELETE FROM fetchq.jobs WHERE queue = $1), "
                            "c AS (DELETE FROM fetchq.counters WHERE queue = $1), "
                            "m AS (DELETE FROM fetchq.custom_counters WHERE queue = $1) "
                            "DELETE FROM fetchq.metrics_writes WHERE queue = $1");
                    },
                    {TEXTOID});
    as_catalog_owner([&] { spi_execute(cleanup, &name, nullptr, false); });
    queue_forget(queue);
    notify("fetchq_queue_drop", queue);
    return id;
}

namespace {

// The n-th name (from 0) a call of queue_create_temporary tries: random, or
// under fetchq.fault_injection = 'temporary_queue_name' (tests only) tmp_
// and n in hex, so that a test can take it first.
std::string draw_temporary_name(int n) {
    unsigned char bytes[core::kTemporaryNameBytes] = {};
    if (fault_injected("temporary_queue_name")) {
        bytes[core::kTemporaryNameBytes - 1] = static_cast<unsigned char>(n);
    } else if (!pg_call([&] { return pg_strong_random(bytes, sizeof(bytes)); })) {
        throw core::Error(core::sqlstate::kInternalError,
                          "could not generate random bits for a temporary queue's name");
    }
    return core::temporary_queue_name(bytes);
}

// Whether a queue of that name is registered, or anything in fetchq_data
// (a table, index, sequence or type) is named as one of its tables would be
// or after them: creating the queue would then fail with "already exists".
bool name_taken(const std::string& queue) {
    SPIPlanPtr plan =
        cached_plan("", "queue_name_taken",
                    [] {
                        return std::string(
                            "SELECT EXISTS (SELECT 1 FROM fetchq.queues WHERE name = $1)"
                            " OR EXISTS (SELECT 1 FROM pg_catalog.pg_class"
                            "   WHERE relnamespace = 'fetchq_data'::pg_catalog.regnamespace"
                            "   AND relname >= ($1 || '__')::pg_catalog.name"
                            "   AND relname < ($1 || '_`')::pg_catalog.name)"
                            " OR EXISTS (SELECT 1 FROM pg_catalog.pg_type"
                            "   WHERE typnamespace = 'fetchq_data'::pg_catalog.regnamespace"
                            "   AND typname >= ($1 || '__')::pg_catalog.name"
                            "   AND typname < ($1 || '_`')::pg_catalog.name)");
                    },
                    {TEXTOID});
    Datum name = to_text(queue);
    bool taken = false;
    as_catalog_owner([&] {
        spi_execute(plan, &name, nullptr, true, 1);
        bool isnull = false;
        taken = DatumGetBool(spi_value(0, 1, &isnull));
    });
    return taken;
}

// A free name for a temporary queue: random, drawn again when taken.
std::string free_temporary_name() {
    for (int n = 0; n < core::kTemporaryNameAttempts; ++n) {
        std::string queue = draw_temporary_name(n);
        if (!name_taken(queue)) return queue;
    }
    throw core::Error(core::sqlstate::kDuplicateTable,
                      "could not choose a free name for a temporary queue",
                      "The " + std::to_string(core::kTemporaryNameAttempts) +
                          " names drawn were all taken by queues or tables of schema "
                          "fetchq_data.",
                      "Retry; if it happens again, look for what creates objects named tmp_* in "
                      "schema fetchq_data.");
}

}  // namespace

std::string create_temporary_queue(const Interval* idle_timeout) {
    require_create_in_data_schema("a temporary queue");
    const int64_t key = session_key();
    const std::string queue = free_temporary_name();
    create_queue_tables(queue, /*unlogged=*/true);
    insert_queue_row(queue);
    SPIPlanPtr own = cached_plan(
        "", "queue_own",
        [] { return std::string("UPDATE fetchq.queues SET owner_session = $2 WHERE name = $1"); },
        {TEXTOID, INT8OID});
    Datum values[2] = {to_text(queue), Int64GetDatum(key)};
    as_catalog_owner([&] { spi_execute(own, values, nullptr, false); });
    register_temporary(queue, key, idle_timeout);
    notify("fetchq_queue_create", queue);
    watch_session_end();
    return queue;
}

}  // namespace fetchq::ops
