#include "pg/module.hpp"

#include "pg/postgres.hpp"

extern "C" {
#include "commands/extension.h"
#include "utils/guc.h"
}

namespace fetchq::pg {
namespace {
bool g_preloaded = false;
bool g_noticed = false;
}  // namespace

void set_loaded_at_startup(bool preloaded) { g_preloaded = preloaded; }

bool loaded_at_startup() { return g_preloaded; }

void notice_if_not_preloaded() {
    // Not from the extension script: it runs with client_min_messages raised.
    if (g_preloaded || g_noticed || creating_extension) return;
    // Nor where maintenance is off anyway (fetchq.enabled = off, as in the
    // regression database, whose output must not depend on the preload).
    const char* enabled = GetConfigOption("fetchq.enabled", true, false);
    if (enabled != nullptr && strcmp(enabled, "off") == 0) return;
    g_noticed = true;
    ereport(NOTICE,
            (errmsg("fetchq in-server maintenance is not running"),
             errdetail("The fetchq library was not loaded through shared_preload_libraries, so no "
                       "background worker promotes planned documents or re-queues orphans."),
             errhint("Add fetchq to shared_preload_libraries and restart the server, or call "
                     "fetchq.mnt_run_all() periodically.")));
}

}  // namespace fetchq::pg
