// queue_create, queue_drop, queue_get_id, queue_create_temporary: the SQL
// entries of ops/queues/queue_lifecycle.
#include <optional>

#include "ops/documents/doc_dependencies.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_lifecycle.hpp"
#include "ops/queues/queue_sql.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

Datum queue_create(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const CreatedQueue q = create_queue(queue);
    spi_finish();
    Datum values[2] = {BoolGetDatum(q.created), Int32GetDatum(q.id)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

Datum queue_drop(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kManage);
    forget_queue_documents(queue, "dropped with its queue");
    const int32_t id = drop_queue(queue);
    leave_queue(scope);
    spi_finish();
    Datum values[2] = {BoolGetDatum(true), Int32GetDatum(id)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

// queue_create_temporary(idle_timeout DEFAULT NULL): a queue owned by this
// session, with unlogged tables, dropped by the scheduler soon after the
// session ends, or once idle for idle_timeout.
Datum queue_create_temporary(FunctionCallInfo fcinfo) {
    const Interval* idle_timeout = arg_idle_timeout(fcinfo, 0);
    spi_connect();
    const std::string queue = create_temporary_queue(idle_timeout);
    spi_finish();
    return to_text(queue);
}

// Fetchq registered an unknown name here without creating its tables; a
// half-made queue helps nobody, so an unknown name is an error.
Datum queue_get_id(FunctionCallInfo fcinfo) {
    std::string queue = arg_queue(fcinfo, 0);
    spi_connect();
    const QueueScope scope = enter_queue(queue, QueuePrivilege::kRead);
    std::optional<int32_t> id = registered_id(queue);
    if (!id) throw_queue_missing(queue);
    leave_queue(scope);
    spi_finish();
    PG_RETURN_INT64(*id);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_create, fetchq::sql_api::queue_create)
FETCHQ_SQL_FUNCTION(fetchq_queue_drop, fetchq::sql_api::queue_drop)
FETCHQ_SQL_FUNCTION(fetchq_queue_get_id, fetchq::sql_api::queue_get_id)
FETCHQ_SQL_FUNCTION(fetchq_queue_create_temporary, fetchq::sql_api::queue_create_temporary)
