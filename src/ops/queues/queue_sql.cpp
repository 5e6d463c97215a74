#include "ops/queues/queue_sql.hpp"

#include "pg/relcache_release.hpp"

#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "ops/counters/counters.hpp"

extern "C" {
#include "utils/acl.h"
#include "utils/plancache.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

std::string docs_rel(std::string_view queue) {
    return "fetchq_data." + quote_ident(core::docs_table(queue));
}
std::string logs_rel(std::string_view queue) {
    return "fetchq_data." + quote_ident(core::logs_table(queue));
}
std::string metrics_rel(std::string_view queue) {
    return "fetchq_data." + quote_ident(core::metrics_table(queue));
}

void throw_queue_missing(std::string_view queue) {
    throw core::Error(core::sqlstate::kUndefinedObject,
                      "queue \"" + std::string(queue) + "\" does not exist", {},
                      "Create it with fetchq.queue_create('" + std::string(queue) + "').");
}

namespace {

// One more context line, under the ones PostgreSQL wrote: which queue.
void add_queue_context(const PgError& e, std::string_view queue) {
    ErrorData* data = e.data();
    if (data == nullptr) return;
    const std::string line = "fetchq queue \"" + std::string(queue) + "\"";
    const char* text = line.c_str();
    pg_call([&] {
        data->context = data->context ? psprintf("%s\n%s", data->context, text) : pstrdup(text);
    });
}

}  // namespace

uint64_t queue_execute(std::string_view queue, SPIPlanPtr plan, const Datum* values,
                       const char* nulls, bool read_only, long count) {
    try {
        return spi_execute(plan, values, nulls, read_only, count);
    } catch (const PgError& e) {
        // A relation missing while our own statement was analysed is the
        // queue's table; one missing in a trigger or function of the queue's
        // owner keeps its own message.
        if (e.sqlerrcode() == ERRCODE_UNDEFINED_TABLE && e.raised_by_statement())
            throw_queue_missing(queue);
        add_queue_context(e, queue);
        throw;
    }
}

uint64_t queue_execute_once(std::string_view queue, const std::string& sql,
                            std::initializer_list<Oid> argtypes, const Datum* values,
                            const char* nulls, bool read_only, long count) {
    try {
        return spi_execute_once(sql, argtypes, values, nulls, read_only, count);
    } catch (const PgError& e) {
        if (e.sqlerrcode() == ERRCODE_UNDEFINED_TABLE) throw_queue_missing(queue);
        add_queue_context(e, queue);
        throw;
    }
}

Oid queue_owner_or_invalid(std::string_view queue) {
    return table_owner("fetchq_data", core::docs_table(queue).c_str());
}

void require_queue_owner(std::string_view queue) {
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) throw_queue_missing(queue);
    if (pg_call([&] { return has_privs_of_role(GetUserId(), owner); })) return;
    const char* role = pg_call([&] { return GetUserNameFromId(owner, true); });
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "must be owner of queue \"" + std::string(queue) + "\"",
                      "The tables of queue \"" + std::string(queue) + "\" are owned by role \"" +
                          std::string(role ? role : "?") + "\".",
                      "Only that role (or a member of it, or a superuser) may drop, truncate or "
                      "change the queue.");
}

namespace {

// A table of schema fetchq_data; InvalidOid when missing (plain data: for
// pg_call).
Oid data_relid(const char* name) {
    const Oid nsp = get_namespace_oid("fetchq_data", true);
    return OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;
}

// True when the table exists and `role` (the caller when invalid) has
// `mode` on it.
bool table_allows(const std::string& name, AclMode mode, Oid role = InvalidOid) {
    return pg_call([&] {
        const Oid relid = data_relid(name.c_str());
        const Oid who = OidIsValid(role) ? role : GetUserId();
        return OidIsValid(relid) && pg_class_aclcheck(relid, who, mode) == ACLCHECK_OK;
    });
}

}  // namespace

void release_queue_relcache(std::string_view queue) {
    std::vector<Oid> relids;
    for (const std::string& table :
         {core::docs_table(queue), core::logs_table(queue), core::metrics_table(queue)}) {
        const Oid relid = pg_call([&] { return data_relid(table.c_str()); });
        if (OidIsValid(relid)) relids.push_back(relid);
    }
    release_relcache(relids, "fetchq_data");
}

bool queue_docs_allow(std::string_view queue, AclMode mode, Oid role) {
    return table_allows(core::docs_table(queue), mode, role);
}

bool queue_tables_touchable(std::string_view queue, Oid role) {
    const AclMode any = ACL_SELECT | ACL_INSERT | ACL_UPDATE | ACL_DELETE | ACL_TRUNCATE;
    return table_allows(core::docs_table(queue), any, role) ||
           table_allows(core::logs_table(queue), any, role) ||
           table_allows(core::metrics_table(queue), any, role);
}

bool queue_tables_readable(std::string_view queue) {
    return table_allows(core::docs_table(queue), ACL_SELECT) &&
           table_allows(core::logs_table(queue), ACL_SELECT);
}

Oid queue_owner_for(std::string_view queue, AclMode mode, const std::string& table) {
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) throw_queue_missing(queue);
    const std::string name = table.empty() ? core::docs_table(queue) : table;
    pg_call([&] {
        const Oid relid = data_relid(name.c_str());
        if (!OidIsValid(relid)) return;  // the statement will say the queue is missing
        const AclResult acl = pg_class_aclcheck(relid, GetUserId(), mode);
        if (acl != ACLCHECK_OK) aclcheck_error(acl, OBJECT_TABLE, name.c_str());
    });
    return owner;
}

bool queue_exists(std::string_view queue) {
    SPIPlanPtr plan = cached_plan(
        "", "queue_exists",
        [] { return std::string("SELECT 1 FROM fetchq.queues WHERE name = $1"); }, {TEXTOID});
    Datum arg = to_text(queue);
    return spi_execute(plan, &arg, nullptr, true, 1) > 0;
}

void require_queue(std::string_view queue) {
    if (!queue_exists(queue)) throw_queue_missing(queue);
}

std::vector<std::string> all_queue_names() {
    SPIPlanPtr plan =
        cached_plan("", "queue_names",
                    [] { return std::string("SELECT name FROM fetchq.queues ORDER BY name"); }, {});
    const uint64_t n = spi_execute(plan, nullptr, nullptr, true);
    std::vector<std::string> names;
    names.reserve(n);
    for (uint64_t row = 0; row < n; ++row) names.emplace_back(spi_text(row, 1));
    return names;
}

void queue_forget(std::string_view queue) {
    forget_plans(queue);
    metric_forget_queue(queue);
    counters_discard_at_commit(queue);
}

}  // namespace fetchq::ops
