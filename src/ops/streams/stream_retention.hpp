// Stream retention, run by the scheduler: deletes, in batches, the messages
// every group of a stream has committed (a group that never committed a key
// holds all of its messages; a stream without groups keeps everything), and
// with the stream's max_age (stream_set_max_age) every message older than
// it. Needs SPI.
#pragma once

#include <cstdint>

namespace fetchq::ops {

// At most `batch` messages per stream; returns how many went.
int64_t retain_streams(int32_t batch);

// The groups of streams with a group_max_idle (stream_set_group_max_idle)
// that committed nothing, were registered and held no live lease for that
// long, dropped with their offsets and leases; returns how many groups.
int64_t expire_idle_groups();

// The rows of streams that were dropped while a commit or a claim of theirs
// was under way (the tables have no foreign keys); returns how many.
int64_t remove_stream_orphans();

}  // namespace fetchq::ops
