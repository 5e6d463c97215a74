#include "pg/guard.hpp"

namespace fetchq::pg {

ErrorData* take_error(MemoryContext into) {
    MemoryContextSwitchTo(into);
    ErrorData* data = CopyErrorData();
    FlushErrorState();
    return data;
}

ErrorData* run_catching(void (*fn)(void*), void* ctx) {
    MemoryContext caller = CurrentMemoryContext;
    ErrorData* volatile failed = nullptr;
    PG_TRY();
    { fn(ctx); }
    PG_CATCH();
    { failed = take_error(caller); }
    PG_END_TRY();
    return failed;
}

namespace {

int sqlstate_code(const std::string& s) {
    if (s.size() != 5) return ERRCODE_INTERNAL_ERROR;
    return MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4]);
}

}  // namespace

void report_at(int level, const char* where, ErrorData* pg_error, const core::Error* own,
               const char* other) {
    const char* message = pg_error ? pg_error->message : own ? own->what() : other;
    ereport(level, (errmsg_internal("fetchq: %s: %s", where, message ? message : "error")));
    if (own != nullptr) own->~Error();
}

void rethrow_as_ereport(ErrorData* pg_error, const core::Error* own, const char* other) {
    if (pg_error != nullptr) ReThrowError(pg_error);
    if (own != nullptr) {
        // Copy into palloc'd memory and destroy the C++ object before ereport.
        int code = sqlstate_code(own->sqlstate());
        char* message = pstrdup(own->what());
        char* detail = own->detail().empty() ? nullptr : pstrdup(own->detail().c_str());
        char* hint = own->hint().empty() ? nullptr : pstrdup(own->hint().c_str());
        own->~Error();
        ereport(ERROR,
                (errcode(code), errmsg_internal("%s", message),
                 detail ? errdetail_internal("%s", detail) : 0, hint ? errhint("%s", hint) : 0));
    }
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg_internal("%s", other)));
    pg_unreachable();
}

}  // namespace fetchq::pg
