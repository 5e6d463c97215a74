// The boundary between PostgreSQL errors (longjmp) and C++ exceptions.
//
// - pg_call(f) runs f, which must hold only trivially destructible objects,
//   under PG_TRY; a PostgreSQL error becomes a PgError exception carrying the
//   original ErrorData (SQLSTATE, message, detail, hint, context).
// - sql_entry(f) is the body of every SQL-callable function: it runs f, and
//   once no C++ object is alive any more, turns an exception back into an
//   ereport(ERROR): PgError is rethrown as it was, core::Error keeps its
//   SQLSTATE, message, detail and hint.
// - callback_entry(level, where, f) is the body of every other place where
//   PostgreSQL calls into fetchq: transaction and subtransaction callbacks,
//   hooks, exit and invalidation callbacks, background worker mains. The
//   same conversion, at `level`: ERROR where the caller can take an error
//   (a background worker reports it and exits with code 1), WARNING or
//   LOG where an error would do more harm than the fault (after a commit,
//   during exit). `where` names the entry in the report and for
//   fetchq.fault_injection (pg/fault_injection.hpp).
#pragma once

#include <exception>
#include <new>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "pg/postgres.hpp"

namespace fetchq::pg {

class PgError : public std::exception {
  public:
    explicit PgError(ErrorData* data) : data_(data) {}
    const char* what() const noexcept override { return data_ ? data_->message : "error"; }
    ErrorData* data() const { return data_; }
    int sqlerrcode() const { return data_ ? data_->sqlerrcode : 0; }
    // Raised while fetchq's own statement was parsed or planned (pg/spi.cpp,
    // which takes the statement's text out of the error).
    bool raised_by_statement() const { return raised_by_statement_; }
    void mark_raised_by_statement() { raised_by_statement_ = true; }

  private:
    ErrorData* data_;  // palloc'd in the memory context of the failed call
    bool raised_by_statement_ = false;
};

// Copies the current error out of ErrorContext and clears it; for PG_CATCH.
ErrorData* take_error(MemoryContext into);

// Runs fn(ctx) under PG_TRY; returns the copied error, or nullptr.
ErrorData* run_catching(void (*fn)(void*), void* ctx);

template <typename F>
auto pg_call(F&& f) -> decltype(f()) {
    using R = decltype(f());
    if constexpr (std::is_void_v<R>) {
        auto thunk = [](void* c) { (*static_cast<std::remove_reference_t<F>*>(c))(); };
        if (ErrorData* failed = run_catching(thunk, &f)) throw PgError(failed);
    } else {
        struct Ctx {
            std::remove_reference_t<F>* f;
            R result;
        } ctx{&f, R{}};
        auto thunk = [](void* c) {
            auto* x = static_cast<Ctx*>(c);
            x->result = (*x->f)();
        };
        if (ErrorData* failed = run_catching(thunk, &ctx)) throw PgError(failed);
        return ctx.result;
    }
}

// An exception caught at a boundary, kept as plain data so that nothing with
// a destructor is alive when it is reported (own is placement-new'd into
// own_storage and destroyed by the function that reports it).
struct Caught {
    ErrorData* pg_error = nullptr;
    alignas(core::Error) unsigned char own_storage[sizeof(core::Error)];
    core::Error* own = nullptr;
    // Any other exception's message, copied without palloc: an error raised
    // inside a catch block would longjmp out of it.
    char other[512] = "";
};

// Runs f; returns true, with the exception in *c, when it threw.
template <typename F>
bool catch_into(Caught* c, F&& f) {
    try {
        f();
        return false;
    } catch (const PgError& e) {
        c->pg_error = e.data();
    } catch (const core::Error& e) {
        try {
            c->own = new (c->own_storage) core::Error(e);
        } catch (const std::bad_alloc&) {
            strlcpy(c->other, "out of memory in fetchq", sizeof(c->other));
        }
    } catch (const std::bad_alloc&) {
        strlcpy(c->other, "out of memory in fetchq", sizeof(c->other));
    } catch (const std::exception& e) {
        strlcpy(c->other, e.what(), sizeof(c->other));
    } catch (...) {
        strlcpy(c->other, "unknown C++ exception in fetchq", sizeof(c->other));
    }
    return true;
}

// Raises the caught error; never returns.
[[noreturn]] void rethrow_as_ereport(Caught* c);
// Reports it at `level` (below ERROR: returns) naming `where`.
void report_at(int level, const char* where, Caught* c);
// Throws when fetchq.fault_injection names `where` (pg/fault_injection.cpp).
void maybe_inject_fault(const char* where);

template <typename F>
Datum sql_entry(F&& f) {
    Caught c;
    Datum result = (Datum)0;
    if (!catch_into(&c, [&] { result = f(); })) return result;
    rethrow_as_ereport(&c);
}

template <typename F>
void callback_entry(int level, const char* where, F&& f) {
    Caught c;
    if (!catch_into(&c, [&] {
            maybe_inject_fault(where);
            f();
        }))
        return;
    if (level >= ERROR) rethrow_as_ereport(&c);
    report_at(level, where, &c);
}

}  // namespace fetchq::pg
