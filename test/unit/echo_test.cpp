// Values echoed in error messages are capped at 64 bytes, cut between UTF-8
// characters, with the total size after.
#include "core/echo.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fetchq::core {
namespace {

TEST(Echo, ShortValuesWhole) {
    EXPECT_EQ(echo(""), "\"\"");
    EXPECT_EQ(echo("5 minutes"), "\"5 minutes\"");
    EXPECT_EQ(echo_unquoted("from, to"), "from, to");
    const std::string limit(kEchoLimit, 'a');
    EXPECT_EQ(echo(limit), "\"" + limit + "\"");
}

TEST(Echo, LongValuesCappedWithTheirSize) {
    const std::string head(kEchoLimit, 'a');
    EXPECT_EQ(echo(head + "b"), "\"" + head + "...\" (65 bytes)");
    EXPECT_EQ(echo_unquoted(head + "b"), head + "... (65 bytes)");
    const std::string huge(10 * 1024 * 1024, 'x');
    const std::string shown = echo(huge);
    EXPECT_EQ(shown, "\"" + std::string(kEchoLimit, 'x') + "...\" (10485760 bytes)");
    EXPECT_LT(shown.size(), 100u);
}

TEST(Echo, CutsBetweenUtf8Characters) {
    // "é" (2 bytes) straddles the limit: it is left out whole.
    const std::string a63(kEchoLimit - 1, 'a');
    EXPECT_EQ(echo(a63 + "\xC3\xA9" + "zz"), "\"" + a63 + "...\" (67 bytes)");
    // "€" (3 bytes) x 30: 21 of them fit in 64 bytes (63), the 22nd is cut off.
    std::string euros, euros21;
    for (int i = 0; i < 30; ++i) euros += "\xE2\x82\xAC";
    for (int i = 0; i < 21; ++i) euros21 += "\xE2\x82\xAC";
    EXPECT_EQ(echo(euros), "\"" + euros21 + "...\" (90 bytes)");
    // 4-byte characters ending exactly at the limit are kept.
    std::string faces, faces16;
    for (int i = 0; i < 20; ++i) faces += "\xF0\x9F\x98\x80";
    for (int i = 0; i < 16; ++i) faces16 += "\xF0\x9F\x98\x80";
    EXPECT_EQ(echo(faces), "\"" + faces16 + "...\" (80 bytes)");
}

}  // namespace
}  // namespace fetchq::core
