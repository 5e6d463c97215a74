#include "pg/spi.hpp"

#include "pg/relcache_release.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fetchq::pg {
namespace {

// Backend-local: plans live in CacheMemoryContext (SPI_keepplan) until
// freed. Per owner: "" (catalog statements, kept for the backend's life) or a
// queue, whose plans go when it is among the least recently used beyond
// plan_cache_queues (trimmed only where no plan is held, see PlansInUse).
struct OwnerPlans {
    std::unordered_map<std::string, SPIPlanPtr> plans;
    uint64_t last_use = 0;
};

std::unordered_map<std::string, OwnerPlans>& owners() {
    static std::unordered_map<std::string, OwnerPlans> map;
    return map;
}

// The parameter types of a statement, as SPI takes them (the counters'
// statements take more than a fixed array of 16 would hold).
struct ArgTypes {
    std::vector<Oid> list;
    explicit ArgTypes(std::initializer_list<Oid> types) : list(types) {}
    int n() const { return static_cast<int>(list.size()); }
    Oid* oids() { return list.data(); }
};

uint64_t g_use_clock = 0;
int g_plans_in_use = 0;

// Frees the owner's plans; with release, also the relcache entries of the
// relations they read (a queue trimmed out of the cache, not a dropped one,
// whose entries its drop's invalidation frees).
void free_owner(std::unordered_map<std::string, OwnerPlans>::iterator it, bool release) {
    std::vector<SPIPlanPtr> doomed;
    std::vector<Oid> relids;
    for (auto& [name, plan] : it->second.plans) {
        doomed.push_back(plan);
        if (release)
            for (Oid relid : plan_relations(plan)) relids.push_back(relid);
    }
    owners().erase(it);
    for (SPIPlanPtr plan : doomed) pg_call([&] { SPI_freeplan(plan); });
    if (release) release_relcache(relids, "fetchq_data");
}

// Only pg_catalog on the search path while we prepare or run our statements.
void push_catalog_only_path() {
    OverrideSearchPath path;
    path.schemas = NIL;
    path.addCatalog = true;
    path.addTemp = false;
    path.generation = 0;
    PushOverrideSearchPath(&path);
}

// The text of a prepared statement (plain data: for pg_call).
const char* plan_text(SPIPlanPtr plan) {
    List* sources = SPI_plan_get_plan_sources(plan);
    if (sources == NIL) return nullptr;
    return static_cast<const CachedPlanSource*>(linitial(sources))->query_string;
}

// Removes the line of `context` that quotes `sql` ("SQL statement \"...\"",
// in the server's language), with one line break; in place, allocating
// nothing. The first such line: the innermost, since PostgreSQL writes the
// context from the innermost call out, and a fetchq statement run under
// this one (by a trigger) took its own line out before.
void remove_statement_line(char* context, const char* sql) {
    const size_t sql_len = strlen(sql);
    for (char* at = strchr(context, '"'); at != nullptr; at = strchr(at + 1, '"')) {
        if (strncmp(at + 1, sql, sql_len) != 0 || at[1 + sql_len] != '"') continue;
        char* start = at;
        while (start > context && start[-1] != '\n') --start;
        char* end = at + sql_len + 2;
        if (*end == '\n')
            ++end;
        else if (start > context)
            --start;  // the last line: the break before it goes
        memmove(start, end, strlen(end) + 1);
        return;
    }
}

// Takes fetchq's statement `sql` out of the error it raised.
void hide_statement(PgError& e, const char* sql) {
    ErrorData* data = e.data();
    if (data == nullptr || sql == nullptr) return;
    if (data->internalquery != nullptr && strcmp(data->internalquery, sql) == 0) {
        data->internalquery = nullptr;
        data->internalpos = 0;
        e.mark_raised_by_statement();
    }
    if (data->context != nullptr) {
        remove_statement_line(data->context, sql);
        if (data->context[0] == '\0') data->context = nullptr;
    }
}

// Runs f, which executes `sql` (or `plan`'s statement) through SPI.
template <typename F>
auto statement_call(const char* sql, SPIPlanPtr plan, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (PgError& e) {
        hide_statement(e, plan != nullptr ? pg_call([&] { return plan_text(plan); }) : sql);
        throw;
    }
}

}  // namespace

