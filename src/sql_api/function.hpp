// Declares an SQL-callable C function whose body is a C++ function taking
// FunctionCallInfo and returning Datum, behind the error boundary.
#pragma once

#include "pg/extension_version.hpp"
#include "pg/guard.hpp"
#include "pg/module.hpp"
#include "pg/postgres.hpp"
#include "pg/spi.hpp"

#define FETCHQ_SQL_FUNCTION(sql_name, impl)                  \
    extern "C" {                                             \
    PG_FUNCTION_INFO_V1(sql_name);                           \
    Datum sql_name(PG_FUNCTION_ARGS) {                       \
        ::fetchq::pg::notice_if_not_preloaded();             \
        return ::fetchq::pg::sql_entry([fcinfo]() -> Datum { \
            ::fetchq::pg::require_matching_sql();            \
            ::fetchq::pg::PlansInUse in_use;                 \
            return impl(fcinfo);                             \
        });                                                  \
    }                                                        \
    }
