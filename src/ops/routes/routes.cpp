#include "ops/routes/routes.hpp"

#include <vector>

#include "core/error.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_lifecycle.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/routes/route_cache.hpp"
#include "ops/routes/route_rights.hpp"
#include "ops/routes/route_selector.hpp"
#include "pg/as_user.hpp"

extern "C" {
#include "storage/lock.h"
#include "utils/acl.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

// fetchq.routes is written only by its owner (row security with a read
// policy alone): the role that created the extension.
Oid routes_owner() {
    const Oid owner = table_owner("fetchq", "routes");
    if (!OidIsValid(owner))
        throw core::Error(
            core::sqlstate::kUndefinedObject, "table fetchq.routes does not exist", {},
            "Reinstall the extension: DROP EXTENSION fetchq; CREATE EXTENSION fetchq;");
    return owner;
}

std::string route_name(const std::string& source, const std::string& destination) {
    return "route from queue \"" + source + "\" to queue \"" + destination + "\"";
}

[[noreturn]] void refuse_cycle(const std::string& source, const std::string& destination,
                               const std::string& cycle, bool at_commit = false) {
    throw core::Error(
        core::sqlstate::kInvalidParameterValue,
        "a " + route_name(source, destination) + " would close a cycle",
        "The cycle would be " + cycle + "." +
            (at_commit ? " It was found when the transaction that created the route committed: "
                         "a route of the cycle was created after this one was checked (by a "
                         "transaction that committed first, or by this one)."
                       : ""),
        "A document must never come back to a queue it came through: route to "
        "another queue, or drop a route of the cycle with fetchq.route_drop().");
}

// Whether the queue is registered, seeing what this very call did before
// (subscribe creates the queue it routes to): queue_exists reads on the
// statement's snapshot, as a STABLE caller needs.
bool registered_now(const std::string& queue) {
    SPIPlanPtr plan = cached_plan(
        "", "route_queue_registered",
        [] { return std::string("SELECT 1 FROM fetchq.queues WHERE name = $1"); }, {TEXTOID});
    Datum name = to_text(queue);
    uint64_t n = 0;
    // As the catalog's owner: a role with queue grants reads no table.
    as_user(routes_owner(), [&] { n = spi_execute(plan, &name, nullptr, false, 1); });
    return n > 0;
}

// A route delivers with its creator's rights (checked again at each
// delivery), so a role routes only what it may read into a queue it may
// push into.
void require_route_rights(const std::string& source, const std::string& destination) {
    const RouteRights rights =
        route_rights(source, destination, pg_call([] { return GetUserId(); }));
    for (const std::string* q : {&source, &destination})
        if (!registered_now(*q)) throw_queue_missing(*q);
    if (!rights.source_exists) throw_queue_missing(source);
    if (!rights.destination_exists) throw_queue_missing(destination);
    if (may_route(rights)) return;
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "permission denied to create a " + route_name(source, destination),
                      route_refusal(rights, "The role", source, destination),
                      "A route delivers with its creator's rights: a role may route only all the "
                      "documents of a queue it may read into a queue it may push into.");
}

// Path from `destination` back to `source` through existing routes, as
// "source -> destination -> ... -> source"; empty when there is none.
std::string cycle_through(const std::string& source, const std::string& destination) {
    SPIPlanPtr plan = cached_plan(
        "", "route_cycle",
        [] {
            return std::string(
                "WITH RECURSIVE reach(queue, path) AS ("
                " SELECT $1::text, ARRAY[$1::text]"
                " UNION ALL"
                " SELECT r.destination::text, reach.path || r.destination::text"
                " FROM reach JOIN fetchq.routes AS r ON r.source = reach.queue"
                " WHERE r.destination::text <> ALL (reach.path))"
                " SELECT array_to_string(path, ' -> ') FROM reach WHERE queue = $2 LIMIT 1");
        },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(destination), to_text(source)};
    // The latest routes, not the transaction's snapshot: under REPEATABLE
    // READ that snapshot misses the routes committed since, which the check
    // at commit must see.
    if (spi_execute_latest(plan, values, nullptr, 1) == 0) return {};
    return source + " -> " + spi_text(0, 1);
}

