// A route's selector: a SQL/JSON path predicate over a document's payload
// (`payload @@ selector`), which may also test the document's subject,
// version and priority as $subject, $version and $priority. Parsed and
// checked when the route is created; evaluated on each arrival. A jsonpath
// cannot call functions or read tables, which is why it is the selector.
#pragma once

#include <cstdint>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// The jsonpath of `text`: raises 22023, with a hint, when it does not parse,
// is not a predicate (`$.a`), or names a variable other than the three.
Datum parse_selector(const std::string& text);

// True when the selector reads $subject, $version or $priority.
bool selector_uses_variables(Datum selector);

// The variables of one document, for selector_matches.
Datum selector_variables(Datum subject, int32_t version, int32_t priority);

// payload @@ selector with `variables` (0: none). Unknown (a NULL payload, a
// comparison of mismatched types, a missing key in strict mode) is false.
bool selector_matches(Datum selector, Datum payload, bool payload_null, Datum variables);

}  // namespace fetchq::ops
