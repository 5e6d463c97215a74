// Fetchq 4 pasted JSON arguments into SQL text inside single quotes, so its
// callers (the Node client among them) double every quote in a payload, and
// Fetchq stored one. With fetchq.fetchq4_quoting on (the default), the JSON
// arguments of the Fetchq 4 functions are read the same way: two consecutive
// single quotes stand for one. Nothing is ever pasted into SQL here.
#pragma once

#include "pg/postgres.hpp"

namespace fetchq::pg {

void define_fetchq4_quoting();

// The jsonb argument as Fetchq 4 would have stored it.
Datum fetchq4_json(Datum jsonb);

}  // namespace fetchq::pg
