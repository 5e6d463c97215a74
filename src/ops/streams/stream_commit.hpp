// A consumer group's committed offset moved forward without the executor:
// the key's last offset and the group's row found through the primary keys,
// the row updated in place (a read + commit cycle paid a second executor
// start for the INSERT ... ON CONFLICT it replaces). Waits for a concurrent
// commit of the same row as UPDATE does; in REPEATABLE READ a row committed
// by another transaction since the snapshot is a serialization failure.
// The first commit of a group on a key (no row yet), and a table changed
// from what the extension creates, are left to SQL (ops/streams/streams.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace fetchq::ops {

struct CommitInPlace {
    enum class Outcome {
        kMoved,   // committed = offset now
        kKept,    // the row had `committed` >= offset: unchanged
        kBeyond,  // offset > the key's last offset, `last`
        kUseSql,  // no row yet, or not a table this can update
    };
    Outcome outcome;
    int64_t committed;
    int64_t last;
};

// For offset > 0; the caller holds an SPI connection (its memory is used).
CommitInPlace commit_in_place(int32_t stream, const std::string& group, const std::string& key,
                              int64_t offset);

}  // namespace fetchq::ops