// Inserts the route (the caller's rights checked); 0 when it exists.
int64_t insert_route(const std::string& source, const std::string& destination, Datum selector,
                     Oid creator) {
    SPIPlanPtr plan =
        cached_plan("", "route_insert",
                    [] {
                        return std::string(
                            "INSERT INTO fetchq.routes (source, destination, selector, owner)"
                            " VALUES ($1, $2, $3, $4::pg_catalog.regrole)"
                            " ON CONFLICT (source, destination) DO NOTHING RETURNING id");
                    },
                    {TEXTOID, TEXTOID, JSONPATHOID, OIDOID});
    Datum values[4] = {to_text(source), to_text(destination), selector, ObjectIdGetDatum(creator)};
    const char nulls[4] = {' ', ' ', selector ? ' ' : 'n', ' '};
    if (spi_execute(plan, values, nulls, false) == 0) return 0;
    return spi_int(0, 1);
}

bool is_topic(const std::string& queue) { return routes_from(queue)->is_topic; }

// The routes this transaction created, checked again when it commits.
std::vector<int64_t>& created_here() {
    static std::vector<int64_t> ids;
    return ids;
}

// 73, in the advisory space with a class of fetchq's own (LOCKTAG field4:
// no pg_advisory_lock() meets it): the commits of transactions that created
// routes take turns on it, each holding it from its check to the end of its
// commit (a transaction lock is released once the commit is visible).
constexpr uint16 kRouteCommitClass = 73;

void lock_route_commits() {
    pg_call([] {
        LOCKTAG tag;
        SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, 0, 0, kRouteCommitClass);
        (void)LockAcquire(&tag, ExclusiveLock, false, false);
    });
}

// Before the commit of a transaction that created routes: with the lock
// held, each of them that still exists is checked again on the latest
// committed routes and this transaction's own. The
// check at creation could not see routes created since by transactions
// still open then; whichever of two such transactions commits second sees
// the other's routes here, and fails if together they close a cycle.
void check_created_routes() {
    if (created_here().empty()) return;
    // Dropped with the extension in this very transaction: nothing to check.
    const Oid owner = table_owner("fetchq", "routes");
    if (!OidIsValid(owner)) return;
    spi_connect();
    pg_call([] {
        // The last statement's rows, for the latest snapshot's command id.
        CommandCounterIncrement();
        PushActiveSnapshot(GetTransactionSnapshot());
    });
    lock_route_commits();
    SPIPlanPtr find = cached_plan(
        "", "route_ends",
        [] {
            return std::string(
                "SELECT source::text, destination::text FROM fetchq.routes WHERE id = $1");
        },
        {INT8OID});
    as_user(owner, [&] {
        for (const int64_t id : created_here()) {
            Datum arg = Int64GetDatum(id);
            // Gone: rolled back with a savepoint, or dropped again.
            if (spi_execute_latest(find, &arg, nullptr, 1) == 0) continue;
            const std::string source = spi_text(0, 1);
            const std::string destination = spi_text(0, 2);
            const std::string cycle = cycle_through(source, destination);
            if (!cycle.empty()) refuse_cycle(source, destination, cycle, true);
        }
    });
    pg_call([] { PopActiveSnapshot(); });
    spi_finish();
}

// A prepared transaction would keep the lock of the check at commit until
// COMMIT PREPARED, making every other commit that created routes wait for
// as long: refused, as PostgreSQL refuses one that used temporary objects.
void refuse_prepare() {
    throw core::Error(core::sqlstate::kFeatureNotSupported,
                      "cannot PREPARE a transaction that created routes",
                      "Routes are checked for cycles when their transaction commits, under a "
                      "lock that a prepared transaction would hold until COMMIT PREPARED.",
                      "Create routes in a transaction that commits without PREPARE TRANSACTION.");
}

void on_xact(XactEvent event, void*) {
    switch (event) {
        case XACT_EVENT_PRE_COMMIT:
            // Every commit comes here: one that created no route does nothing.
            if (!created_here().empty())
                callback_entry(ERROR, "routes_pre_commit", check_created_routes);
            break;
        case XACT_EVENT_PRE_PREPARE:
            if (!created_here().empty())
                callback_entry(ERROR, "routes_pre_prepare", refuse_prepare);
            break;
        case XACT_EVENT_COMMIT:
        case XACT_EVENT_ABORT:
        case XACT_EVENT_PARALLEL_ABORT:
        case XACT_EVENT_PREPARE:
            created_here().clear();
            break;
        default:
            break;
    }
}

}  // namespace

