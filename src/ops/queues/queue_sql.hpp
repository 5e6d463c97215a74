// Statements on one queue's tables: names quoted once, plans prepared once
// per backend and queue, and "relation does not exist" turned into a clear
// "queue does not exist".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "pg/as_user.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

// fetchq_data."<queue>__docs" and friends, quoted.
std::string docs_rel(std::string_view queue);
std::string logs_rel(std::string_view queue);
std::string metrics_rel(std::string_view queue);

[[noreturn]] void throw_queue_missing(std::string_view queue);

// Prepares (once) the statement `name` on `queue`; `build` returns its text.
template <typename Build>
SPIPlanPtr queue_plan(std::string_view queue, std::string_view name, Build&& build,
                      std::initializer_list<Oid> argtypes);

// spi_execute for a queue plan: a missing table means a missing queue.
uint64_t queue_execute(std::string_view queue, SPIPlanPtr plan, const Datum* values,
                       const char* nulls, bool read_only = false, long count = 0);

// spi_execute_once for a statement on a queue's tables, with the same
// "queue does not exist".
uint64_t queue_execute_once(std::string_view queue, const std::string& sql,
                            std::initializer_list<Oid> argtypes, const Datum* values,
                            const char* nulls, bool read_only = false, long count = 0);

// Frees this backend's relcache entries of the queue's tables and their
// indexes (pg/relcache_release.hpp): after a statement on a queue this
// backend uses rarely.
void release_queue_relcache(std::string_view queue);

// True when the queue is registered in fetchq.queues.
bool queue_exists(std::string_view queue);
// Raises "queue does not exist" unless it is registered.
void require_queue(std::string_view queue);

// Names of every registered queue, in name order.
std::vector<std::string> all_queue_names();

// True when the queue has its documents table and `role` (the current user
// when invalid) has `mode` on it: how a reader of every queue (fetchq.stats)
// skips, instead of failing on, the queues it may not read.
bool queue_docs_allow(std::string_view queue, AclMode mode, Oid role = InvalidOid);

// The role that owns the queue's documents table; InvalidOid when the queue
// has no tables.
Oid queue_owner_or_invalid(std::string_view queue);

// Raises 42501 unless the current user has the privileges of the role that
// owns the queue's tables ("queue does not exist" when it has none): what it
// takes to drop, truncate or change a queue, however a role asks for it.
void require_queue_owner(std::string_view queue);

// True when `role` holds any privilege (SELECT, INSERT, UPDATE, DELETE or
// TRUNCATE; any of them is held when ACLMASK_ANY finds one) on any of the
// queue's tables: without one, no call can do anything on a queue without
// grants.
bool queue_tables_touchable(std::string_view queue, Oid role);

// True when the queue has its __docs and __logs tables and the caller may
// SELECT both.
bool queue_tables_readable(std::string_view queue);

// Runs f as the owner of the queue's tables (pg/as_user.hpp) once the caller
// is known to have `mode` on the queue's `table` (its __docs table when
// empty): a superuser's call never runs an owner's triggers (or the
// functions of a view put in place of a queue table) with superuser rights,
// and a role without rights on the queue is refused as before.
template <typename F>
void as_queue_owner(std::string_view queue, F&& f, AclMode mode = ACL_UPDATE,
                    const std::string& table = {});
Oid queue_owner_for(std::string_view queue, AclMode mode, const std::string& table);

// Forgets every cached plan and pending counter of a queue being dropped.
void queue_forget(std::string_view queue);

template <typename Build>
SPIPlanPtr queue_plan(std::string_view queue, std::string_view name, Build&& build,
                      std::initializer_list<Oid> argtypes) {
    if (SPIPlanPtr plan = pg::lookup_plan(queue, name)) return plan;
    try {
        return pg::store_plan(queue, name, build(), argtypes);
    } catch (const pg::PgError& e) {
        if (e.sqlerrcode() == ERRCODE_UNDEFINED_TABLE) throw_queue_missing(queue);
        throw;
    }
}

template <typename F>
void as_queue_owner(std::string_view queue, F&& f, AclMode mode, const std::string& table) {
    pg::as_user(queue_owner_for(queue, mode, table), f);
}

}  // namespace fetchq::ops
