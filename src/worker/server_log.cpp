#include "worker/server_log.hpp"

#include "pg/guard.hpp"
#include "pg/postgres.hpp"

extern "C" {
#include "utils/timestamp.h"
}

namespace fetchq::worker {
namespace {

char g_database[NAMEDATALEN];

}  // namespace

void set_log_database(const char* name) { strlcpy(g_database, name, sizeof(g_database)); }

const char* log_database() { return g_database; }

FailureLog& failure_log() {
    static FailureLog log;
    return log;
}

void log_failure(const std::string& queue, const std::string& what, const std::string& error,
                 bool warning) {
    const FailureLog::Verdict v = failure_log().failed(queue, what, GetCurrentTimestamp());
    const int level = warning ? WARNING : LOG;
    const char* w = what.c_str();
    const char* e = error.c_str();
    pg::pg_call([&] {
        if (!v.log) {
            ereport(DEBUG1, (errmsg("fetchq: %s in database \"%s\" failed: %s", w, g_database, e)));
        } else if (v.left_out == 0) {
            ereport(level, (errmsg("fetchq: %s in database \"%s\" failed: %s", w, g_database, e)));
        } else {
            const long n = static_cast<long>(v.left_out);
            ereport(level, (errmsg("fetchq: %s in database \"%s\" failed: %s", w, g_database, e),
                            errdetail_plural("%ld failure since %s was not logged.",
                                             "%ld failures since %s were not logged.", n, n,
                                             timestamptz_to_str(v.last_line))));
        }
    });
}

void log_recovery(const std::string& queue, const std::string& what) {
    const long n = static_cast<long>(failure_log().succeeded(queue, what));
    if (n == 0) return;
    const char* w = what.c_str();
    pg::pg_call([&] {
        ereport(LOG, (errmsg_plural("fetchq: %s in database \"%s\" recovered after %ld failure",
                                    "fetchq: %s in database \"%s\" recovered after %ld failures", n,
                                    w, g_database, n)));
    });
}

}  // namespace fetchq::worker
