// stream_set(stream, group_name, body): the seed's "set" of the offset log,
// {"create": [{"hash": key, "message": payload}...], "commit": [{"hash": key,
// "id": offset}...]}. Every item is checked before anything is applied, and
// an error while applying (an offset beyond the last message) rolls back
// what the call did: all or nothing. jsonb keeps no order between "create"
// and "commit": the creates are applied first, then the commits, each in
// array order, so a set can commit what it creates.
#include <algorithm>
#include <string>
#include <vector>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "ops/streams/streams.hpp"
#include "pg/args.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"
#include "sql_api/function.hpp"

namespace fetchq::sql_api {
namespace {

using namespace fetchq::pg;
using namespace fetchq::ops;

struct SetItem {
    bool create = true;
    int64_t n = 0;  // 1-based, within its array
    std::string hash;
    Datum message = 0;
    int64_t id = 0;
};

[[noreturn]] void bad_body(const std::string& message, const std::string& detail = {}) {
    throw core::Error(core::sqlstate::kInvalidParameterValue, message, detail,
                      "Pass {\"create\": [{\"hash\": ..., \"message\": ...}], "
                      "\"commit\": [{\"hash\": ..., \"id\": ...}]}; both keys are optional.");
}

void check_shape(Datum body) {
    SPIPlanPtr plan = cached_plan(
        "", "stream_set_shape",
        [] {
            return std::string(
                "SELECT jsonb_typeof($1), jsonb_typeof($1 -> 'create'), jsonb_typeof($1 -> "
                "'commit'), CASE WHEN jsonb_typeof($1) = 'object' THEN (SELECT string_agg(k, ', "
                "') FROM jsonb_object_keys($1) AS k WHERE k NOT IN ('create', 'commit')) END");
        },
        {JSONBOID});
    spi_execute(plan, &body, nullptr, true);
    const char* type = spi_text(0, 1);
    if (type == nullptr || std::string(type) != "object")
        bad_body("argument body must be a JSON object");
    for (int col : {2, 3}) {
        const char* t = spi_text(0, col);
        if (t != nullptr && std::string(t) != "array")
            bad_body(std::string("\"") + (col == 2 ? "create" : "commit") +
                     "\" of argument body must be an array");
    }
    if (const char* other = spi_text(0, 4))
        bad_body("argument body has keys other than \"create\" and \"commit\"",
                 "The other keys are " + core::echo_unquoted(other) + ".");
}

// "12" or 12: an offset; anything else is refused.
int64_t parse_id(const SetItem& item, const char* type, const char* text) {
    const std::string where = "commit item " + std::to_string(item.n);
    const std::string value = text ? text : "";
    bool digits = !value.empty() && value.size() <= 18;
    for (char c : value) digits = digits && c >= '0' && c <= '9';
    const bool typed = type && (std::string(type) == "number" || std::string(type) == "string");
    if (!typed || !digits)
        bad_body(where + ": \"id\" must be an offset (a whole number, 0 or more)",
                 "The value was " + (text ? core::echo(value) : std::string("missing")) + ".");
    return std::stoll(value);
}

std::vector<SetItem> items_of(Datum body) {
    check_shape(body);
    SPIPlanPtr plan = cached_plan(
        "", "stream_set_items",
        [] {
            return std::string(
                "SELECT s.ord, e.n, jsonb_typeof(e.item), jsonb_typeof(e.item -> 'hash'),"
                " e.item ->> 'hash', COALESCE(e.item ? 'message', false), e.item -> 'message',"
                " jsonb_typeof(e.item -> 'id'), e.item ->> 'id',"
                " CASE WHEN jsonb_typeof(e.item) = 'object' THEN (SELECT string_agg(k, ', ')"
                "  FROM jsonb_object_keys(e.item) AS k WHERE k <> 'hash' AND k <> CASE s.ord"
                "  WHEN 1 THEN 'message' ELSE 'id' END) END"
                " FROM (VALUES (1, 'create'), (2, 'commit')) AS s(ord, section)"
                " CROSS JOIN LATERAL jsonb_array_elements(COALESCE($1 -> s.section, '[]'))"
                " WITH ORDINALITY AS e(item, n) ORDER BY s.ord, e.n");
        },
        {JSONBOID});
    const uint64_t rows = spi_execute(plan, &body, nullptr, true);
    std::vector<SetItem> items;
    for (uint64_t row = 0; row < rows; ++row) {
        SetItem item;
        item.create = spi_int(row, 1) == 1;
        item.n = spi_int(row, 2);
        const std::string where =
            std::string(item.create ? "create" : "commit") + " item " + std::to_string(item.n);
        const char* type = spi_text(row, 3);
        if (type == nullptr || std::string(type) != "object")
            bad_body(where + " must be a JSON object");
        if (const char* other = spi_text(row, 10))
            bad_body(where + " has keys other than \"hash\" and \"" +
                         (item.create ? "message" : "id") + "\"",
                     "The other keys are " + core::echo_unquoted(other) + ".");
        const char* hash_type = spi_text(row, 4);
        if (hash_type == nullptr || std::string(hash_type) != "string")
            bad_body(where + ": \"hash\" must be a string");
        item.hash = spi_text(row, 5);
        check_stream_key(item.hash);
        if (item.create) {
            bool isnull = false;
            if (!DatumGetBool(spi_value(row, 6, &isnull)))
                bad_body(where + ": \"message\" is missing");
            item.message = spi_value(row, 7, &isnull);
        } else {
            item.id = parse_id(item, spi_text(row, 8), spi_text(row, 9));
        }
        items.push_back(std::move(item));
    }
    return items;
}

// stream_set(stream, group_name, body) -> {"create": [{"hash", "id"}...],
// "commit": [{"hash", "id"}...]}: the offsets given and committed.
Datum stream_set(FunctionCallInfo fcinfo) {
    const std::string stream = arg_queue(fcinfo, 0, "stream");
    const std::string group = arg_text(fcinfo, 1, "group_name");
    check_group_name(group);
    bool body_null = false;
    const Datum body = arg_datum(fcinfo, 2, &body_null);
    if (body_null) throw_null_argument("body");
    spi_connect();
    // Commits need read, appends append (and hold the stream against its drop).
    int32_t id = stream_id(stream);
    const std::vector<SetItem> items = items_of(body);
    if (std::any_of(items.begin(), items.end(), [](const SetItem& item) { return !item.create; }))
        id = stream_for_read(stream);
    if (std::any_of(items.begin(), items.end(), [](const SetItem& item) { return item.create; }))
        id = stream_for_append(stream);
    std::string created, committed;
    for (const SetItem& item : items) {
        std::string& out = item.create ? created : committed;
        const int64_t offset = item.create ? append_message(id, item.hash, item.message, false)
                                           : commit_offset(id, group, item.hash, item.id);
        out += (out.empty() ? "" : ", ") + std::string("{\"hash\": ") +
               json_string(item.hash.c_str()) + ", \"id\": " + std::to_string(offset) + "}";
    }
    spi_finish();
    const std::string json = "{\"create\": [" + created + "], \"commit\": [" + committed + "]}";
    const char* text = json.c_str();
    return pg_call([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(text)); });
}

}  // namespace
}  // namespace fetchq::sql_api

FETCHQ_SQL_FUNCTION(fetchq_stream_set, fetchq::sql_api::stream_set)
