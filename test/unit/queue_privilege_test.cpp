// Queue privileges: the four words (and "all") to a mask and back.
#include "core/queue_privilege.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace fetchq::core {
namespace {

TEST(QueuePrivilege, WordsToMask) {
    EXPECT_EQ(parse_privileges({"push"}), mask_of(QueuePrivilege::kPush));
    EXPECT_EQ(parse_privileges({"pick", " READ "}),
              mask_of(QueuePrivilege::kPick) | mask_of(QueuePrivilege::kRead));
    EXPECT_EQ(parse_privileges({"Manage", "manage"}), mask_of(QueuePrivilege::kManage));
    EXPECT_EQ(parse_privileges({"all"}), kAllPrivileges);
    EXPECT_EQ(parse_privileges({"push", "pick", "read", "manage"}), kAllPrivileges);
}

TEST(QueuePrivilege, UnknownOrNoWordRefused) {
    try {
        parse_privileges({"push", "delete"});
        FAIL() << "delete accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "22023");
        EXPECT_NE(std::string(e.what()).find("\"delete\""), std::string::npos);
    }
    EXPECT_THROW(parse_privileges({}), Error);
    EXPECT_THROW(parse_privileges({""}), Error);
}

TEST(QueuePrivilege, MaskToNamesInFixedOrder) {
    EXPECT_EQ(privilege_names(kAllPrivileges),
              (std::vector<std::string>{"push", "pick", "read", "manage"}));
    EXPECT_EQ(privilege_names(mask_of(QueuePrivilege::kManage) | mask_of(QueuePrivilege::kPush)),
              (std::vector<std::string>{"push", "manage"}));
    EXPECT_TRUE(privilege_names(0).empty());
}

}  // namespace
}  // namespace fetchq::core
