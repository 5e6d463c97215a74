// The consumer groups of a stream (fetchq.stream_groups): registered by
// their first use or by stream_group_create, dropped by stream_group_drop
// or, idle, by the scheduler (ops/streams/stream_retention.hpp). A
// registered group holds back retention until it commits. Needs SPI.
#pragma once

#include <cstdint>
#include <string>

namespace fetchq::ops {

// Raises 22023 for an empty group name or one over 40 characters.
void check_group_name(const std::string& group);

// Registers the group for the caller (recorded as created_by); true when it
// was not registered yet.
bool register_group(int32_t stream, const std::string& group);
// The same, once per backend and group.
void ensure_group(int32_t stream, const std::string& group);

// Drops the group of the stream with its offsets and leases; raises 42704
// when it does not exist, 42501 unless the caller has the privileges of the
// stream's owner or of the role that registered the group.
void drop_group(const std::string& stream, const std::string& group);

}  // namespace fetchq::ops
