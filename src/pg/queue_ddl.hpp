// The tables and indexes of one queue.
#pragma once

#include <string_view>

namespace fetchq::pg {

// Creates <queue>__docs, __logs, __metrics and the docs indexes.
void create_queue_tables(std::string_view queue);
// Creates the docs indexes that are missing; returns nothing to rebuild:
// no index depends on max_attempts or current_version.
void create_queue_indexes(std::string_view queue);
void drop_queue_indexes(std::string_view queue);
void drop_queue_tables(std::string_view queue);

}  // namespace fetchq::pg
