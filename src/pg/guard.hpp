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

  private:
    ErrorData* data_;  // palloc'd in the memory context of the failed call
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

// Raises the error described by the exception; never returns.
[[noreturn]] void rethrow_as_ereport(ErrorData* pg_error, const core::Error* own,
                                     const char* other);
// Reports it at `level` (below ERROR: returns) naming `where`.
void report_at(int level, const char* where, ErrorData* pg_error, const core::Error* own,
               const char* other);
// Throws when fetchq.fault_injection names `where` (pg/fault_injection.cpp).
void maybe_inject_fault(const char* where);

template <typename F>
Datum sql_entry(F&& f) {
    ErrorData* pg_error = nullptr;
    // Plain buffers: nothing with a destructor may be alive at ereport time.
    alignas(core::Error) unsigned char own_storage[sizeof(core::Error)];
    core::Error* own = nullptr;
    const char* other = nullptr;
    try {
        return f();
    } catch (const PgError& e) {
        pg_error = e.data();
    } catch (const core::Error& e) {
        own = new (own_storage) core::Error(e);
    } catch (const std::bad_alloc&) {
        other = "out of memory in fetchq";
    } catch (const std::exception& e) {
        other = pstrdup(e.what());
    } catch (...) {
        other = "unknown C++ exception in fetchq";
    }
    rethrow_as_ereport(pg_error, own, other);
}

template <typename F>
void callback_entry(int level, const char* where, F&& f) {
    ErrorData* pg_error = nullptr;
    alignas(core::Error) unsigned char own_storage[sizeof(core::Error)];
    core::Error* own = nullptr;
    const char* other = nullptr;
    try {
        maybe_inject_fault(where);
        f();
        return;
    } catch (const PgError& e) {
        pg_error = e.data();
    } catch (const core::Error& e) {
        own = new (own_storage) core::Error(e);
    } catch (const std::bad_alloc&) {
        other = "out of memory in fetchq";
    } catch (const std::exception& e) {
        other = pstrdup(e.what());
    } catch (...) {
        other = "unknown C++ exception in fetchq";
    }
    if (level >= ERROR) rethrow_as_ereport(pg_error, own, other);
    report_at(level, where, pg_error, own, other);
}

}  // namespace fetchq::pg
