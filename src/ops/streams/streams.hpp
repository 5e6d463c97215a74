// Streams: an ordered log per key (src/schema/04_streams.sql). Offsets are
// 1, 2, 3 ... per key, with no gap and in commit order: an append holds its
// key (ops/streams/stream_locks.hpp) until its transaction ends and numbers its
// message after the latest committed one, so the transaction that commits
// first has the lower offset, and no reader ever sees offset n + 1 while n
// is still to come. Readers and commits take no lock an append holds.
//
// Consumer groups exist from their first use; a group's committed offset of
// a key only moves forward. Every function here needs SPI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

struct CreatedStream {
    bool created = false;
    int32_t id = 0;
};
// Raises 42501 unless the caller may create streams (CREATE on schema
// fetchq_data); the caller becomes the stream's owner.
CreatedStream create_stream(const std::string& name);
// Raises 42704 for a missing stream, 42501 unless the caller has the
// privileges of its owner.
void drop_stream(const std::string& name);
// Retention also removes messages older than max_age (nullptr: off); the
// same rights as drop_stream.
void set_stream_max_age(const std::string& name, const Interval* max_age);

// The stream's id; raises 42704 when it does not exist.
int32_t stream_id(const std::string& name);
// The same, for reads, commits, claims and groups: raises 42501 unless the
// caller holds read on the stream (ops/streams/stream_access.hpp).
int32_t stream_for_read(const std::string& name);
// The same, for appends: raises 42501 unless the caller holds append; the
// stream is locked against its drop until this transaction ends
// (ops/streams/stream_locks.hpp), and an append that waited for a drop
// raises 42704.
int32_t stream_for_append(const std::string& name);

// Raises 22023 / 22001 for an empty key or one over 255 bytes.
void check_stream_key(const std::string& key);
// Raises 22023 / 22001 for an empty group name or one over 40 characters.
void check_group_name(const std::string& group);

// The functions below take a stream of stream_for_read or stream_for_append:
// the caller's right is checked, and they read and write the tables of
// streams as the catalog's owner.

// Registers the group; true when it was not registered yet.
bool register_group(int32_t stream, const std::string& group);
// The same, once per backend and group.
void ensure_group(int32_t stream, const std::string& group);

// Appends a message to the key of a stream of stream_for_append; returns
// its offset.
int64_t append_message(int32_t stream, const std::string& key, Datum payload, bool payload_null);

// Moves the group's committed offset of the key to `offset` if that is
// forward (an offset at or below it is ignored); raises 22023 for an offset
// beyond the key's last message. Returns the committed offset after.
int64_t commit_offset(int32_t stream, const std::string& group, const std::string& key,
                      int64_t offset);

}  // namespace fetchq::ops
