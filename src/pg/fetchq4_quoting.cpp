#include "pg/fetchq4_quoting.hpp"

#include <cstring>

#include "pg/guard.hpp"

namespace fetchq::pg {
namespace {

bool g_enabled = true;

// Cheap test on the binary jsonb: string contents are stored verbatim, so a
// doubled quote in any key or value shows up; a false positive only costs
// the conversion below.
bool may_contain_doubled_quote(Jsonb* jb) {
    const char* data = VARDATA(jb);
    const size_t len = VARSIZE(jb) - VARHDRSZ;
    for (size_t i = 0; i + 1 < len; ++i)
        if (data[i] == '\'' && data[i + 1] == '\'') return true;
    return false;
}

}  // namespace

void define_fetchq4_quoting() {
    DefineCustomBoolVariable(
        "fetchq.fetchq4_quoting",
        "Reads two single quotes in JSON arguments of Fetchq 4 functions as one.",
        "Fetchq 4 clients double the quotes of JSON payloads because Fetchq 4 pasted them into "
        "SQL; turn off for clients that pass JSON unchanged.",
        &g_enabled, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

Datum fetchq4_json(Datum jsonb) {
    if (!g_enabled) return jsonb;
    return pg_call([&] {
        Jsonb* jb = DatumGetJsonbP(jsonb);
        if (!may_contain_doubled_quote(jb)) return PointerGetDatum(jb);
        char* text = JsonbToCString(nullptr, &jb->root, VARSIZE(jb));
        if (strstr(text, "''") == nullptr) return PointerGetDatum(jb);
        char* out = static_cast<char*>(palloc(strlen(text) + 1));
        char* w = out;
        for (const char* r = text; *r; ++r) {
            *w++ = *r;
            if (r[0] == '\'' && r[1] == '\'') ++r;
        }
        *w = '\0';
        return DirectFunctionCall1(jsonb_in, CStringGetDatum(out));
    });
}

}  // namespace fetchq::pg
