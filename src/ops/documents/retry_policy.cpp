#include "ops/documents/retry_policy.hpp"

namespace fetchq::ops {

// In seconds, as float8: the exponent is capped and the result is at most a
// billion seconds, so no attempt count can overflow an interval.
std::string retry_policy_next_sql(const std::string& attempts, const std::string& queue_param) {
    return "(SELECT now() + (LEAST(COALESCE(EXTRACT(EPOCH FROM q.retry_max_delay)::float8, 1e9),"
           " EXTRACT(EPOCH FROM q.retry_delay)::float8 * power(COALESCE(q.retry_factor, 2),"
           " LEAST(GREATEST(" +
           attempts +
           " - 1, 0), 100)))"
           " * (1 + COALESCE(q.retry_jitter, 0) * (2 * random() - 1))) * interval '1 second'"
           " FROM fetchq.queues q WHERE q.name = " +
           queue_param + " AND q.retry_delay IS NOT NULL)";
}

}  // namespace fetchq::ops
