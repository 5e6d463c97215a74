// queue_is_own(queue): the test of the row security policies on
// fetchq.queues and fetchq.jobs (queue_ownership.sql).
#include "ops/queues/queue_access.hpp"
#include "pg/args.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// A name without tables is nobody's: a role could otherwise register a
// queue's settings and jobs before its owner creates it (queue_create makes
// the tables first). Global jobs ('*') and the names of queues without tables
// are left to the extension's owner, who is not subject to the policies.
Datum queue_is_own(FunctionCallInfo fcinfo) {
    const std::string queue = arg_text(fcinfo, 0, "queue");
    PG_RETURN_BOOL(queue_rows_are_own(queue, pg_call([] { return GetUserId(); })));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_is_own, fetchq::sql_api::queue_is_own)
