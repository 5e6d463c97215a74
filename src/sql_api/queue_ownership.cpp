// queue_is_own(queue): the test of the row security policies on
// fetchq.queues and fetchq.jobs (queue_ownership.sql).
#include "core/queue_name.hpp"
#include "pg/args.hpp"
#include "ops/queue_sql.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "utils/acl.h"
}

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
    if (!core::queue_name_problem(queue).empty()) PG_RETURN_BOOL(false);
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) PG_RETURN_BOOL(false);
    PG_RETURN_BOOL(pg_call([&] { return has_privs_of_role(GetUserId(), owner); }));
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_queue_is_own, fetchq::sql_api::queue_is_own)
