// fetchq.fault_injection: a superuser-only setting for tests, naming entry
// points (callbacks, worker mains; see pg::callback_entry) where fetchq
// throws a C++ exception on purpose, to show that each boundary turns it into
// a clean ERROR, WARNING or LOG instead of a crash. Empty (the default):
// nothing is injected. One name asks for something else than an exception:
// temporary_queue_name makes queue_create_temporary draw predictable names
// (ops/queues/queue_lifecycle.cpp), so that a test can take them first.
#pragma once

namespace fetchq::pg {

void define_fault_injection();

// Whether fetchq.fault_injection names `where`.
bool fault_injected(const char* where);

}  // namespace fetchq::pg
