#include "pg/extension_version.hpp"

#include "core/error.hpp"
#include "pg/guard.hpp"
#include "pg/postgres.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
}

#ifndef FETCHQ_VERSION
#error "FETCHQ_VERSION must be defined (the Makefile takes it from fetchq.control)"
#endif

namespace fetchq::pg {
namespace {

bool g_sql_matches = false;

}  // namespace

const char* library_version() { return FETCHQ_VERSION; }

std::optional<std::string> installed_version() {
    const char* version = nullptr;
    pg_call([&] {
        Relation rel = table_open(ExtensionRelationId, AccessShareLock);
        ScanKeyData key;
        ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
                    CStringGetDatum("fetchq"));
        SysScanDesc scan = systable_beginscan(rel, ExtensionNameIndexId, true, nullptr, 1, &key);
        HeapTuple tuple = systable_getnext(scan);
        if (HeapTupleIsValid(tuple)) {
            bool isnull = true;
            Datum d =
                heap_getattr(tuple, Anum_pg_extension_extversion, RelationGetDescr(rel), &isnull);
            if (!isnull) version = TextDatumGetCString(d);
        }
        systable_endscan(scan);
        table_close(rel, AccessShareLock);
    });
    return version ? std::optional<std::string>(version) : std::nullopt;
}

void require_matching_sql() {
    if (g_sql_matches || creating_extension) return;
    const std::optional<std::string> installed = installed_version();
    // Without the extension, a function of it can only be called while it is
    // dropped; nothing to compare.
    if (!installed || *installed == library_version()) {
        g_sql_matches = installed.has_value();
        return;
    }
    throw core::Error(core::sqlstate::kObjectNotInPrerequisiteState,
                      "extension \"fetchq\" has version " + *installed +
                          " in this database, but the installed library is version " +
                          library_version(),
                      "The functions of version " + *installed +
                          " cannot run on the new library; every call is refused until the "
                          "update.",
                      "Run ALTER EXTENSION fetchq UPDATE in this database.");
}

}  // namespace fetchq::pg
