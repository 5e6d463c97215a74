// The privileges a role can hold on one stream (stream_grant, stream_revoke):
// append and read, as bits of a mask, and their names. A stream's owner holds
// both, and alone changes, drops and grants it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fetchq::core {

enum class StreamPrivilege : uint8_t {
    kAppend = 1,  // stream_append, the appends of stream_set
    kRead = 2,    // stream_read, stream_get, stream_commit, stream_claim, groups
};

using StreamPrivilegeMask = uint8_t;
inline constexpr StreamPrivilegeMask kAllStreamPrivileges = 3;

constexpr StreamPrivilegeMask mask_of(StreamPrivilege p) {
    return static_cast<StreamPrivilegeMask>(p);
}

// "append" or "read".
std::string_view privilege_name(StreamPrivilege p);

// The mask of a list of words (append, read or all; case and surrounding
// spaces ignored); raises 22023 for an unknown word or an empty list.
StreamPrivilegeMask parse_stream_privileges(const std::vector<std::string>& words);

// The names of the privileges in `mask`, in the order append, read.
std::vector<std::string> stream_privilege_names(StreamPrivilegeMask mask);

}  // namespace fetchq::core
