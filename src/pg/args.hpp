// Reading the arguments of SQL-callable functions into C++ values, with a
// clear error naming the argument when one is NULL or out of range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::pg {

bool arg_is_null(FunctionCallInfo fcinfo, int i);
std::string arg_text(FunctionCallInfo fcinfo, int i, const char* name);
std::optional<std::string> arg_text_or_null(FunctionCallInfo fcinfo, int i);
int32_t arg_int(FunctionCallInfo fcinfo, int i, const char* name);
// An integer limit: NULL or negative is an error.
int32_t arg_limit(FunctionCallInfo fcinfo, int i, const char* name);
bool arg_bool(FunctionCallInfo fcinfo, int i, const char* name);
TimestampTz arg_timestamptz(FunctionCallInfo fcinfo, int i, const char* name);
// jsonb argument as a Datum (NULL allowed: returns isnull).
Datum arg_datum(FunctionCallInfo fcinfo, int i, bool* isnull);
// A JSON argument of a Fetchq 4 function, read as Fetchq 4 read it
// (pg/fetchq4_quoting.hpp).
Datum arg_fetchq4_json(FunctionCallInfo fcinfo, int i, bool* isnull);

// Queue name argument, validated ([a-z0-9_], 1..40).
std::string arg_queue(FunctionCallInfo fcinfo, int i, const char* name = "queue");

// A duration argument ('5m', '100ms', '1 hour', any interval text), as an
// Interval palloc'd in the current memory context.
Interval* arg_duration(FunctionCallInfo fcinfo, int i, const char* name);
Interval* parse_duration_or_throw(const std::string& text, const char* name);
// The same for a lock or a delay, which must be longer than zero (22023).
Interval* arg_positive_duration(FunctionCallInfo fcinfo, int i, const char* name);
Interval* parse_positive_duration_or_throw(const std::string& text, const char* name);

// -1, 0 or 1 as the interval compares with zero, the way PostgreSQL
// compares intervals (a month is 30 days): '1 day -24 hours' is zero.
int interval_sign(const Interval* iv);

// An interval argument that must not be negative (22023).
Interval* arg_nonnegative_interval(FunctionCallInfo fcinfo, int i, const char* name);
// An optional idle timeout: nullptr when absent or NULL, 22023 unless positive.
const Interval* arg_idle_timeout(FunctionCallInfo fcinfo, int i);

// A role argument, given by name (NAME) or as a regrole: its OID; 22004 when
// NULL, 42704 when no such role exists.
Oid arg_role(FunctionCallInfo fcinfo, int i, const char* name = "role");

// A list of words: a text 'a, b' (braces allowed around it) or a text[].
// 22004 when it or an element is NULL.
std::vector<std::string> arg_word_list(FunctionCallInfo fcinfo, int i, const char* name);

[[noreturn]] void throw_null_argument(const char* name);

}  // namespace fetchq::pg
