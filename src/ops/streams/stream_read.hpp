// What a consumer group has still to read of a key: the messages after its
// committed offset, read through the tables' primary keys without the
// executor (a read + commit cycle paid two executor starts per call in SPI).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct StreamMessage {
    int64_t offset;
    Datum payload;  // detoasted, in the memory context current at the call
    bool payload_null;
    TimestampTz appended_at;
};

// At most `limit` messages of the key after the group's committed offset, in
// offset order, on a snapshot taken now (as a statement would); the group is
// registered first (ensure_group, through SPI). The caller needs SELECT on
// fetchq.stream_messages and fetchq.stream_offsets.
std::vector<StreamMessage> read_messages(int32_t stream, const std::string& group,
                                         const std::string& key, int32_t limit);

}  // namespace fetchq::ops