void spi_connect() {
    pg_call([] {
        if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "fetchq: SPI_connect failed");
    });
}

void spi_finish() {
    pg_call([] { SPI_finish(); });
}

void spi_connect_nonatomic() {
    pg_call([] {
        if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
            elog(ERROR, "fetchq: SPI_connect_ext failed");
    });
}

void spi_commit() {
    pg_call([] { SPI_commit(); });
}

SPIPlanPtr lookup_plan(std::string_view owner, std::string_view name) {
    auto it = owners().find(std::string(owner));
    if (it == owners().end()) return nullptr;
    it->second.last_use = ++g_use_clock;
    auto plan = it->second.plans.find(std::string(name));
    return plan == it->second.plans.end() ? nullptr : plan->second;
}

SPIPlanPtr store_plan(std::string_view owner, std::string_view name, const std::string& sql,
                      std::initializer_list<Oid> argtypes) {
    ArgTypes types(argtypes);
    const char* text = sql.c_str();
    SPIPlanPtr plan = statement_call(text, nullptr, [&] {
        return pg_call([&] {
            push_catalog_only_path();
            // Generic plans: our statements reach their rows through indexes
            // whatever the parameters, and with a parameter LIMIT the plan cache
            // would otherwise judge the generic plan too costly and plan every
            // call again (measured: ~50 us of a 200 us doc_pick).
            SPIPlanPtr p =
                SPI_prepare_cursor(text, types.n(), types.oids(), CURSOR_OPT_GENERIC_PLAN);
            if (p == nullptr)
                elog(ERROR, "fetchq: SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
            SPI_keepplan(p);
            PopOverrideSearchPath();
            return p;
        });
    });
    OwnerPlans& o = owners()[std::string(owner)];
    o.last_use = ++g_use_clock;
    o.plans[std::string(name)] = plan;
    return plan;
}

void forget_plans(std::string_view owner) {
    auto it = owners().find(std::string(owner));
    if (it != owners().end()) free_owner(it, false);
}

int plan_cache_queues = 64;

void trim_plans() {
    if (g_plans_in_use > 0 || plan_cache_queues < 0) return;
    // The catalog's owner ("") is never counted nor freed.
    const std::size_t queues = cached_plan_queues();
    const auto limit = static_cast<std::size_t>(plan_cache_queues);
    // A quarter of slack: a trim sorts every owner, so not at each new queue.
    if (queues <= limit + limit / 4) return;
    std::vector<std::pair<uint64_t, std::string>> by_use;
    for (const auto& [owner, o] : owners())
        if (!owner.empty()) by_use.emplace_back(o.last_use, owner);
    const std::size_t extra = queues - limit;
    std::nth_element(by_use.begin(), by_use.begin() + (extra - 1), by_use.end());
    for (std::size_t i = 0; i < extra; ++i) free_owner(owners().find(by_use[i].second), true);
}

std::size_t cached_plan_queues() { return owners().size() - owners().count(std::string()); }

PlansInUse::PlansInUse() {
    trim_plans();
    ++g_plans_in_use;
}

PlansInUse::~PlansInUse() { --g_plans_in_use; }

uint64_t spi_execute(SPIPlanPtr plan, const Datum* values, const char* nulls, bool read_only,
                     long count) {
    return statement_call(nullptr, plan, [&] {
        return pg_call([&] {
            push_catalog_only_path();
            int rc = SPI_execute_plan(plan, const_cast<Datum*>(values), nulls, read_only, count);
            PopOverrideSearchPath();
            if (rc < 0)
                elog(ERROR, "fetchq: SPI_execute_plan failed: %s", SPI_result_code_string(rc));
            return static_cast<uint64_t>(SPI_processed);
        });
    });
}

uint64_t spi_execute_latest(SPIPlanPtr plan, const Datum* values, const char* nulls, long count) {
    return statement_call(nullptr, plan, [&] {
        return pg_call([&] {
            push_catalog_only_path();
            int rc = SPI_execute_snapshot(plan, const_cast<Datum*>(values), nulls,
                                          GetLatestSnapshot(), InvalidSnapshot, true, false, count);
            PopOverrideSearchPath();
            if (rc < 0)
                elog(ERROR, "fetchq: SPI_execute_snapshot failed: %s", SPI_result_code_string(rc));
            return static_cast<uint64_t>(SPI_processed);
        });
    });
}

uint64_t spi_execute_current(SPIPlanPtr plan, const Datum* values, const char* nulls) {
    return statement_call(nullptr, plan, [&] {
        return pg_call([&] {
            push_catalog_only_path();
            // As ri_triggers.c does for a cascading action.
            Snapshot latest = InvalidSnapshot, crosscheck = InvalidSnapshot;
            if (IsolationUsesXactSnapshot()) {
                CommandCounterIncrement();
                latest = GetLatestSnapshot();
                crosscheck = GetTransactionSnapshot();
            }
            int rc = SPI_execute_snapshot(plan, const_cast<Datum*>(values), nulls, latest,
                                          crosscheck, false, true, 0);
            PopOverrideSearchPath();
            if (rc < 0)
                elog(ERROR, "fetchq: SPI_execute_snapshot failed: %s", SPI_result_code_string(rc));
            return static_cast<uint64_t>(SPI_processed);
        });
    });
}

uint64_t spi_execute_once(const std::string& sql, std::initializer_list<Oid> argtypes,
                          const Datum* values, const char* nulls, bool read_only, long count) {
    ArgTypes types(argtypes);
    const char* text = sql.c_str();
    return statement_call(text, nullptr, [&] {
        return pg_call([&] {
            push_catalog_only_path();
            int rc = SPI_execute_with_args(text, types.n(), types.oids(),
                                           const_cast<Datum*>(values), nulls, read_only, count);
            PopOverrideSearchPath();
            if (rc < 0)
                elog(ERROR, "fetchq: SPI_execute_with_args failed: %s", SPI_result_code_string(rc));
            return static_cast<uint64_t>(SPI_processed);
        });
    });
}

bool has_plans(std::string_view owner) { return owners().count(std::string(owner)) > 0; }

uint64_t spi_execute_text(const std::string& sql, bool read_only) {
    const char* text = sql.c_str();
    return statement_call(text, nullptr, [&] {
        return pg_call([&] {
            push_catalog_only_path();
            int rc = SPI_execute(text, read_only, 0);
            PopOverrideSearchPath();
            if (rc < 0) elog(ERROR, "fetchq: SPI_execute failed: %s", SPI_result_code_string(rc));
            return static_cast<uint64_t>(SPI_processed);
        });
    });
}

Datum to_text(std::string_view s) {
    const char* data = s.data();
    int len = static_cast<int>(s.size());
    return pg_call([&] { return PointerGetDatum(cstring_to_text_with_len(data, len)); });
}

std::string quote_ident(std::string_view name) {
    std::string copy(name);
    const char* in = copy.c_str();
    const char* quoted = pg_call([&] { return quote_identifier(in); });
    return std::string(quoted);
}

std::string quote_literal(std::string_view text) {
    std::string out = "'";
    bool backslash = false;
    for (char c : text) {
        if (c == '\'') out.push_back('\'');
        if (c == '\\') backslash = true;
        out.push_back(c);
    }
    out.push_back('\'');
    // E'' only when needed, doubling backslashes, as quote_literal() does.
    if (!backslash) return out;
    std::string e = "E'";
    for (char c : text) {
        if (c == '\'' || c == '\\') e.push_back(c);
        e.push_back(c);
    }
    e.push_back('\'');
    return e;
}

Datum spi_value(uint64_t row, int col, bool* isnull) {
    return pg_call(
        [&] { return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, isnull); });
}

const char* spi_text(uint64_t row, int col) {
    return pg_call(
        [&] { return SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col); });
}

int64_t spi_int(uint64_t row, int col, int64_t if_null) {
    bool isnull = false;
    Datum d = spi_value(row, col, &isnull);
    if (isnull) return if_null;
    Oid type = SPI_gettypeid(SPI_tuptable->tupdesc, col);
    switch (type) {
        case INT2OID:
            return DatumGetInt16(d);
        case INT4OID:
            return DatumGetInt32(d);
        case INT8OID:
            return DatumGetInt64(d);
        default:
            return pg_call([&] {
                return DatumGetInt64(DirectFunctionCall1(
                    int8in, CStringGetDatum(SPI_getvalue(SPI_tuptable->vals[row],
                                                         SPI_tuptable->tupdesc, col))));
            });
    }
}

}  // namespace fetchq::pg
