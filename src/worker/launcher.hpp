// The launcher: one per cluster, connected to no database. It keeps one
// scheduler running per database (allowed by fetchq.databases) that has the
// extension, restarting them with backoff.
#pragma once

namespace fetchq::worker {

// Registers the launcher as a static background worker (from _PG_init).
void register_launcher();

}  // namespace fetchq::worker
