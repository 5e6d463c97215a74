// The tables and indexes of one queue.
#pragma once

#include <string>
#include <string_view>

namespace fetchq::ops {

// Creates <queue>__docs, __logs, __metrics and the queue's indexes;
// unlogged for temporary queues.
void create_queue_tables(std::string_view queue, bool unlogged = false);

// The queue's indexes: pick (pending documents of every version), planned,
// active, expiry, session (session-bound picks), and created_at on __logs and __metrics for
// retention. None depends on max_attempts or current_version, so changing those never needs a
// rebuild, and dropping a version has no index to drop.
// Creates the missing ones; returns how many it created.
int create_queue_indexes(std::string_view queue);
// Drops the ones that exist; returns how many it dropped.
int drop_queue_indexes(std::string_view queue);

void drop_queue_tables(std::string_view queue);

// The name (unquoted, in fetchq_data) of the index doc_pick walks.
std::string pick_index_name(std::string_view queue);

}  // namespace fetchq::ops
