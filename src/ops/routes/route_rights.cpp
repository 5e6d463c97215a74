#include "ops/routes/route_rights.hpp"

#include "core/queue_name.hpp"
#include "ops/queues/queue_access.hpp"
#include "pg/guard.hpp"

extern "C" {
#include "utils/acl.h"
#include "utils/rls.h"
#include "utils/syscache.h"
}

namespace fetchq::ops {

namespace {

// A documents table and its owner (plain data, inside pg_call).
struct DocsTable {
    Oid relid = InvalidOid;
    Oid owner = InvalidOid;
};

DocsTable docs_table_in(Oid nsp, const char* name) {
    DocsTable t;
    if (!OidIsValid(nsp)) return t;
    t.relid = get_relname_relid(name, nsp);
    if (!OidIsValid(t.relid)) return t;
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(t.relid));
    if (HeapTupleIsValid(tuple)) {
        t.owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
        ReleaseSysCache(tuple);
    }
    return t;
}

bool allows(Oid relid, Oid role, AclMode mode) {
    return pg_class_aclcheck(relid, role, mode) == ACLCHECK_OK;
}

}  // namespace

RouteRights route_rights(const std::string& source, const std::string& destination, Oid role) {
    const std::string source_docs = core::docs_table(source);
    const std::string destination_docs = core::docs_table(destination);
    RouteRights r;
    pg::pg_call([&] {
        r.role_exists = SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role));
        const Oid nsp = get_namespace_oid("fetchq_data", true);
        const DocsTable from = docs_table_in(nsp, source_docs.c_str());
        const DocsTable to = docs_table_in(nsp, destination_docs.c_str());
        r.source_exists = OidIsValid(from.relid);
        r.destination_exists = OidIsValid(to.relid);
        r.destination_owner = to.owner;
        if (!r.role_exists) return;
        if (r.source_exists) {
            r.may_read = allows(from.relid, role, ACL_SELECT);
            r.filtered = check_enable_rls(from.relid, role, true) == RLS_ENABLED;
        }
        if (r.destination_exists) {
            r.may_push = allows(to.relid, role, ACL_INSERT) && allows(to.relid, role, ACL_SELECT);
            // With FORCE ROW LEVEL SECURITY the owner is held back too; a
            // role with the owner's privileges could push as the owner.
            r.push_filtered = check_enable_rls(to.relid, role, true) == RLS_ENABLED &&
                              !has_privs_of_role(role, to.owner);
        }
    });
    if (!r.role_exists) return r;
    // A queue with grants of its own: its queue privileges decide instead.
    if (r.source_exists && queue_has_grants(source)) {
        r.may_read = queue_privilege_held(source, core::QueuePrivilege::kManage, role);
        r.filtered = false;
    }
    if (r.destination_exists && queue_has_grants(destination)) {
        r.may_push = queue_privilege_held(destination, core::QueuePrivilege::kPush, role);
        r.push_filtered = false;
    }
    return r;
}

std::string route_refusal(const RouteRights& r, const std::string& who, const std::string& source,
                          const std::string& destination) {
    if (!r.may_read)
        return who + " may not read queue \"" + source +
               "\" (or, when it has grants of its own, "
               "lacks manage on it).";
    if (r.filtered)
        return who + " sees the documents of queue \"" + source +
               "\" through row security, and a route copies them all.";
    if (!r.may_push) return who + " may not push into queue \"" + destination + "\".";
    if (r.push_filtered)
        return who + " may push into queue \"" + destination +
               "\" only through row security, and a route's copies are inserted as that "
               "queue's owner.";
    return {};
}

}  // namespace fetchq::ops
