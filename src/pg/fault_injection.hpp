// fetchq.fault_injection: a superuser-only setting for tests, naming entry
// points (callbacks, worker mains; see pg::callback_entry) where fetchq
// throws a C++ exception on purpose, to show that each boundary turns it into
// a clean ERROR, WARNING or LOG instead of a crash. Empty (the default):
// nothing is injected.
#pragma once

namespace fetchq::pg {

void define_fault_injection();

}  // namespace fetchq::pg
