// The scheduler's lines in the server log that are more than one ereport:
// the name of its database, which every line carries, and the failures of
// its units of work, throttled by a FailureLog (worker/failure_log.hpp).
#pragma once

#include <string>

#include "worker/failure_log.hpp"

namespace fetchq::worker {

// The database of this scheduler, for messages; "" until set.
void set_log_database(const char* name);
const char* log_database();

// Logs a failure of `what` (`maintenance of queue "q"`; its key, with
// `queue`, empty when none): the first of a series and then one a minute at
// LOG (at WARNING when `warning`: a failure that needs a user's action, as a
// schedule whose owner lost push), with the count left out, the others at
// DEBUG1.
void log_failure(const std::string& queue, const std::string& what, const std::string& error,
                 bool warning = false);

// Logs that `what` works again, if it was failing. Call it only when
// failure_log() is not empty: the common case then builds no string.
void log_recovery(const std::string& queue, const std::string& what);

FailureLog& failure_log();

}  // namespace fetchq::worker
