// stream_create, stream_drop, stream_append, stream_read, stream_commit,
// stream_get, stream_claim, stream_release, stream_group_create and
// stream_set: the SQL entries of ops/streams/streams and ops/streams/stream_claims.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ops/streams/stream_claims.hpp"
#include "ops/streams/stream_read.hpp"
#include "ops/streams/streams.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

std::string arg_key(FunctionCallInfo fcinfo, int i) {
    std::string key = arg_text(fcinfo, i, "key");
    check_stream_key(key);
    return key;
}

std::string arg_group(FunctionCallInfo fcinfo, int i) {
    std::string group = arg_text(fcinfo, i, "group_name");
    check_group_name(group);
    return group;
}

// stream_create(name) -> (was_created, stream_id)
Datum stream_create(FunctionCallInfo fcinfo) {
    const std::string name = arg_queue(fcinfo, 0, "name");
    spi_connect();
    const CreatedStream s = create_stream(name);
    spi_finish();
    Datum values[2] = {BoolGetDatum(s.created), Int32GetDatum(s.id)};
    bool nulls[2] = {false, false};
    return make_record(fcinfo, values, nulls);
}

// stream_drop(name) -> true
Datum stream_drop(FunctionCallInfo fcinfo) {
    const std::string name = arg_queue(fcinfo, 0, "name");
    spi_connect();
    drop_stream(name);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// stream_set_max_age(stream, max_age) -> true; NULL turns it off.
Datum stream_set_max_age(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const Interval* max_age =
        arg_is_null(fcinfo, 1) ? nullptr : arg_nonnegative_interval(fcinfo, 1, "max_age");
    if (max_age && interval_sign(max_age) == 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument max_age must be longer than zero", {},
                          "Pass NULL to keep messages until every group committed them.");
    spi_connect();
    set_stream_max_age(stream, max_age);
    spi_finish();
    PG_RETURN_BOOL(true);
}

// stream_append(stream, key, payload) -> offset
Datum stream_append(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string key = arg_key(fcinfo, 1);
    bool payload_null = false;
    const Datum payload = arg_datum(fcinfo, 2, &payload_null);
    spi_connect();
    const int64_t offset = append_message(stream_for_append(stream), key, payload, payload_null);
    spi_finish();
    PG_RETURN_INT64(offset);
}

// stream_read(stream, group_name, key, limit DEFAULT 100) -> ("offset", payload, appended_at)
Datum stream_read(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string group = arg_group(fcinfo, 1);
    const std::string key = arg_key(fcinfo, 2);
    const int32_t limit = PG_NARGS() > 3 ? arg_limit(fcinfo, 3, "limit") : 100;
    begin_rows(fcinfo);
    spi_connect();
    for (const StreamMessage& m : read_messages(stream_for_read(stream), group, key, limit)) {
        Datum values[3] = {Int64GetDatum(m.offset), m.payload, TimestampTzGetDatum(m.appended_at)};
        bool nulls[3] = {false, m.payload_null, false};
        add_row(fcinfo, values, nulls);
    }
    spi_finish();
    return (Datum)0;
}

int64_t arg_offset(FunctionCallInfo fcinfo, int i) {
    if (arg_is_null(fcinfo, i)) throw_null_argument("offset");
    return PG_GETARG_INT64(i);
}

// stream_commit(stream, group_name, key, offset) -> the committed offset
Datum stream_commit(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string group = arg_group(fcinfo, 1);
    const std::string key = arg_key(fcinfo, 2);
    const int64_t offset = arg_offset(fcinfo, 3);
    spi_connect();
    const int64_t committed = commit_offset(stream_for_read(stream), group, key, offset);
    spi_finish();
    PG_RETURN_INT64(committed);
}

Datum jsonb_of(const std::string& text) {
    const char* json = text.c_str();
    return pg_call([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(json)); });
}

// stream_get(stream, group_name, key) -> {"id": offset, "message": payload} or NULL
Datum stream_get(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string group = arg_group(fcinfo, 1);
    const std::string key = arg_key(fcinfo, 2);
    spi_connect();
    std::string json;
    for (const StreamMessage& m : read_messages(stream_for_read(stream), group, key, 1)) {
        const char* payload = m.payload_null ? "null" : pg_call([&] {
            return DatumGetCString(DirectFunctionCall1(jsonb_out, m.payload));
        });
        json = "{\"id\": " + std::to_string(m.offset) + ", \"message\": " + payload + "}";
    }
    spi_finish();
    if (json.empty()) PG_RETURN_NULL();
    return jsonb_of(json);
}

// stream_claim(stream, group_name, max_keys DEFAULT 1, lease DEFAULT '30 seconds')
// -> (key, lease_until)
Datum stream_claim(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string group = arg_group(fcinfo, 1);
    const int32_t max_keys = PG_NARGS() > 2 ? arg_limit(fcinfo, 2, "max_keys") : 1;
    const Interval* lease = PG_NARGS() > 3
                                ? arg_nonnegative_interval(fcinfo, 3, "lease")
                                : parse_positive_duration_or_throw("30 seconds", "lease");
    if (interval_sign(lease) == 0)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "argument lease must be longer than zero", {},
                          "Lease keys for as long as processing their messages may take.");
    begin_rows(fcinfo);
    spi_connect();
    const std::vector<ClaimedKey> keys =
        claim_keys(stream_for_read(stream), group, max_keys, lease);
    for (const ClaimedKey& k : keys) {
        Datum values[2] = {to_text(k.key), TimestampTzGetDatum(k.until)};
        bool nulls[2] = {false, false};
        add_row(fcinfo, values, nulls);
    }
    spi_finish();
    return (Datum)0;
}

// stream_release(stream, group_name, key DEFAULT NULL) -> leases ended
Datum stream_release(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string group = arg_group(fcinfo, 1);
    const std::string key =
        PG_NARGS() > 2 && !arg_is_null(fcinfo, 2) ? arg_key(fcinfo, 2) : std::string();
    spi_connect();
    const int64_t n = release_keys(stream_for_read(stream), group, key);
    spi_finish();
    PG_RETURN_INT32(static_cast<int32_t>(n));
}

// stream_group_create(stream, group_name) -> true when created
Datum stream_group_create(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string group = arg_group(fcinfo, 1);
    spi_connect();
    const bool created = register_group(stream_for_read(stream), group);
    spi_finish();
    PG_RETURN_BOOL(created);
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_stream_create, fetchq::sql_api::stream_create)
FETCHQ_SQL_FUNCTION(fetchq_stream_drop, fetchq::sql_api::stream_drop)
FETCHQ_SQL_FUNCTION(fetchq_stream_set_max_age, fetchq::sql_api::stream_set_max_age)
FETCHQ_SQL_FUNCTION(fetchq_stream_append, fetchq::sql_api::stream_append)
FETCHQ_SQL_FUNCTION(fetchq_stream_read, fetchq::sql_api::stream_read)
FETCHQ_SQL_FUNCTION(fetchq_stream_commit, fetchq::sql_api::stream_commit)
FETCHQ_SQL_FUNCTION(fetchq_stream_get, fetchq::sql_api::stream_get)
FETCHQ_SQL_FUNCTION(fetchq_stream_claim, fetchq::sql_api::stream_claim)
FETCHQ_SQL_FUNCTION(fetchq_stream_release, fetchq::sql_api::stream_release)
FETCHQ_SQL_FUNCTION(fetchq_stream_group_create, fetchq::sql_api::stream_group_create)
