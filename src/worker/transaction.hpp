// One unit of background work in a transaction of its own: committed when it
// succeeds; when it fails, the error (already taken out of PostgreSQL's error
// state by pg_call) is returned as text and everything is rolled back, so the
// worker's loop goes on.
#pragma once

#include <exception>
#include <string>

#include "pg/guard.hpp"
#include "pg/postgres.hpp"

namespace fetchq::worker {

// Runs f with a snapshot, as `user` when valid (restricted as autovacuum runs
// index functions: SECURITY_RESTRICTED_OPERATION), else as the worker's user.
template <typename F>
bool in_transaction(Oid user, F&& f, std::string* error) {
    Oid saved_user = InvalidOid;
    int saved_context = 0;
    try {
        pg::pg_call([&] {
            SetCurrentStatementStartTimestamp();
            StartTransactionCommand();
            PushActiveSnapshot(GetTransactionSnapshot());
            GetUserIdAndSecContext(&saved_user, &saved_context);
            if (OidIsValid(user))
                SetUserIdAndSecContext(user, saved_context | SECURITY_RESTRICTED_OPERATION |
                                                 SECURITY_LOCAL_USERID_CHANGE);
        });
        f();
        pg::pg_call([&] {
            SetUserIdAndSecContext(saved_user, saved_context);
            PopActiveSnapshot();
            CommitTransactionCommand();
        });
        return true;
    } catch (const std::exception& e) {
        *error = e.what();
    }
    // Abort restores the user id and releases SPI, snapshots and locks.
    AbortOutOfAnyTransaction();
    return false;
}

}  // namespace fetchq::worker