int64_t create_route(const std::string& source, const std::string& destination,
                     const std::optional<std::string>& selector) {
    if (source == destination) refuse_cycle(source, destination, source + " -> " + source);
    require_route_rights(source, destination);
    const Datum path = selector ? parse_selector(*selector) : 0;
    const Oid creator = pg_call([] { return GetUserId(); });
    int64_t id = 0;
    // Checked now against the routes committed so far, and again at commit
    // (check_created_routes) against those committed since: no lock is held
    // in between, so an open transaction that created a route holds up no
    // other route creation, route_drop, queue_drop or push.
    as_user(routes_owner(), [&] {
        const std::string cycle = cycle_through(source, destination);
        if (!cycle.empty()) refuse_cycle(source, destination, cycle);
        id = insert_route(source, destination, path, creator);
    });
    if (id == 0)
        throw core::Error(core::sqlstate::kDuplicateObject,
                          "a " + route_name(source, destination) + " already exists", {},
                          "Drop it first with fetchq.route_drop('" + source + "', '" + destination +
                              "') to change its selector.");
    created_here().push_back(id);
    return id;
}

void routes_register_callbacks() { RegisterXactCallback(on_xact, nullptr); }

int64_t drop_route(const std::string& source, const std::string& destination) {
    const Oid owner = routes_owner();
    SPIPlanPtr find = cached_plan(
        "", "route_find",
        [] {
            return std::string(
                "SELECT id, owner::oid FROM fetchq.routes WHERE source = $1 AND destination = $2");
        },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(source), to_text(destination)};
    uint64_t found = 0;
    as_user(owner, [&] { found = spi_execute(find, values, nullptr, true, 1); });
    if (found == 0)
        throw core::Error(core::sqlstate::kUndefinedObject,
                          "a " + route_name(source, destination) + " does not exist", {},
                          "The routes are listed in fetchq.routes.");
    const int64_t id = spi_int(0, 1);
    bool isnull = false;
    const Oid creator = DatumGetObjectId(spi_value(0, 2, &isnull));
    const Oid source_owner = queue_owner_or_invalid(source);
    const Oid destination_owner = queue_owner_or_invalid(destination);
    const bool manages_source = OidIsValid(source_owner) && queue_has_grants(source) &&
                                queue_privilege_held(source, core::QueuePrivilege::kManage,
                                                     pg_call([] { return GetUserId(); }));
    const bool allowed = pg_call([&] {
        const Oid me = GetUserId();
        return has_privs_of_role(me, creator) || manages_source ||
               (OidIsValid(source_owner) && has_privs_of_role(me, source_owner)) ||
               (OidIsValid(destination_owner) && has_privs_of_role(me, destination_owner));
    });
    if (!allowed) {
        const char* role = pg_call([&] { return GetUserNameFromId(creator, true); });
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "must be the creator of the " + route_name(source, destination),
                          "It was created by role \"" + std::string(role ? role : "?") + "\".",
                          "Only its creator, the owner of either queue, a role with manage on "
                          "the source, or a superuser may drop it.");
    }
    SPIPlanPtr remove = cached_plan(
        "", "route_delete", [] { return std::string("DELETE FROM fetchq.routes WHERE id = $1"); },
        {INT8OID});
    Datum arg = Int64GetDatum(id);
    as_user(owner, [&] { spi_execute(remove, &arg, nullptr, false); });
    return id;
}

CreatedTopic create_topic(const std::string& topic) {
    const CreatedQueue q = create_queue(topic);
    if (!q.created) {
        if (!is_topic(topic))
            throw core::Error(core::sqlstate::kDuplicateObject,
                              "queue \"" + topic + "\" exists and is not a topic", {},
                              "Choose another name, or route from the queue with "
                              "fetchq.route_create().");
        return {false, q.id};
    }
    SPIPlanPtr mark = cached_plan(
        "", "topic_mark",
        [] { return std::string("UPDATE fetchq.queues SET is_topic = true WHERE name = $1"); },
        {TEXTOID});
    Datum name = to_text(topic);
    as_catalog_owner([&] { spi_execute(mark, &name, nullptr, false); });
    return {true, q.id};
}

void require_topic(const std::string& topic) {
    if (is_topic(topic)) return;
    if (!registered_now(topic)) throw_queue_missing(topic);
    throw core::Error(core::sqlstate::kWrongObjectType, "queue \"" + topic + "\" is not a topic",
                      {},
                      "Create a topic with fetchq.topic_create(), or route from a queue with "
                      "fetchq.route_create().");
}

}  // namespace fetchq::ops
