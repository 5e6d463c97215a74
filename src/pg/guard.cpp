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

void report_at(int level, const char* where, Caught* c) {
    // Copied out and the C++ object destroyed before ereport.
    const char* message = c->pg_error ? c->pg_error->message
                          : c->own    ? pstrdup(c->own->what())
                                      : c->other;
    if (c->own != nullptr) c->own->~Error();
    ereport(level, (errmsg_internal("fetchq: %s: %s", where, message ? message : "error")));
}

void rethrow_as_ereport(Caught* c) {
    if (c->pg_error != nullptr) ReThrowError(c->pg_error);
    if (c->own != nullptr) {
        // Copy into palloc'd memory and destroy the C++ object before ereport.
        const core::Error* own = c->own;
        int code = sqlstate_code(own->sqlstate());
        char* message = pstrdup(own->what());
        char* detail = own->detail().empty() ? nullptr : pstrdup(own->detail().c_str());
        char* hint = own->hint().empty() ? nullptr : pstrdup(own->hint().c_str());
        own->~Error();
        ereport(ERROR,
                (errcode(code), errmsg_internal("%s", message),
                 detail ? errdetail_internal("%s", detail) : 0, hint ? errhint("%s", hint) : 0));
    }
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg_internal("%s", c->other)));
    pg_unreachable();
}

}  // namespace fetchq::pg
