// Waking a sleeping scheduler when a commit makes something due before the
// moment it planned to wake up: a document planned earlier, or a lock that
// expires earlier.
#pragma once

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Remembers that something becomes due at `when` if this transaction commits.
void note_due(TimestampTz when);

// From the transaction callback.
void wake_scheduler_at_commit();
void forget_due();

}  // namespace fetchq::ops
