// SPI, the way fetchq uses it: statements prepared once per backend and
// kept, executed with parameters only, names resolved with pg_catalog alone
// on the search path (callers' search_path can neither hijack nor replan us).
//
// An error raised by one of these statements reaches the caller without the
// statement's text: PostgreSQL names the statement SPI ran in the error's
// CONTEXT (or, for an error with a position in it, as its internal query),
// which would show fetchq's own SQL to every user. Only that line goes: what
// a trigger or function the statement ran (a queue owner's) said, its
// message and its own context lines, stay. An error raised while the
// statement itself was parsed or planned is marked
// (PgError::raised_by_statement).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "pg/guard.hpp"
#include "pg/postgres.hpp"

namespace fetchq::pg {

void spi_connect();
void spi_finish();
// For a procedure called by a top-level CALL: a connection that survives
// spi_commit(), which commits and starts a new transaction with no
// snapshot held until the next statement.
void spi_connect_nonatomic();
void spi_commit();

// A statement prepared with SPI_prepare + SPI_keepplan and cached under
// (owner, name); owner is a queue name or "" for catalog statements. The
// text is built by `build` only the first time.
template <typename Build>
SPIPlanPtr cached_plan(std::string_view owner, std::string_view name, Build&& build,
                       std::initializer_list<Oid> argtypes);

SPIPlanPtr lookup_plan(std::string_view owner, std::string_view name);
SPIPlanPtr store_plan(std::string_view owner, std::string_view name, const std::string& sql,
                      std::initializer_list<Oid> argtypes);

// Frees every plan of one owner (a dropped queue).
void forget_plans(std::string_view owner);

// How many queues' plans a backend keeps (fetchq.plan_cache_queues; -1: no
// limit). Beyond it, with a quarter of slack, trim_plans() frees the plans
// of the least recently used queues; they are prepared again when used.
extern int plan_cache_queues;
void trim_plans();
// How many queues have plans kept now.
std::size_t cached_plan_queues();

// Marks a stretch of code that may hold plan pointers: the body of every
// SQL-callable function and a worker's life. The outermost one trims first,
// the only place where no pointer can be held; inner ones (a fetchq
// function called by a trigger a fetchq statement fired) never trim.
class PlansInUse {
  public:
    PlansInUse();
    ~PlansInUse();
    PlansInUse(const PlansInUse&) = delete;
    PlansInUse& operator=(const PlansInUse&) = delete;
};

// Runs a prepared plan; returns SPI_processed. nulls: ' ' or 'n' per arg.
uint64_t spi_execute(SPIPlanPtr plan, const Datum* values, const char* nulls, bool read_only,
                     long count = 0);

// Runs a read-only plan on the latest committed state (and this
// transaction's earlier commands), not on the caller's statement or
// transaction snapshot: what a per-backend cache stores must not be what an
// older snapshot showed, or it would outlive the invalidation that emptied it.
uint64_t spi_execute_latest(SPIPlanPtr plan, const Datum* values, const char* nulls,
                            long count = 0);

// Runs a plan that writes on the latest committed state, as a cascading
// foreign key does: in READ COMMITTED a statement's snapshot is that anyway;
// under a transaction snapshot, a row that snapshot cannot see raises 40001
// instead of being skipped.
uint64_t spi_execute_current(SPIPlanPtr plan, const Datum* values, const char* nulls);

// Plans and runs SQL text with parameters for this call only: for what a
// backend runs rarely on a queue, whose plan is not worth keeping (nor worth
// pushing a busier queue's plans out of the cache).
uint64_t spi_execute_once(const std::string& sql, std::initializer_list<Oid> argtypes,
                          const Datum* values, const char* nulls, bool read_only, long count = 0);
// True when plans of `owner` are kept now.
bool has_plans(std::string_view owner);

// Runs SQL text that takes no parameters (DDL built from quoted names).
uint64_t spi_execute_text(const std::string& sql, bool read_only = false);

// A text Datum (palloc'd in the current memory context).
Datum to_text(std::string_view s);

// Quoting helpers for identifiers and literals in DDL text.
std::string quote_ident(std::string_view name);
std::string quote_literal(std::string_view text);

// The value of column `col` (1-based) of row `row` of SPI_tuptable.
Datum spi_value(uint64_t row, int col, bool* isnull);
// The same, as text (nullptr when NULL), palloc'd in the current context.
const char* spi_text(uint64_t row, int col);
int64_t spi_int(uint64_t row, int col, int64_t if_null = 0);

template <typename Build>
SPIPlanPtr cached_plan(std::string_view owner, std::string_view name, Build&& build,
                       std::initializer_list<Oid> argtypes) {
    if (SPIPlanPtr plan = lookup_plan(owner, name)) return plan;
    return store_plan(owner, name, build(), argtypes);
}

}  // namespace fetchq::pg
