// The document statuses as SQL text, for the statements built in C++: the
// numbers come from core/doc_status.hpp, never from literals.
#pragma once

#include <string>

#include "core/doc_status.hpp"

namespace fetchq::ops::status_sql {

inline const std::string killed = core::sql_status(core::DocStatus::kKilled);
inline const std::string planned = core::sql_status(core::DocStatus::kPlanned);
inline const std::string pending = core::sql_status(core::DocStatus::kPending);
inline const std::string active = core::sql_status(core::DocStatus::kActive);
inline const std::string completed = core::sql_status(core::DocStatus::kCompleted);
// "(0, 1)": the documents that wait for their moment (promotion, expiry).
inline const std::string waiting =
    core::sql_status_list({core::DocStatus::kPlanned, core::DocStatus::kPending});
// The documents doc_pick may take, version aside: due, not expired, and not
// waiting for a lock upgrade. Written once so that the stats count exactly
// what a pick would find.
inline const std::string ready = "status = " + pending +
                                 " AND lock_upgrade IS NULL AND next_iteration <= now()"
                                 " AND (expires_at IS NULL OR expires_at > now())";

}  // namespace fetchq::ops::status_sql
