// The Fetchq 4 housekeeping API: info, init, destroy_with_terrible_consequences
// and the schema upgrades. CREATE EXTENSION / ALTER EXTENSION UPDATE own the
// schema, so init and the upgrades have nothing left to do.
#include <string>
#include <vector>

#include "pg/args.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_tables.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// The API level Fetchq 4 clients compare with their own (client.init.js).
constexpr const char* kApiVersion = "4.0.0";

// info() -> (version, extension_version)
Datum info(FunctionCallInfo fcinfo) {
    spi_connect();
    SPIPlanPtr plan = cached_plan(
        "", "info_extversion",
        [] {
            return std::string(
                "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'fetchq'");
        },
        {});
    const bool found = spi_execute(plan, nullptr, nullptr, true, 1) == 1;
    const std::string installed = found ? spi_text(0, 1) : "";
    spi_finish();
    Datum values[2] = {to_text(kApiVersion), found ? to_text(installed) : (Datum)0};
    bool nulls[2] = {false, !found};
    return make_record(fcinfo, values, nulls);
}

// init(): the extension script already created everything.
Datum init(FunctionCallInfo fcinfo) { PG_RETURN_BOOL(true); }

// upgrade__310__320(), upgrade__320__330(): the extension's schema is current.
Datum upgrade(FunctionCallInfo fcinfo) { PG_RETURN_BOOL(true); }

// Unregisters every queue; returns their names.
std::vector<std::string> unregister_all_queues() {
    SPIPlanPtr plan =
        cached_plan("", "destroy_queues",
                    [] { return std::string("DELETE FROM fetchq.queues RETURNING name"); }, {});
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, nullptr, nullptr, false); });
    std::vector<std::string> names;
    names.reserve(n);
    for (uint64_t row = 0; row < n; ++row) names.emplace_back(spi_text(row, 1));
    return names;
}

// destroy_with_terrible_consequences(): drops every queue and clears the
// counters and per-queue jobs. The extension stays installed; DROP
// EXTENSION fetchq CASCADE removes it.
Datum destroy(FunctionCallInfo fcinfo) {
    spi_connect();
    // All or nothing: only a role that owns every queue destroys them all.
    for (const std::string& queue : all_queue_names()) require_queue_owner(queue);
    for (const std::string& queue : unregister_all_queues()) {
        drop_queue_tables(queue);
        queue_forget(queue);
        const char* name = queue.c_str();
        pg_call([&] { Async_Notify("fetchq_queue_drop", name); });
    }
    SPIPlanPtr clear =
        cached_plan("", "destroy_clear",
                    [] {
                        return std::string(
                            "WITH j AS (DELETE FROM fetchq.jobs WHERE queue <> '*'), "
                            "c AS (DELETE FROM fetchq.counters), "
                            "m AS (DELETE FROM fetchq.custom_counters) "
                            "DELETE FROM fetchq.metrics_writes");
                    },
                    {});
    as_catalog_owner([&] { spi_execute(clear, nullptr, nullptr, false); });
    spi_finish();
    PG_RETURN_BOOL(true);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_info, fetchq::sql_api::info)
FETCHQ_SQL_FUNCTION(fetchq_init, fetchq::sql_api::init)
FETCHQ_SQL_FUNCTION(fetchq_upgrade, fetchq::sql_api::upgrade)
FETCHQ_SQL_FUNCTION(fetchq_destroy_with_terrible_consequences, fetchq::sql_api::destroy)
