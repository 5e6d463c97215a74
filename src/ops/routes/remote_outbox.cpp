#include "ops/routes/remote_outbox.hpp"

#include "core/error.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/routes/route_rights.hpp"
#include "pg/guard.hpp"
#include "pg/replication.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "commands/dbcommands.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

// A copy, not the caller's object: an error in the push it was set for
// leaves no pointer into a frame that unwound.
std::optional<Origin> g_origin;
bool g_writing = false;

[[noreturn]] void refuse_send(const Route& route, const std::string& why) {
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "remote route " + std::to_string(route.id) + " from queue \"" + route.source +
                          "\" to \"" + route.destination + "\" may not deliver",
                      why,
                      "Give that role the right again, or drop the route with "
                      "fetchq.remote_route_drop('" +
                          route.source + "', '" + route.destination + "').");
}

// The creator must still read every document of the source, as a local
// route's creator must (ops/routes/route_rights.hpp).
void check_sender(const Route& route) {
    const RouteRights rights = route_rights(route.source, route.source, route.owner);
    if (!rights.role_exists)
        refuse_send(route,
                    "Its creator, role " + std::to_string(route.owner) + ", no longer exists.");
    if (rights.may_read && !rights.filtered) return;
    const char* role = pg_call([&] { return GetUserNameFromId(route.owner, true); });
    refuse_send(route, route_refusal(rights, "Its creator, role \"" + std::string(role) + "\",",
                                     route.source, route.source));
}

}  // namespace

const std::string& this_database() {
    static std::string name;
    if (name.empty()) {
        const char* db = pg_call([] { return get_database_name(MyDatabaseId); });
        name = std::to_string(system_identifier()) + "/" + (db ? db : "?");
    }
    return name;
}

void set_arrival_origin(const Origin* origin) {
    if (origin == nullptr)
        g_origin.reset();
    else
        g_origin = *origin;
}

bool writing_outbox() { return g_writing; }

int64_t remote_send(const Route& route, const RemoteDoc& doc) {
    check_sender(route);
    std::vector<std::string> seenby;
    std::string source_db;
    if (g_origin) {
        seenby = g_origin->seenby;
        source_db = g_origin->source_db;
    } else {
        seenby.push_back(this_database());
        source_db = this_database();
    }
    SPIPlanPtr insert = cached_plan(
        "", "remote_outbox_insert",
        [] {
            return std::string(
                "INSERT INTO fetchq.remote_outbox (link, queue, subject, version, priority,"
                " next_iteration, expires_at, payload, source_db, seenby, route_id, sent_at)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
                " pg_catalog.clock_timestamp()) RETURNING ctid");
        },
        {TEXTOID, TEXTOID, TEXTOID, INT4OID, INT4OID, TIMESTAMPTZOID, TIMESTAMPTZOID, JSONBOID,
         TEXTOID, TEXTARRAYOID, INT8OID});
    SPIPlanPtr remove = cached_plan(
        "", "remote_outbox_delete",
        [] { return std::string("DELETE FROM fetchq.remote_outbox WHERE ctid = $1"); }, {TIDOID});
    Datum values[11] = {to_text(route.link),
                        to_text(route.remote_queue),
                        doc.subject,
                        Int32GetDatum(doc.version),
                        Int32GetDatum(doc.priority),
                        TimestampTzGetDatum(doc.next_iteration),
                        TimestampTzGetDatum(doc.expires_at ? *doc.expires_at : 0),
                        doc.payload,
                        to_text(source_db),
                        text_array(seenby),
                        Int64GetDatum(route.id)};
    const char nulls[11] = {
        ' ', ' ', ' ', ' ', ' ', ' ', doc.expires_at ? ' ' : 'n', doc.payload_null ? 'n' : ' ',
        ' ', ' ', ' '};
    // As the catalog's owner; the row goes again at once: logical decoding
    // keeps the insert, publish = 'insert' ignores the delete.
    as_catalog_owner([&] {
        g_writing = true;
        spi_execute(insert, values, nulls, false);
        g_writing = false;
        bool isnull = false;
        Datum ctid = spi_value(0, 1, &isnull);
        spi_execute(remove, &ctid, nullptr, false);
    });
    return 1;
}

}  // namespace fetchq::ops
