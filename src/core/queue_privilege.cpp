#include "core/queue_privilege.hpp"

#include <array>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/name_list.hpp"

namespace fetchq::core {

namespace {

constexpr std::array<QueuePrivilege, 4> kPrivileges = {
    QueuePrivilege::kPush, QueuePrivilege::kPick, QueuePrivilege::kRead, QueuePrivilege::kManage};

PrivilegeMask mask_of_word(const std::string& word) {
    const std::string w = lower_trimmed(word);
    if (w == "all") return kAllPrivileges;
    for (QueuePrivilege p : kPrivileges)
        if (w == privilege_name(p)) return mask_of(p);
    throw Error(sqlstate::kInvalidParameterValue, "unrecognized queue privilege " + echo(word), {},
                "Use push, pick, read, manage or all.");
}

}  // namespace

std::string_view privilege_name(QueuePrivilege p) {
    switch (p) {
        case QueuePrivilege::kPush:
            return "push";
        case QueuePrivilege::kPick:
            return "pick";
        case QueuePrivilege::kRead:
            return "read";
        case QueuePrivilege::kManage:
            return "manage";
    }
    return "?";
}

PrivilegeMask parse_privileges(const std::vector<std::string>& words) {
    if (words.empty())
        throw Error(sqlstate::kInvalidParameterValue, "no queue privilege given", {},
                    "Use one or more of push, pick, read, manage, or all.");
    PrivilegeMask mask = 0;
    for (const std::string& word : words) mask |= mask_of_word(word);
    return mask;
}

std::vector<std::string> privilege_names(PrivilegeMask mask) {
    std::vector<std::string> names;
    for (QueuePrivilege p : kPrivileges)
        if (mask & mask_of(p)) names.emplace_back(privilege_name(p));
    return names;
}

}  // namespace fetchq::core
