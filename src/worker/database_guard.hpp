// DROP DATABASE, ALTER DATABASE ... RENAME and CREATE DATABASE ... TEMPLATE
// need the database to themselves: a ProcessUtility hook asks our scheduler
// there to leave first and keeps it away for a while. The same hook tells the
// pick starts of a TRUNCATE of a queue's documents (ops::note_truncate).
#pragma once

namespace fetchq::worker {

void install_database_guard();

}  // namespace fetchq::worker
