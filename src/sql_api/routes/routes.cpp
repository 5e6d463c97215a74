// route_create, route_drop, topic_create, subscribe, unsubscribe and
// subscribe_temporary: the SQL entries of ops/routes/routes.
#include <optional>

#include "ops/queues/queue_lifecycle.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/routes/routes.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// route_create(source, destination, selector DEFAULT NULL) -> the route's id
Datum route_create(FunctionCallInfo fcinfo) {
    const std::string source = arg_queue(fcinfo, 0, "source");
    const std::string destination = arg_queue(fcinfo, 1, "destination");
    const std::optional<std::string> selector = arg_text_or_null(fcinfo, 2);
    spi_connect();
    const int64_t id = create_route(source, destination, selector);
    spi_finish();
    PG_RETURN_INT64(id);
}

// route_drop(source, destination) -> the dropped route's id
Datum route_drop(FunctionCallInfo fcinfo) {
    const std::string source = arg_queue(fcinfo, 0, "source");
    const std::string destination = arg_queue(fcinfo, 1, "destination");
    spi_connect();
    const int64_t id = drop_route(source, destination);
    spi_finish();
    PG_RETURN_INT64(id);
}

// topic_create(name) -> (was_created, queue_id), as queue_create
Datum topic_create(FunctionCallInfo fcinfo) {
    const std::string topic = arg_queue(fcinfo, 0, "name");
    spi_connect();
    const CreatedTopic t = create_topic(topic);
    spi_finish();
    Datum values[2] = {BoolGetDatum(t.created), Int32GetDatum(t.id)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

// subscribe(topic, queue, selector DEFAULT NULL) -> the route's id; creates
// the queue if it does not exist.
Datum subscribe(FunctionCallInfo fcinfo) {
    const std::string topic = arg_queue(fcinfo, 0, "topic");
    const std::string queue = arg_queue(fcinfo, 1, "queue");
    const std::optional<std::string> selector = arg_text_or_null(fcinfo, 2);
    spi_connect();
    require_topic(topic);
    // A queue that has its tables is not created again: creating reads the
    // catalog as the caller, who may hold only queue grants.
    if (!OidIsValid(queue_owner_or_invalid(queue))) create_queue(queue);
    const int64_t id = create_route(topic, queue, selector);
    spi_finish();
    PG_RETURN_INT64(id);
}

// unsubscribe(topic, queue) -> the dropped route's id; the queue stays.
Datum unsubscribe(FunctionCallInfo fcinfo) {
    const std::string topic = arg_queue(fcinfo, 0, "topic");
    const std::string queue = arg_queue(fcinfo, 1, "queue");
    spi_connect();
    const int64_t id = drop_route(topic, queue);
    spi_finish();
    PG_RETURN_INT64(id);
}

// subscribe_temporary(topic, selector DEFAULT NULL, idle_timeout DEFAULT
// NULL) -> the name of a new temporary queue of this session, subscribed to
// the topic.
Datum subscribe_temporary(FunctionCallInfo fcinfo) {
    const std::string topic = arg_queue(fcinfo, 0, "topic");
    const std::optional<std::string> selector = arg_text_or_null(fcinfo, 1);
    const Interval* idle_timeout = arg_idle_timeout(fcinfo, 2);
    spi_connect();
    require_topic(topic);
    const std::string queue = create_temporary_queue(idle_timeout);
    create_route(topic, queue, selector);
    spi_finish();
    return to_text(queue);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_route_create, fetchq::sql_api::route_create)
FETCHQ_SQL_FUNCTION(fetchq_route_drop, fetchq::sql_api::route_drop)
FETCHQ_SQL_FUNCTION(fetchq_topic_create, fetchq::sql_api::topic_create)
FETCHQ_SQL_FUNCTION(fetchq_subscribe, fetchq::sql_api::subscribe)
FETCHQ_SQL_FUNCTION(fetchq_unsubscribe, fetchq::sql_api::unsubscribe)
FETCHQ_SQL_FUNCTION(fetchq_subscribe_temporary, fetchq::sql_api::subscribe_temporary)
