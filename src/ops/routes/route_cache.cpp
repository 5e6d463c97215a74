#include "ops/routes/route_cache.hpp"

#include "ops/catalog/catalog_cache.hpp"
#include "ops/routes/route_selector.hpp"
#include "pg/as_user.hpp"
#include "pg/guard.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;
namespace {

// Column `col` of SPI's row, a selector or NULL, into the route.
void read_selector(uint64_t row, int col, Route& r, QueueRoutes& all) {
    bool isnull = true;
    Datum selector = spi_value(row, col, &isnull);
    if (isnull) return;
    const auto* bytes = pg_call([&] { return DatumGetPointer(PG_DETOAST_DATUM(selector)); });
    r.selector.assign(bytes, VARSIZE(bytes));
    r.uses_variables = selector_uses_variables(r.selector_datum());
    all.any_variables |= r.uses_variables;
}

// Read as the owner of fetchq.routes, whatever the pusher may read of the
// catalog: routes are the extension's, not the pusher's.
std::shared_ptr<const QueueRoutes> read_routes(const std::string& queue) {
    auto out = std::make_shared<QueueRoutes>();
    const Oid owner = table_owner("fetchq", "routes");
    if (!OidIsValid(owner)) return out;
    SPIPlanPtr plan = cached_plan(
        "", "routes_from",
        [] {
            return std::string(
                "SELECT q.is_topic, r.id, r.destination::text, r.owner::oid, r.selector"
                " FROM fetchq.queues AS q LEFT JOIN fetchq.routes AS r ON r.source = q.name"
                " WHERE q.name = $1 ORDER BY r.id");
        },
        {TEXTOID});
    SPIPlanPtr remote_plan =
        cached_plan("", "remote_routes_from",
                    [] {
                        return std::string(
                            "SELECT id, link::text, queue::text, owner::oid, selector"
                            " FROM fetchq.remote_routes WHERE source = $1 ORDER BY id");
                    },
                    {TEXTOID});
    Datum arg = to_text(queue);
    as_user(owner, [&] {
        const uint64_t n = spi_execute_latest(plan, &arg, nullptr);
        for (uint64_t row = 0; row < n; ++row) {
            bool isnull = true;
            out->is_topic = DatumGetBool(spi_value(row, 1, &isnull));
            if (spi_value(row, 2, &isnull), isnull) continue;  // no route
            Route r;
            r.id = spi_int(row, 2);
            r.source = queue;
            r.destination = spi_text(row, 3);
            r.owner = DatumGetObjectId(spi_value(row, 4, &isnull));
            read_selector(row, 5, r, *out);
            out->routes.push_back(std::move(r));
        }
        const uint64_t remote = spi_execute_latest(remote_plan, &arg, nullptr);
        for (uint64_t row = 0; row < remote; ++row) {
            Route r;
            r.id = spi_int(row, 1);
            r.source = queue;
            r.remote = true;
            r.link = spi_text(row, 2);
            r.remote_queue = spi_text(row, 3);
            r.destination = r.link + "/" + r.remote_queue;
            bool isnull = true;
            r.owner = DatumGetObjectId(spi_value(row, 4, &isnull));
            read_selector(row, 5, r, *out);
            out->routes.push_back(std::move(r));
        }
    });
    return out;
}

}  // namespace

std::shared_ptr<const QueueRoutes> routes_from(const std::string& queue) {
    static CatalogCache<std::shared_ptr<const QueueRoutes>> cache;
    return cache.get(queue, [&] { return read_routes(queue); });
}

}  // namespace fetchq::ops
