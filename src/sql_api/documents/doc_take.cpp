// doc_take and doc_peek: one document named by queue and subject.
#include "ops/documents/doc_take.hpp"
#include "ops/queues/queue_access.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;
using core::QueuePrivilege;

// doc_take(queue, subject, duration, nowait DEFAULT false): doc_pick's row for
// the document taken, or none.
Datum doc_take(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const std::string subject = arg_text(fcinfo, 1, "subject");
    Interval* lock = arg_positive_duration(fcinfo, 2, "duration");
    const bool nowait = PG_NARGS() > 3 && arg_bool(fcinfo, 3, "nowait");
    begin_rows(fcinfo);
    spi_connect();
    with_queue_privilege(queue, QueuePrivilege::kPick, [&] {
        if (take(queue, subject, lock, nowait) > 0) add_spi_row(fcinfo, 0);
    });
    spi_finish();
    return (Datum)0;
}

// doc_peek(queue, subject): the document as it is, or no row.
Datum doc_peek(FunctionCallInfo fcinfo) {
    const std::string queue = arg_queue(fcinfo, 0);
    const std::string subject = arg_text(fcinfo, 1, "subject");
    begin_rows(fcinfo);
    spi_connect();
    with_queue_privilege(queue, QueuePrivilege::kRead, [&] {
        if (peek(queue, subject) > 0) add_spi_row(fcinfo, 0);
    });
    spi_finish();
    return (Datum)0;
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_doc_take, fetchq::sql_api::doc_take)
FETCHQ_SQL_FUNCTION(fetchq_doc_peek, fetchq::sql_api::doc_peek)
