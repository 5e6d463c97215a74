// remote_route_create, remote_route_drop, remote_subscribe,
// remote_unsubscribe, doc_origin and the trigger remote_inbox: the SQL
// entries of ops/remote_routes.
#include <optional>

#include "ops/remote_routes/remote_routes.hpp"
#include "ops/routes/remote_outbox.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

bool arg_flag(FunctionCallInfo fcinfo, int i, const char* name) {
    if (PG_NARGS() <= i) return true;
    return arg_bool(fcinfo, i, name);
}

// remote_route_create(source, destination, selector DEFAULT NULL) -> the
// route's id
Datum remote_route_create(FunctionCallInfo fcinfo) {
    const std::string source = arg_queue(fcinfo, 0, "source");
    const RemoteDestination to = parse_remote_destination(arg_text(fcinfo, 1, "destination"));
    const std::optional<std::string> selector = arg_text_or_null(fcinfo, 2);
    spi_connect();
    const int64_t id = create_remote_route(source, to, selector);
    spi_finish();
    PG_RETURN_INT64(id);
}

// remote_route_drop(source, destination) -> the dropped route's id
Datum remote_route_drop(FunctionCallInfo fcinfo) {
    const std::string source = arg_queue(fcinfo, 0, "source");
    const RemoteDestination to = parse_remote_destination(arg_text(fcinfo, 1, "destination"));
    spi_connect();
    const int64_t id = drop_remote_route(source, to);
    spi_finish();
    PG_RETURN_INT64(id);
}

// remote_subscribe(name, conninfo, as_role, create_slot DEFAULT true) -> true
Datum remote_subscribe(FunctionCallInfo fcinfo) {
    const std::string link = arg_queue(fcinfo, 0, "name");
    const std::string conninfo = arg_text(fcinfo, 1, "conninfo");
    const Oid as_role = arg_role(fcinfo, 2, "as_role");
    const bool create_slot = arg_flag(fcinfo, 3, "create_slot");
    spi_connect();
    ops::remote_subscribe(link, conninfo, as_role, create_slot);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// remote_unsubscribe(name, drop_slot DEFAULT true) -> true
Datum remote_unsubscribe(FunctionCallInfo fcinfo) {
    const std::string link = arg_queue(fcinfo, 0, "name");
    const bool drop_slot = arg_flag(fcinfo, 1, "drop_slot");
    spi_connect();
    ops::remote_unsubscribe(link, drop_slot);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// doc_origin(queue, subject) -> (source_db, seenby, link, sent_at,
// arrived_at); no row for a document no remote route delivered.
Datum doc_origin(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const std::string subject = arg_text(fcinfo, 1, "subject");
    begin_rows(fcinfo);
    spi_connect();
    const DocOrigin o = ops::doc_origin(queue, subject);
    if (o.found) {
        Datum values[5] = {to_text(o.source_db), text_array(o.seenby), to_text(o.link),
                           TimestampTzGetDatum(o.sent_at ? *o.sent_at : 0),
                           TimestampTzGetDatum(o.arrived_at)};
        bool nulls[5] = {false, false, false, !o.sent_at.has_value(), false};
        add_row(fcinfo, values, nulls);
    }
    spi_finish();
    return (Datum)0;
}

std::string column_text(HeapTuple tuple, TupleDesc desc, int col, bool* isnull) {
    const Datum d = pg_call([&] { return SPI_getbinval(tuple, desc, col, isnull); });
    if (*isnull) return {};
    return pg_call([&] { return TextDatumGetCString(d); });
}

// remote_inbox(): BEFORE INSERT trigger of fetchq.remote_outbox, enabled for
// replica only: it fires in the apply worker of a subscription, where it
// pushes the applied row into its queue and keeps nothing; the sending half
// (remote_send) inserting there lets its own rows in.
Datum remote_inbox(FunctionCallInfo fcinfo) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "this function is a trigger function", {},
                          "The extension attaches it to fetchq.remote_outbox.");
    auto* trigger = reinterpret_cast<TriggerData*>(fcinfo->context);
    const Relation rel = trigger->tg_relation;
    const bool on_outbox =
        TRIGGER_FIRED_BEFORE(trigger->tg_event) && TRIGGER_FIRED_FOR_ROW(trigger->tg_event) &&
        TRIGGER_FIRED_BY_INSERT(trigger->tg_event) &&
        strcmp(RelationGetRelationName(rel), "remote_outbox") == 0 &&
        RelationGetNamespace(rel) == pg_call([] { return get_namespace_oid("fetchq", true); });
    if (!on_outbox)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "fetchq.remote_inbox() is the trigger of fetchq.remote_outbox alone", {},
                          "Do not attach it to another table.");
    HeapTuple tuple = trigger->tg_trigtuple;
    if (writing_outbox()) return PointerGetDatum(tuple);
    const TupleDesc desc = trigger->tg_relation->rd_att;
    // The columns in the order of src/schema/09_remote_routes.sql.
    Incoming doc;
    bool isnull = false;
    doc.link = column_text(tuple, desc, 1, &isnull);
    doc.queue = column_text(tuple, desc, 2, &isnull);
    doc.subject = column_text(tuple, desc, 3, &isnull);
    doc.version = DatumGetInt32(SPI_getbinval(tuple, desc, 4, &isnull));
    doc.priority = DatumGetInt32(SPI_getbinval(tuple, desc, 5, &isnull));
    doc.next_iteration = DatumGetTimestampTz(SPI_getbinval(tuple, desc, 6, &isnull));
    const Datum expires = SPI_getbinval(tuple, desc, 7, &isnull);
    if (!isnull) doc.expires_at = DatumGetTimestampTz(expires);
    doc.payload = SPI_getbinval(tuple, desc, 8, &doc.payload_null);
    doc.source_db = column_text(tuple, desc, 9, &isnull);
    const Datum seenby = SPI_getbinval(tuple, desc, 10, &isnull);
    if (!isnull) {
        Datum* elems = nullptr;
        bool* nulls = nullptr;
        int n = 0;
        pg_call([&] {
            deconstruct_array(DatumGetArrayTypeP(seenby), TEXTOID, -1, false, TYPALIGN_INT, &elems,
                              &nulls, &n);
        });
        for (int i = 0; i < n; ++i)
            if (!nulls[i]) {
                const Datum e = elems[i];
                doc.seenby.emplace_back(pg_call([&] { return TextDatumGetCString(e); }));
            }
    }
    doc.sent_at = DatumGetTimestampTz(SPI_getbinval(tuple, desc, 12, &isnull));
    if (isnull) doc.sent_at = 0;
    spi_connect();
    receive(doc);
    spi_finish();
    return PointerGetDatum(nullptr);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_remote_route_create, fetchq::sql_api::remote_route_create)
FETCHQ_SQL_FUNCTION(fetchq_remote_route_drop, fetchq::sql_api::remote_route_drop)
FETCHQ_SQL_FUNCTION(fetchq_remote_subscribe, fetchq::sql_api::remote_subscribe)
FETCHQ_SQL_FUNCTION(fetchq_remote_unsubscribe, fetchq::sql_api::remote_unsubscribe)
FETCHQ_SQL_FUNCTION(fetchq_doc_origin, fetchq::sql_api::doc_origin)
FETCHQ_SQL_FUNCTION(fetchq_remote_inbox, fetchq::sql_api::remote_inbox)
