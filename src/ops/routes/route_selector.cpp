#include "ops/routes/route_selector.hpp"

#include "core/error.hpp"
#include "pg/guard.hpp"

extern "C" {
#include "utils/fmgrprotos.h"
#include "utils/jsonpath.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

const char* const kSelectorHint =
    "Write a SQL/JSON path predicate over the payload, such as '$.amount > 100' or "
    "'$.kind == \"order\" && $subject like_regex \"^eu-\"'; $subject, $version and $priority "
    "name the document's own fields.";

// What a walk of a jsonpath found (plain data: it runs inside pg_call).
struct PathScan {
    bool uses_variables = false;
    const char* unknown_variable = nullptr;  // palloc'd
};

void scan_item(JsonPathItem* item, PathScan* scan);

void scan_arg(JsonPathItem* item, void (*get)(JsonPathItem*, JsonPathItem*), PathScan* scan) {
    JsonPathItem arg;
    get(item, &arg);
    scan_item(&arg, scan);
}

void scan_variable(JsonPathItem* item, PathScan* scan) {
    int32 len = 0;
    const char* name = jspGetString(item, &len);
    scan->uses_variables = true;
    const bool known = (len == 7 && strncmp(name, "subject", 7) == 0) ||
                       (len == 7 && strncmp(name, "version", 7) == 0) ||
                       (len == 8 && strncmp(name, "priority", 8) == 0);
    if (!known && scan->unknown_variable == nullptr) scan->unknown_variable = pnstrdup(name, len);
}

// Every item of the path, its arguments and the items that follow it.
void scan_item(JsonPathItem* item, PathScan* scan) {
    check_stack_depth();
    switch (item->type) {
        case jpiAnd:
        case jpiOr:
        case jpiEqual:
        case jpiNotEqual:
        case jpiLess:
        case jpiGreater:
        case jpiLessOrEqual:
        case jpiGreaterOrEqual:
        case jpiAdd:
        case jpiSub:
        case jpiMul:
        case jpiDiv:
        case jpiMod:
        case jpiStartsWith:
            scan_arg(item, jspGetLeftArg, scan);
            scan_arg(item, jspGetRightArg, scan);
            break;
        case jpiNot:
        case jpiIsUnknown:
        case jpiExists:
        case jpiPlus:
        case jpiMinus:
        case jpiFilter:
            scan_arg(item, jspGetArg, scan);
            break;
        case jpiDatetime:
            if (item->content.arg) scan_arg(item, jspGetArg, scan);
            break;
        case jpiLikeRegex: {
            JsonPathItem expr;
            jspInitByBuffer(&expr, item->base, item->content.like_regex.expr);
            scan_item(&expr, scan);
            break;
        }
        case jpiIndexArray:
            for (int i = 0; i < item->content.array.nelems; ++i) {
                JsonPathItem from, to;
                const bool range = jspGetArraySubscript(item, &from, &to, i);
                scan_item(&from, scan);
                if (range) scan_item(&to, scan);
            }
            break;
        case jpiVariable:
            scan_variable(item, scan);
            break;
        default:
            break;
    }
    JsonPathItem next;
    if (jspGetNext(item, &next)) scan_item(&next, scan);
}

bool is_predicate(JsonPathItem* root) {
    if (jspHasNext(root)) return false;
    switch (root->type) {
        case jpiAnd:
        case jpiOr:
        case jpiNot:
        case jpiIsUnknown:
        case jpiEqual:
        case jpiNotEqual:
        case jpiLess:
        case jpiGreater:
        case jpiLessOrEqual:
        case jpiGreaterOrEqual:
        case jpiExists:
        case jpiStartsWith:
        case jpiLikeRegex:
            return true;
        default:
            return false;
    }
}

[[noreturn]] void refuse(const std::string& text, const std::string& detail) {
    throw core::Error(core::sqlstate::kInvalidParameterValue, "invalid selector \"" + text + "\"",
                      detail, kSelectorHint);
}

}  // namespace

Datum parse_selector(const std::string& text) {
    const char* cstr = text.c_str();
    Datum path = 0;
    try {
        path = pg_call([&] { return DirectFunctionCall1(jsonpath_in, CStringGetDatum(cstr)); });
    } catch (const PgError& e) {
        refuse(text, std::string("It is not a SQL/JSON path: ") + e.what() + ".");
    }
    PathScan scan;
    const bool predicate = pg_call([&] {
        JsonPathItem root;
        jspInit(&root, DatumGetJsonPathP(path));
        scan_item(&root, &scan);
        return is_predicate(&root);
    });
    if (!predicate)
        refuse(text,
               "A selector must be a predicate (a comparison, exists, like_regex, starts "
               "with, or such predicates joined by &&, || and !), not a path to items.");
    if (scan.unknown_variable)
        refuse(text, std::string("It names the variable $") + scan.unknown_variable +
                         "; a selector knows $subject, $version and $priority.");
    return path;
}

bool selector_uses_variables(Datum selector) {
    PathScan scan;
    pg_call([&] {
        JsonPathItem root;
        jspInit(&root, DatumGetJsonPathP(selector));
        scan_item(&root, &scan);
    });
    return scan.uses_variables;
}

Datum selector_variables(Datum subject, int32_t version, int32_t priority) {
    return pg_call([&] {
        JsonbParseState* state = nullptr;
        auto key = [&](const char* name) {
            JsonbValue k;
            k.type = jbvString;
            k.val.string.val = const_cast<char*>(name);
            k.val.string.len = static_cast<int>(strlen(name));
            pushJsonbValue(&state, WJB_KEY, &k);
        };
        auto number = [&](int32_t n) {
            JsonbValue v;
            v.type = jbvNumeric;
            v.val.numeric = int64_to_numeric(n);
            pushJsonbValue(&state, WJB_VALUE, &v);
        };
        pushJsonbValue(&state, WJB_BEGIN_OBJECT, nullptr);
        key("subject");
        JsonbValue s;
        text* t = DatumGetTextPP(subject);
        s.type = jbvString;
        s.val.string.val = VARDATA_ANY(t);
        s.val.string.len = static_cast<int>(VARSIZE_ANY_EXHDR(t));
        pushJsonbValue(&state, WJB_VALUE, &s);
        key("version");
        number(version);
        key("priority");
        number(priority);
        JsonbValue* object = pushJsonbValue(&state, WJB_END_OBJECT, nullptr);
        return JsonbPGetDatum(JsonbValueToJsonb(object));
    });
}

bool selector_matches(Datum selector, Datum payload, bool payload_null, Datum variables) {
    if (payload_null) return false;  // NULL @@ selector is NULL
    static Datum empty = 0;
    return pg_call([&] {
        if (empty == 0) {
            MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
            empty = DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"));
            MemoryContextSwitchTo(old);
        }
        LOCAL_FCINFO(call, 4);
        InitFunctionCallInfoData(*call, nullptr, 4, InvalidOid, nullptr, nullptr);
        call->args[0] = {payload, false};
        call->args[1] = {selector, false};
        call->args[2] = {variables ? variables : empty, false};
        call->args[3] = {BoolGetDatum(true), false};  // silent: unknown, not an error
        const Datum result = jsonb_path_match(call);
        return !call->isnull && DatumGetBool(result);
    });
}

}  // namespace fetchq::ops
