// Process-wide state of the loaded library.
#pragma once

namespace fetchq::pg {

// True when the library was loaded by shared_preload_libraries, so that the
// background workers can run.
bool loaded_at_startup();
// Set once, by _PG_init.
void set_loaded_at_startup(bool preloaded);

// Says once per session, as a NOTICE, that in-server maintenance is not
// running when the library was not preloaded.
void notice_if_not_preloaded();

}  // namespace fetchq::pg
