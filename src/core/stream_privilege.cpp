#include "core/stream_privilege.hpp"

#include <array>

#include "core/echo.hpp"
#include "core/error.hpp"
#include "core/name_list.hpp"

namespace fetchq::core {

namespace {

constexpr std::array<StreamPrivilege, 2> kPrivileges = {StreamPrivilege::kAppend,
                                                        StreamPrivilege::kRead};

StreamPrivilegeMask mask_of_word(const std::string& word) {
    const std::string w = lower_trimmed(word);
    if (w == "all") return kAllStreamPrivileges;
    for (StreamPrivilege p : kPrivileges)
        if (w == privilege_name(p)) return mask_of(p);
    throw Error(sqlstate::kInvalidParameterValue, "unrecognized stream privilege " + echo(word), {},
                "Use append, read or all.");
}

}  // namespace

std::string_view privilege_name(StreamPrivilege p) {
    switch (p) {
        case StreamPrivilege::kAppend:
            return "append";
        case StreamPrivilege::kRead:
            return "read";
    }
    return "?";
}

StreamPrivilegeMask parse_stream_privileges(const std::vector<std::string>& words) {
    if (words.empty())
        throw Error(sqlstate::kInvalidParameterValue, "no stream privilege given", {},
                    "Use append, read, or all.");
    StreamPrivilegeMask mask = 0;
    for (const std::string& word : words) mask |= mask_of_word(word);
    return mask;
}

std::vector<std::string> stream_privilege_names(StreamPrivilegeMask mask) {
    std::vector<std::string> names;
    for (StreamPrivilege p : kPrivileges)
        if (mask & mask_of(p)) names.emplace_back(privilege_name(p));
    return names;
}

}  // namespace fetchq::core
