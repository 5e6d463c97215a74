// One unit of background work in a transaction of its own: committed when it
// succeeds; when it fails, the error (already taken out of PostgreSQL's error
// state by pg_call) is returned as text and everything is rolled back, so the
// worker's loop goes on.
#pragma once

#include <exception>
#include <string>

#include "ops/config/settings.hpp"
#include "pg/as_user.hpp"
#include "pg/guard.hpp"
#include "pg/postgres.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "storage/lock.h"
#include "utils/timeout.h"
}

namespace fetchq::worker {

// What a queue owner's code may leave in the worker's session beyond its
// transaction and settings: session advisory locks, which would block other
// applications. (PREPARE, cursors WITH HOLD, temporary tables and SET ROLE
// are refused in a security-restricted operation.) Dropped after every unit.
inline void drop_session_leftovers() { LockReleaseSession(USER_LOCKMETHOD); }

// Runs f with a snapshot, as `user` when valid (pg/as_user.hpp: restricted,
// with its own GUC nest level, so nothing the user's triggers set outlives
// the unit), else as the worker's user; cancelled after
// fetchq.task_timeout.
template <typename F>
bool in_transaction(Oid user, F&& f, std::string* error) {
    try {
        pg::pg_call([&] {
            SetCurrentStatementStartTimestamp();
            StartTransactionCommand();
            PushActiveSnapshot(GetTransactionSnapshot());
            if (ops::settings.task_timeout_ms > 0)
                enable_timeout_after(STATEMENT_TIMEOUT, ops::settings.task_timeout_ms);
        });
        {
            // Each unit is the outermost user of plans: the plans of the
            // least recently used queues go first (pg/spi.hpp).
            pg::PlansInUse in_use;
            if (OidIsValid(user))
                pg::as_user(user, f);
            else
                f();
        }
        pg::pg_call([&] {
            disable_timeout(STATEMENT_TIMEOUT, false);
            // A timer that fired after the unit's last interrupt check must
            // not cancel the next unit.
            QueryCancelPending = false;
            drop_session_leftovers();
            PopActiveSnapshot();
            CommitTransactionCommand();
        });
        return true;
    } catch (const std::exception& e) {
        *error = e.what();
    }
    // Abort restores the user id and the settings, and releases SPI,
    // snapshots and locks. An error here is the worker's own and ends it.
    pg::pg_call([] {
        disable_timeout(STATEMENT_TIMEOUT, false);
        QueryCancelPending = false;
        AbortOutOfAnyTransaction();
        drop_session_leftovers();
    });
    return false;
}

}  // namespace fetchq::worker
