#include "pg/module.hpp"

#include "pg/metrics.hpp"
#include "pg/postgres.hpp"

extern "C" {
PG_MODULE_MAGIC;
}

namespace fetchq::pg {
namespace {
bool g_preloaded = false;
bool g_noticed = false;
}  // namespace

bool loaded_at_startup() { return g_preloaded; }

void notice_if_not_preloaded() {
    if (g_preloaded || g_noticed) return;
    g_noticed = true;
    ereport(NOTICE,
            (errmsg("fetchq in-server maintenance is not running"),
             errdetail("The fetchq library was not loaded through shared_preload_libraries, so no "
                       "background worker promotes planned documents or re-queues orphans."),
             errhint("Add fetchq to shared_preload_libraries and restart the server, or call "
                     "fetchq.mnt_run_all() periodically.")));
}

}  // namespace fetchq::pg

extern "C" PGDLLEXPORT void _PG_init(void) {
    fetchq::pg::g_preloaded = process_shared_preload_libraries_in_progress;
    MarkGUCPrefixReserved("fetchq");
    fetchq::pg::metrics_register_callbacks();
}
