// The first statement of the extension script (src/schema/00_install_check.sql).
//
// The control file names schema fetchq, and CREATE EXTENSION uses a schema of
// that name if one exists, whoever owns it: a role with CREATE on the
// database could make it beforehand, plant functions or operators there and
// have them run by the superuser's CREATE EXTENSION and every later call (the
// class of CVE-2023-39417). So schema fetchq must belong to the installing
// role and give CREATE to nobody else, and schema fetchq_data, which the
// script creates, must not exist yet.
#include <string>

#include "core/error.hpp"
#include "ops/counters/deferred.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

extern "C" {
#include "catalog/pg_namespace.h"
#include "utils/acl.h"
#include "utils/syscache.h"
}

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;

// What the catalog says of one schema (plain data: filled in pg_call).
struct SchemaFacts {
    bool exists;
    Oid oid;
    Oid owner;
    Oid other_creator;  // a role other than the owner with CREATE, or InvalidOid
};

SchemaFacts schema_facts(const char* name) {
    SchemaFacts facts{false, InvalidOid, InvalidOid, InvalidOid};
    pg_call([&] {
        HeapTuple tuple = SearchSysCache1(NAMESPACENAME, CStringGetDatum(name));
        if (!HeapTupleIsValid(tuple)) return;
        facts.exists = true;
        facts.oid = reinterpret_cast<Form_pg_namespace>(GETSTRUCT(tuple))->oid;
        facts.owner = reinterpret_cast<Form_pg_namespace>(GETSTRUCT(tuple))->nspowner;
        bool isnull = true;
        Datum acl_datum = SysCacheGetAttr(NAMESPACENAME, tuple, Anum_pg_namespace_nspacl, &isnull);
        if (!isnull) {
            Acl* acl = DatumGetAclP(acl_datum);
            const AclItem* items = ACL_DAT(acl);
            for (int i = 0; i < ACL_NUM(acl); ++i)
                if ((items[i].ai_privs & ACL_CREATE) && items[i].ai_grantee != facts.owner)
                    facts.other_creator = items[i].ai_grantee;
        }
        ReleaseSysCache(tuple);
    });
    return facts;
}

// Objects in the schema that another role owns (created while it could):
// how many, and the owner of one of them.
int64_t foreign_objects(const SchemaFacts& s, Oid* one_owner) {
    const std::string nsp = std::to_string(s.oid);
    const std::string owner = std::to_string(s.owner);
    std::string sql = "SELECT o.owner, count(*) OVER () FROM (";
    const char* kinds[][3] = {{"relowner", "pg_class", "relnamespace"},
                              {"proowner", "pg_proc", "pronamespace"},
                              {"typowner", "pg_type", "typnamespace"},
                              {"oprowner", "pg_operator", "oprnamespace"},
                              {"collowner", "pg_collation", "collnamespace"},
                              {"conowner", "pg_conversion", "connamespace"},
                              {"opcowner", "pg_opclass", "opcnamespace"},
                              {"opfowner", "pg_opfamily", "opfnamespace"},
                              {"stxowner", "pg_statistic_ext", "stxnamespace"},
                              {"cfgowner", "pg_ts_config", "cfgnamespace"},
                              {"dictowner", "pg_ts_dict", "dictnamespace"}};
    bool first = true;
    for (const auto& k : kinds) {
        if (!first) sql += " UNION ALL ";
        first = false;
        sql += std::string("SELECT ") + k[0] + " AS owner FROM pg_catalog." + k[1] + " WHERE " +
               k[2] + " = " + nsp;
    }
    sql += ") AS o WHERE o.owner <> " + owner + " LIMIT 1";
    pg::spi_connect();
    const uint64_t n = pg::spi_execute_text(sql, true);
    int64_t count = 0;
    if (n > 0) {
        *one_owner = static_cast<Oid>(pg::spi_int(0, 1));
        count = pg::spi_int(0, 2);
    }
    pg::spi_finish();
    return count;
}

std::string role_name(Oid role) {
    if (role == ACL_ID_PUBLIC) return "PUBLIC";
    const char* name = pg_call([&] { return GetUserNameFromId(role, true); });
    return name ? name : "?";
}

void check_fetchq_schema(Oid installer) {
    const SchemaFacts s = schema_facts("fetchq");
    if (!s.exists) return;  // cannot happen: CREATE EXTENSION made it
    if (s.owner != installer)
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "schema \"fetchq\" is owned by role \"" + role_name(s.owner) +
                              "\", not by role \"" + role_name(installer) +
                              "\" that is installing fetchq",
                          "fetchq would put its functions in a schema that another role controls, "
                          "and run whatever that role created there.",
                          "Check what schema \"fetchq\" holds, drop or rename it, then run CREATE "
                          "EXTENSION fetchq again.");
    if (OidIsValid(s.other_creator))
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "schema \"fetchq\" lets role \"" + role_name(s.other_creator) +
                              "\" create objects in it",
                          "fetchq resolves its own objects in schema \"fetchq\"; no role but its "
                          "owner may create objects there.",
                          "REVOKE CREATE ON SCHEMA fetchq FROM " + role_name(s.other_creator) +
                              ", then run CREATE EXTENSION fetchq again.");
    Oid other = InvalidOid;
    if (const int64_t n = foreign_objects(s, &other); n > 0)
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "schema \"fetchq\" holds " + std::to_string(n) +
                              " object(s) of other roles, such as role \"" + role_name(other) +
                              "\"",
                          "Objects another role created in schema \"fetchq\" could be run by "
                          "fetchq's calls.",
                          "Check what schema \"fetchq\" holds, drop or rename it, then run "
                          "CREATE EXTENSION fetchq again.");
}

void check_fetchq_data_schema(Oid installer) {
    const SchemaFacts s = schema_facts("fetchq_data");
    if (!s.exists) return;
    if (s.owner != installer)
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "schema \"fetchq_data\" already exists and is owned by role \"" +
                              role_name(s.owner) + "\"",
                          "fetchq creates schema \"fetchq_data\" for the tables of its queues; one "
                          "made by another role could hold objects that role controls.",
                          "Check what schema \"fetchq_data\" holds, drop or rename it, then run "
                          "CREATE EXTENSION fetchq again.");
    throw core::Error("42P06", "schema \"fetchq_data\" already exists",
                      "fetchq creates schema \"fetchq_data\" for the tables of its queues.",
                      "A Fetchq 4 installation is migrated as described in "
                      "docs/migrating-from-fetchq.md; otherwise drop or rename the schema.");
}

Datum install_check(FunctionCallInfo fcinfo) {
    const Oid installer = pg_call([] { return GetUserId(); });
    check_fetchq_schema(installer);
    check_fetchq_data_schema(installer);
    // Changes of deferred counters that a dropped install of the extension
    // left in shared memory belong to queues that are gone.
    ops::deferred_discard_database();
    PG_RETURN_VOID();
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_install_check, fetchq::sql_api::install_check)
