// The owner of fetchq's catalog (the tables of schema fetchq), and work run
// as that owner: every write fetchq makes to its catalog, once it checked the
// caller's right to it.
#pragma once

#include <string>

#include "pg/as_user.hpp"

namespace fetchq::ops {

// The owner of fetchq's catalog, the tables of schema fetchq (the
// extension's owner); 42704 when the catalog is missing.
Oid catalog_owner();

// Runs f as the owner of fetchq's catalog (restricted, a GUC nest level of
// its own). Every write to a table of schema fetchq is made this way, once
// fetchq checked the caller's right to it (no role but that owner writes or
// locks the catalog: docs/install.md section 5); and so a function that
// lists queues reads what it then shows only as queue_listed allows. f runs
// statements on fetchq's own tables only: never one on a queue's tables or
// one that calls what a role can define.
template <typename F>
void as_catalog_owner(F&& f) {
    pg::as_user(catalog_owner(), f);
}

// Whether the current user may create tables in schema fetchq_data, and so
// queues and streams (their tables are its own).
bool may_create_in_data_schema();

// 42501 unless may_create_in_data_schema(): "permission denied to create
// <what>", with the GRANT that would allow it.
void require_create_in_data_schema(const std::string& what);

}  // namespace fetchq::ops
