// schedule_create, schedule_drop, schedule_pause and schedule_resume: the
// SQL entries of ops/schedules/schedules.
#include <string>

#include "ops/schedules/schedules.hpp"
#include "pg/args.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "pgtime.h"
#include "utils/timestamp.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

// The session's TimeZone, for a schedule created without one.
std::string session_zone() {
    return pg_call([] { return std::string(pg_get_timezone_name(session_timezone)); });
}

// schedule_create(name, queue, every, subject, payload DEFAULT '{}', version
// DEFAULT 0, priority DEFAULT 0, expires_after DEFAULT NULL, catch_up DEFAULT
// 'none', timezone DEFAULT NULL) -> the first tick
Datum schedule_create(FunctionCallInfo fcinfo) {
    ScheduleSpec spec;
    spec.name = arg_queue(fcinfo, 0, "name");
    spec.queue = arg_queue(fcinfo, 1, "queue");
    spec.every = arg_text(fcinfo, 2, "every");
    spec.subject = arg_text(fcinfo, 3, "subject");
    bool payload_null = false;
    spec.payload = arg_datum(fcinfo, 4, &payload_null);
    if (payload_null) throw_null_argument("payload");
    spec.version = arg_int(fcinfo, 5, "version");
    spec.priority = arg_int(fcinfo, 6, "priority");
    if (!arg_is_null(fcinfo, 7))
        spec.expires_after = *arg_nonnegative_interval(fcinfo, 7, "expires_after");
    spec.catch_up = arg_text(fcinfo, 8, "catch_up");
    spec.timezone = arg_is_null(fcinfo, 9) ? session_zone() : arg_text(fcinfo, 9, "timezone");
    spi_connect();
    const TimestampTz first = create_schedule(spec);
    spi_finish();
    PG_RETURN_TIMESTAMPTZ(first);
}

// schedule_drop(name) -> true
Datum schedule_drop(FunctionCallInfo fcinfo) {
    const std::string name = arg_queue(fcinfo, 0, "name");
    spi_connect();
    drop_schedule(name);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// schedule_pause(name) -> true
Datum schedule_pause(FunctionCallInfo fcinfo) {
    const std::string name = arg_queue(fcinfo, 0, "name");
    spi_connect();
    pause_schedule(name);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// schedule_resume(name) -> the next tick
Datum schedule_resume(FunctionCallInfo fcinfo) {
    const std::string name = arg_queue(fcinfo, 0, "name");
    spi_connect();
    const TimestampTz next = resume_schedule(name);
    spi_finish();
    PG_RETURN_TIMESTAMPTZ(next);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_schedule_create, fetchq::sql_api::schedule_create)
FETCHQ_SQL_FUNCTION(fetchq_schedule_drop, fetchq::sql_api::schedule_drop)
FETCHQ_SQL_FUNCTION(fetchq_schedule_pause, fetchq::sql_api::schedule_pause)
FETCHQ_SQL_FUNCTION(fetchq_schedule_resume, fetchq::sql_api::schedule_resume)
