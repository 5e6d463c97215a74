#include "pg/as_user.hpp"

extern "C" {
#include "catalog/pg_class.h"
#include "utils/syscache.h"
}

namespace fetchq::pg {

Oid table_owner(const char* schema, const char* name) {
    return pg_call([&] {
        const Oid nsp = get_namespace_oid(schema, true);
        const Oid relid = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;
        if (!OidIsValid(relid)) return InvalidOid;
        HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(tuple)) return InvalidOid;
        const Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
        ReleaseSysCache(tuple);
        return owner;
    });
}

UserContext enter_user(Oid user) {
    UserContext saved{};
    pg_call([&] {
        GetUserIdAndSecContext(&saved.user, &saved.sec_context);
        SetUserIdAndSecContext(
            user, saved.sec_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
        saved.guc_nest = NewGUCNestLevel();
    });
    return saved;
}

void leave_user(const UserContext& saved) {
    pg_call([&] {
        AtEOXact_GUC(false, saved.guc_nest);
        SetUserIdAndSecContext(saved.user, saved.sec_context);
    });
}

}  // namespace fetchq::pg
