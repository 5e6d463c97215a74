#include "ops/config/settings.hpp"

#include "pg/postgres.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

Settings settings;

namespace {

const struct config_enum_entry kLogLevels[] = {
    {"debug1", DEBUG1, false}, {"debug2", DEBUG2, false}, {"log", LOG, false},
    {"info", INFO, false},     {"notice", NOTICE, false}, {"warning", WARNING, false},
    {nullptr, 0, false},
};

}  // namespace

void define_settings() {
    settings.log_level = DEBUG1;
    // SUSET, not SIGHUP: ALTER DATABASE ... SET fetchq.enabled = off keeps the
    // scheduler of one database idle (read when the scheduler connects).
    DefineCustomBoolVariable("fetchq.enabled", "Runs fetchq maintenance in background workers.",
                             "Per database with ALTER DATABASE ... SET; takes effect when the "
                             "scheduler of that database (re)starts.",
                             &settings.enabled, true, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("fetchq.naptime",
                            "Longest sleep of a fetchq scheduler between two rounds.",
                            "A scheduler wakes earlier when a document or a lock is due, or when "
                            "a commit plans a document before its next round.",
                            &settings.naptime_ms, 10000, 10, 3600000, PGC_SIGHUP, GUC_UNIT_MS,
                            nullptr, nullptr, nullptr);
    DefineCustomIntVariable("fetchq.batch_size", "Documents changed per maintenance transaction.",
                            nullptr, &settings.batch_size, 1000, 1, 1000000, PGC_SIGHUP, 0, nullptr,
                            nullptr, nullptr);
    // Sizes shared memory: only when preloaded (defining a postmaster-only
    // setting after startup is an error).
    if (process_shared_preload_libraries_in_progress)
        DefineCustomIntVariable(
            "fetchq.max_databases", "Databases that can have a fetchq scheduler at once.",
            "Each scheduler is a background worker: keep max_worker_processes "
            "above this plus one for the launcher.",
            &settings.max_databases, 16, 1, 1024, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("fetchq.databases",
                               "Databases where fetchq schedulers may run (comma-separated).",
                               "Empty means every database that has the extension.",
                               &settings.databases, "", PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("fetchq.lock_timeout", "lock_timeout of maintenance statements.",
                            nullptr, &settings.lock_timeout_ms, 1000, 0, 600000, PGC_SIGHUP,
                            GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "fetchq.task_timeout", "Longest a unit of background maintenance may run.",
        "A queue owner's trigger that runs longer is cancelled, and that queue waits before "
        "its next try, so that it cannot hold up the maintenance of the other queues. 0: none.",
        &settings.task_timeout_ms, 30000, 0, INT_MAX, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr,
        nullptr);
    DefineCustomEnumVariable(
        "fetchq.log_level", "Message level of the reports of maintenance rounds.", nullptr,
        &settings.log_level, DEBUG1, kLogLevels, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("fetchq.vacuum_threshold",
                            "Dead tuples in a queue table that make the scheduler vacuum it.",
                            nullptr, &settings.vacuum_threshold, 1000, 0, INT_MAX, PGC_SIGHUP, 0,
                            nullptr, nullptr, nullptr);
    DefineCustomIntVariable("fetchq.vacuum_interval",
                            "Shortest time between two vacuums of the same queue table.", nullptr,
                            &settings.vacuum_interval_ms, 60000, 1000, 86400000, PGC_SIGHUP,
                            GUC_UNIT_MS, nullptr, nullptr, nullptr);
    // SUSET: LISTEN needs no privilege, so only a superuser may decide that
    // subjects go out on the per-queue channels (per database, per role).
    // Defined with or without preloading: the triggers read it in any backend.
    DefineCustomBoolVariable(
        "fetchq.notify_document_data",
        "Sends the document subject as payload on the per-queue notification channels.",
        "Off sends an empty payload: the channel still names the queue and the event. On, as "
        "Fetchq 4 did, any role that can connect to the database can LISTEN and read subjects.",
        &settings.notify_document_data, true, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    // USERSET: what one backend keeps is its own memory, as work_mem.
    DefineCustomIntVariable(
        "fetchq.plan_cache_queues", "Queues whose prepared statements a backend keeps.",
        "Those of the least recently used queues beyond it are freed and prepared again at "
        "their next use. -1: no limit.",
        &pg::plan_cache_queues, 64, -1, INT_MAX, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    // USERSET, both: they only decide where the setter's own picks start.
    DefineCustomIntVariable(
        "fetchq.pick_start_threshold",
        "Index entries per document taken that make picks start past the documents taken.",
        "A pick from the beginning of a queue's pick index that reads more entries than this per "
        "document it takes (a dead prefix a held xmin horizon keeps) sets a start for the picks "
        "after it; one that reads fewer drops it. 0: always; -1: never, every pick starts from "
        "the beginning.",
        &settings.pick_start_threshold, 1000, -1, INT_MAX, PGC_USERSET, 0, nullptr, nullptr,
        nullptr);
    DefineCustomIntVariable(
        "fetchq.pick_start_max_age", "How long picks use a start before one renews it.",
        "Then one pick from the beginning renews it; that pick finds documents made pickable by "
        "plain SQL on a queue's table, which picks from the start do not see. -1: no limit.",
        &settings.pick_start_max_age_ms, 10000, -1, INT_MAX, PGC_USERSET, GUC_UNIT_MS, nullptr,
        nullptr, nullptr);
    if (process_shared_preload_libraries_in_progress)
        DefineCustomIntVariable(
            "fetchq.deferred_counter_slots",
            "Queues whose deferred counter changes shared memory holds at once.",
            "A commit that finds no free slot writes its counter row as a queue with exact "
            "counters does. 0: deferred queues count exactly.",
            &settings.deferred_counter_slots, 1024, 0, 1000000, PGC_POSTMASTER, 0, nullptr, nullptr,
            nullptr);
    DefineCustomIntVariable(
        "fetchq.counters_fold_interval",
        "Longest time between two folds of deferred counter changes into fetchq.counters.",
        "Readers add the changes not yet folded; a crash loses them (docs/operations.md).",
        &settings.counters_fold_interval_ms, 1000, 10, 3600000, PGC_SIGHUP, GUC_UNIT_MS, nullptr,
        nullptr, nullptr);
    MarkGUCPrefixReserved("fetchq");
}

}  // namespace fetchq::ops
