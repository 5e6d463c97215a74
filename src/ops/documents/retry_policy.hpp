// A queue's retry policy (queue_set_retry_policy; off by default, which keeps
// Fetchq 4's behaviour): when a rejected document or an orphan becomes
// pickable again. The delay before try n+1 is retry_delay * retry_factor^(n-1),
// at most retry_max_delay, spread by +-retry_jitter (a fraction).
#pragma once

#include <string>

namespace fetchq::ops {

// SQL: the moment the policy of the queue named by parameter `queue_param`
// makes a document with `attempts` (an SQL expression) pickable again, or
// NULL when the queue has no policy.
std::string retry_policy_next_sql(const std::string& attempts, const std::string& queue_param);

}  // namespace fetchq::ops
