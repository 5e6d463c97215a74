#include "pg/args.hpp"

#include "core/duration.hpp"
#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/name_list.hpp"
#include "core/queue_name.hpp"
#include "pg/fetchq4_quoting.hpp"
#include "pg/guard.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/syscache.h"
}

namespace fetchq::pg {

using core::Error;
namespace sqlstate = core::sqlstate;

void throw_null_argument(const char* name) {
    throw Error(sqlstate::kNullValueNotAllowed,
                std::string("argument ") + name + " must not be null", {},
                std::string("Pass a value for ") + name + ".");
}

bool arg_is_null(FunctionCallInfo fcinfo, int i) { return i >= PG_NARGS() || PG_ARGISNULL(i); }

std::optional<std::string> arg_text_or_null(FunctionCallInfo fcinfo, int i) {
    if (arg_is_null(fcinfo, i)) return std::nullopt;
    const char* s = pg_call([&] { return text_to_cstring(PG_GETARG_TEXT_PP(i)); });
    return std::string(s);
}

std::string arg_text(FunctionCallInfo fcinfo, int i, const char* name) {
    auto v = arg_text_or_null(fcinfo, i);
    if (!v) throw_null_argument(name);
    return *v;
}

int32_t arg_int(FunctionCallInfo fcinfo, int i, const char* name) {
    if (arg_is_null(fcinfo, i)) throw_null_argument(name);
    return PG_GETARG_INT32(i);
}

int32_t arg_limit(FunctionCallInfo fcinfo, int i, const char* name) {
    int32_t v = arg_int(fcinfo, i, name);
    if (v < 0)
        throw Error(sqlstate::kInvalidParameterValue,
                    std::string("argument ") + name + " must not be negative",
                    "The value was " + std::to_string(v) + ".",
                    "Pass 0 or a positive number of documents.");
    return v;
}

bool arg_bool(FunctionCallInfo fcinfo, int i, const char* name) {
    if (arg_is_null(fcinfo, i)) throw_null_argument(name);
    return PG_GETARG_BOOL(i);
}

TimestampTz arg_timestamptz(FunctionCallInfo fcinfo, int i, const char* name) {
    if (arg_is_null(fcinfo, i)) throw_null_argument(name);
    return PG_GETARG_TIMESTAMPTZ(i);
}

Datum arg_datum(FunctionCallInfo fcinfo, int i, bool* isnull) {
    *isnull = arg_is_null(fcinfo, i);
    return *isnull ? (Datum)0 : PG_GETARG_DATUM(i);
}

Datum arg_fetchq4_json(FunctionCallInfo fcinfo, int i, bool* isnull) {
    Datum d = arg_datum(fcinfo, i, isnull);
    return *isnull ? d : fetchq4_json(d);
}

std::string arg_queue(FunctionCallInfo fcinfo, int i, const char* name) {
    std::string queue = arg_text(fcinfo, i, name);
    core::check_queue_name(queue, name);
    return queue;
}

Interval* parse_duration_or_throw(const std::string& text, const char* name) {
    if (auto d = core::parse_duration(text)) {
        Interval* iv = pg_call([] { return static_cast<Interval*>(palloc(sizeof(Interval))); });
        iv->month = d->months;
        iv->day = d->days;
        iv->time = d->micros;
        return iv;
    }
    // Not a compact duration: let PostgreSQL's interval input decide.
    const char* in = text.c_str();
    bool failed = false;
    Interval* iv = nullptr;
    MemoryContext caller = CurrentMemoryContext;
    PG_TRY();
    {
        iv = DatumGetIntervalP(DirectFunctionCall3(
            interval_in, CStringGetDatum(in), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller);
        FlushErrorState();
        failed = true;
    }
    PG_END_TRY();
    if (failed)
        throw Error(sqlstate::kInvalidDatetimeFormat,
                    "invalid duration " + core::echo(text) + " for argument " + name, {},
                    "Write a duration such as '30s', '5m', '100ms', '1h30m' or '2 days'.");
    return iv;
}

Interval* arg_duration(FunctionCallInfo fcinfo, int i, const char* name) {
    return parse_duration_or_throw(arg_text(fcinfo, i, name), name);
}

int interval_sign(const Interval* iv) {
    return pg_call([&] {
        Interval zero{};
        const int32 c = DatumGetInt32(
            DirectFunctionCall2(interval_cmp, IntervalPGetDatum(iv), IntervalPGetDatum(&zero)));
        return c < 0 ? -1 : c > 0 ? 1 : 0;
    });
}

Interval* parse_positive_duration_or_throw(const std::string& text, const char* name) {
    Interval* iv = parse_duration_or_throw(text, name);
    if (interval_sign(iv) <= 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          std::string("argument ") + name + " must be longer than zero", {},
                          "Pass a positive duration, such as '30s' or '5m'.");
    return iv;
}

Interval* arg_nonnegative_interval(FunctionCallInfo fcinfo, int i, const char* name) {
    if (arg_is_null(fcinfo, i)) throw_null_argument(name);
    Interval* iv = pg_call([&] { return PG_GETARG_INTERVAL_P(i); });
    if (interval_sign(iv) < 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          std::string("argument ") + name + " must not be negative", {},
                          "Pass a delay such as '2 seconds', or NULL.");
    return iv;
}

const Interval* arg_idle_timeout(FunctionCallInfo fcinfo, int i) {
    if (PG_NARGS() <= i || arg_is_null(fcinfo, i)) return nullptr;
    Interval* iv = pg_call([&] { return PG_GETARG_INTERVAL_P(i); });
    if (interval_sign(iv) <= 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument idle_timeout must be longer than zero", {},
                          "Pass an interval such as '10 minutes', or NULL for none.");
    return iv;
}

Interval* arg_positive_duration(FunctionCallInfo fcinfo, int i, const char* name) {
    return parse_positive_duration_or_throw(arg_text(fcinfo, i, name), name);
}

Oid arg_role(FunctionCallInfo fcinfo, int i, const char* name) {
    if (arg_is_null(fcinfo, i)) throw_null_argument(name);
    const Oid type = pg_call([&] { return get_fn_expr_argtype(fcinfo->flinfo, i); });
    if (type == REGROLEOID) {
        const Oid role = PG_GETARG_OID(i);
        if (!pg_call([&] { return SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)); }))
            throw core::Error(core::sqlstate::kUndefinedObject,
                              "role with OID " + std::to_string(role) + " does not exist");
        return role;
    }
    const char* role_name = pg_call([&] { return pstrdup(NameStr(*PG_GETARG_NAME(i))); });
    return pg_call([&] { return get_role_oid(role_name, false); });
}

std::vector<std::string> arg_word_list(FunctionCallInfo fcinfo, int i, const char* name) {
    if (arg_is_null(fcinfo, i)) throw_null_argument(name);
    std::vector<std::string> words;
    const Oid type = pg_call([&] { return get_fn_expr_argtype(fcinfo->flinfo, i); });
    if (type == TEXTARRAYOID) {
        ArrayType* array = pg_call([&] { return PG_GETARG_ARRAYTYPE_P(i); });
        Datum* elems = nullptr;
        bool* nulls = nullptr;
        int n = 0;
        pg_call([&] {
            deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
        });
        for (int k = 0; k < n; ++k) {
            if (nulls[k]) throw_null_argument(name);
            words.emplace_back(pg_call([&] { return text_to_cstring(DatumGetTextPP(elems[k])); }));
        }
        return words;
    }
    std::string text = arg_text(fcinfo, i, name);
    if (text.size() >= 2 && text.front() == '{' && text.back() == '}')
        text = text.substr(1, text.size() - 2);
    return core::split_name_list(text);
}

}  // namespace fetchq::pg
