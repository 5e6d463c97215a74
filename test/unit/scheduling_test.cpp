// Retry delays and the fetchq.databases list of the background workers.
#include <gtest/gtest.h>

#include "core/backoff.hpp"
#include "core/name_list.hpp"

using fetchq::core::backoff_ms;
using fetchq::core::name_allowed;
using fetchq::core::split_name_list;

TEST(Backoff, DoublesFromTheBaseUpToTheCap) {
    EXPECT_EQ(backoff_ms(0), 0);
    EXPECT_EQ(backoff_ms(1), 1000);
    EXPECT_EQ(backoff_ms(2), 2000);
    EXPECT_EQ(backoff_ms(3), 4000);
    EXPECT_EQ(backoff_ms(9), 256000);
    EXPECT_EQ(backoff_ms(10), 300000);
    EXPECT_EQ(backoff_ms(1000), 300000);  // no overflow, no tight loop
    EXPECT_EQ(backoff_ms(3, 100, 250), 250);
}

TEST(NameList, SplitsTrimsAndDropsEmptyItems) {
    EXPECT_EQ(split_name_list(""), std::vector<std::string>{});
    EXPECT_EQ(split_name_list(" , ,"), std::vector<std::string>{});
    EXPECT_EQ(split_name_list("app"), std::vector<std::string>{"app"});
    EXPECT_EQ(split_name_list(" app ,\tjobs,, other db "),
              (std::vector<std::string>{"app", "jobs", "other db"}));
}

TEST(NameList, EmptyListAllowsEverything) {
    EXPECT_TRUE(name_allowed({}, "anything"));
    EXPECT_TRUE(name_allowed({"app", "jobs"}, "jobs"));
    EXPECT_FALSE(name_allowed({"app", "jobs"}, "job"));
    EXPECT_FALSE(name_allowed({"app"}, "App"));  // database names are case-sensitive
}
