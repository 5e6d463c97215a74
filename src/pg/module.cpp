#include "pg/module.hpp"

#include "pg/fetchq4_quoting.hpp"
#include "pg/metrics.hpp"
#include "pg/queue_defaults.hpp"
#include "pg/postgres.hpp"

extern "C" {
#include "commands/extension.h"
}
#include "worker/database_guard.hpp"
#include "worker/launcher.hpp"
#include "worker/settings.hpp"
#include "worker/shared_state.hpp"
#include "worker/wake.hpp"

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
    // Not from the extension script: it runs with client_min_messages raised.
    if (g_preloaded || g_noticed || creating_extension) return;
    g_noticed = true;
    ereport(NOTICE,
            (errmsg("fetchq in-server maintenance is not running"),
             errdetail("The fetchq library was not loaded through shared_preload_libraries, so no "
                       "background worker promotes planned documents or re-queues orphans."),
             errhint("Add fetchq to shared_preload_libraries and restart the server, or call "
                     "fetchq.mnt_run_all() periodically.")));
}

}  // namespace fetchq::pg

namespace {

void on_xact(XactEvent event, void*) {
    using namespace fetchq::worker;
    switch (event) {
        case XACT_EVENT_COMMIT:
            at_commit();
            wake_scheduler_at_commit();
            break;
        case XACT_EVENT_ABORT:
        case XACT_EVENT_PARALLEL_ABORT:
        case XACT_EVENT_PREPARE:
            at_abort();
            forget_due();
            break;
        default:
            break;
    }
}

}  // namespace

extern "C" PGDLLEXPORT void _PG_init(void) {
    fetchq::pg::g_preloaded = process_shared_preload_libraries_in_progress;
    fetchq::worker::define_settings();
    fetchq::pg::define_fetchq4_quoting();
    fetchq::pg::metrics_register_callbacks();
    fetchq::pg::queue_defaults_register();
    RegisterXactCallback(on_xact, nullptr);
    if (!fetchq::pg::g_preloaded) return;
    fetchq::worker::request_shared_memory();
    fetchq::worker::install_shmem_hooks();
    fetchq::worker::install_database_guard();
    fetchq::worker::register_launcher();
}
