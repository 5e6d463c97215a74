// The fetchq.* configuration parameters: those of the background workers, and
// fetchq.notify_document_data, read by the notification triggers.
#pragma once

namespace fetchq::ops {

struct Settings {
    bool enabled = true;             // fetchq.enabled (superuser, per database)
    int naptime_ms = 10000;          // fetchq.naptime: longest sleep of a scheduler (sighup)
    int batch_size = 1000;           // fetchq.batch_size: rows per task transaction (sighup)
    int max_databases = 16;          // fetchq.max_databases: scheduler slots (postmaster)
    char* databases = nullptr;       // fetchq.databases: allow-list, empty = all (sighup)
    int lock_timeout_ms = 1000;      // fetchq.lock_timeout for task statements (sighup)
    int task_timeout_ms = 30000;     // fetchq.task_timeout: longest unit of maintenance (sighup)
    int log_level = 0;               // fetchq.log_level: elog level of task reports (sighup)
    int vacuum_threshold = 1000;     // fetchq.vacuum_threshold: dead tuples (sighup)
    int vacuum_interval_ms = 60000;  // fetchq.vacuum_interval (sighup)
    // fetchq.notify_document_data: subjects in per-queue NOTIFY payloads (superuser)
    bool notify_document_data = true;
    // fetchq.pick_start_threshold: dead index entries per pick that engage
    // a pick start (user)
    int pick_start_threshold = 1000;
    // fetchq.pick_start_max_age: how long a pick start is used (user)
    int pick_start_max_age_ms = 10000;
    // fetchq.deferred_counter_slots: queues whose deferred counter changes
    // shared memory holds at once (postmaster; 0: deferred queues count exactly)
    int deferred_counter_slots = 1024;
    // fetchq.counters_fold_interval: longest time between two folds of the
    // deferred counter changes into fetchq.counters (sighup)
    int counters_fold_interval_ms = 1000;
};

extern Settings settings;

// Defines the parameters (from _PG_init, before the workers are registered).
void define_settings();

}  // namespace fetchq::ops
