// Work run for another role (a queue's owner): that role's rights, a
// security-restricted context and a GUC nest level of its own, as PostgreSQL
// runs VACUUM and index builds. Whatever the role's code sets (set_config of
// search_path, lock_timeout, statement_timeout, ...) is rolled back when the
// unit ends, so it never reaches the next unit or the caller, and it can
// neither SET ROLE nor leave cursors or temporary objects behind.
#pragma once

#include "pg/guard.hpp"
#include "pg/postgres.hpp"

namespace fetchq::pg {

// Where a caller was before as_user switched: restored by leave_user.
struct UserContext {
    Oid user;
    int sec_context;
    int guc_nest;
};

// The owner of table schema.name; InvalidOid when there is no such table.
Oid table_owner(const char* schema, const char* name);

// Switches to `user`, restricted, with a new GUC nest level.
UserContext enter_user(Oid user);
// Rolls back the settings of the nest level and switches back.
void leave_user(const UserContext& saved);

// Runs f as `user`. On an error nothing is restored here: the error aborts
// the (sub)transaction, and the abort restores the user, the security
// context and every setting of the levels it rolls back.
template <typename F>
void as_user(Oid user, F&& f) {
    const UserContext saved = enter_user(user);
    f();
    leave_user(saved);
}

}  // namespace fetchq::pg
