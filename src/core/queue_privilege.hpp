// The privileges a role can hold on one queue (queue_grant, queue_revoke):
// push, pick, read and manage, as bits of a mask, and their names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fetchq::core {

enum class QueuePrivilege : uint8_t {
    kPush = 1,    // doc_push and the other ways in, a route's delivery
    kPick = 2,    // doc_pick, doc_take and the outcomes of a picked document
    kRead = 4,    // doc_peek, queue_top, queue_status, stats, metrics, logs
    kManage = 8,  // settings, truncate, drop, counters, routes out, queue_grant
};

using PrivilegeMask = uint8_t;
inline constexpr PrivilegeMask kAllPrivileges = 15;

constexpr PrivilegeMask mask_of(QueuePrivilege p) { return static_cast<PrivilegeMask>(p); }

// "push", "pick", "read" or "manage".
std::string_view privilege_name(QueuePrivilege p);

// The mask of a list of words (each one of the four names, or "all"; case
// and surrounding spaces ignored); raises 22023 for an unknown word or an
// empty list.
PrivilegeMask parse_privileges(const std::vector<std::string>& words);

// The names of the privileges in `mask`, in the order push, pick, read,
// manage.
std::vector<std::string> privilege_names(PrivilegeMask mask);

}  // namespace fetchq::core
