// One unit of background work in a transaction of its own: committed when it
// succeeds; when it fails, the error (already taken out of PostgreSQL's error
// state by pg_call) is returned as text and everything is rolled back, so the
// worker's loop goes on.
#pragma once

#include <exception>
#include <string>

#include "pg/as_user.hpp"
#include "pg/guard.hpp"
#include "pg/postgres.hpp"

namespace fetchq::worker {

// Runs f with a snapshot, as `user` when valid (pg/as_user.hpp: restricted,
// with its own GUC nest level, so nothing the user's triggers set outlives
// the unit), else as the worker's user.
template <typename F>
bool in_transaction(Oid user, F&& f, std::string* error) {
    try {
        pg::pg_call([&] {
            SetCurrentStatementStartTimestamp();
            StartTransactionCommand();
            PushActiveSnapshot(GetTransactionSnapshot());
        });
        if (OidIsValid(user))
            pg::as_user(user, f);
        else
            f();
        pg::pg_call([&] {
            PopActiveSnapshot();
            CommitTransactionCommand();
        });
        return true;
    } catch (const std::exception& e) {
        *error = e.what();
    }
    // Abort restores the user id and the settings, and releases SPI,
    // snapshots and locks.
    AbortOutOfAnyTransaction();
    return false;
}

}  // namespace fetchq::worker
