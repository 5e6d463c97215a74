// Stream privileges: append, read (and "all") to a mask and back.
#include "core/stream_privilege.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace fetchq::core {
namespace {

TEST(StreamPrivilege, WordsToMask) {
    EXPECT_EQ(parse_stream_privileges({"append"}), mask_of(StreamPrivilege::kAppend));
    EXPECT_EQ(parse_stream_privileges({" READ "}), mask_of(StreamPrivilege::kRead));
    EXPECT_EQ(parse_stream_privileges({"all"}), kAllStreamPrivileges);
    EXPECT_EQ(parse_stream_privileges({"read", "Append"}), kAllStreamPrivileges);
}

TEST(StreamPrivilege, UnknownOrNoWordRefused) {
    try {
        parse_stream_privileges({"read", "push"});
        FAIL() << "push accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "22023");
        EXPECT_NE(std::string(e.what()).find("\"push\""), std::string::npos);
    }
    EXPECT_THROW(parse_stream_privileges({}), Error);
    EXPECT_THROW(parse_stream_privileges({" "}), Error);
}

TEST(StreamPrivilege, MaskToNamesInFixedOrder) {
    EXPECT_EQ(stream_privilege_names(kAllStreamPrivileges),
              (std::vector<std::string>{"append", "read"}));
    EXPECT_EQ(stream_privilege_names(mask_of(StreamPrivilege::kRead)),
              (std::vector<std::string>{"read"}));
    EXPECT_TRUE(stream_privilege_names(0).empty());
}

}  // namespace
}  // namespace fetchq::core
