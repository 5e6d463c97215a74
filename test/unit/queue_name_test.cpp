// Queue names become identifiers: everything outside [a-z0-9_]{1,40} is refused.
#include "core/queue_name.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace fetchq::core {
namespace {

TEST(QueueName, AcceptsLowercaseDigitsUnderscore) {
    for (const char* name : {"a", "q", "queue_1", "0", "_", "__", "abc_def_123", "9lives"})
        EXPECT_EQ(queue_name_problem(name), "") << name;
    EXPECT_NO_THROW(check_queue_name("jobs"));
}

TEST(QueueName, AcceptsExactlyFortyCharacters) {
    const std::string name(kMaxQueueNameLength, 'a');
    EXPECT_EQ(queue_name_problem(name), "");
    EXPECT_NO_THROW(check_queue_name(name));
}

TEST(QueueName, RejectsEmpty) { EXPECT_EQ(queue_name_problem(""), "The name is empty."); }

TEST(QueueName, RejectsTooLong) {
    EXPECT_EQ(queue_name_problem(std::string(41, 'a')),
              "The name has 41 characters; at most 40 are allowed.");
    // Length is checked first: a long name with a bad character reports its length.
    EXPECT_EQ(queue_name_problem(std::string(50, 'A')),
              "The name has 50 characters; at most 40 are allowed.");
    // Characters, not bytes: 30 two-byte letters (60 bytes) are not too long,
    // they are not allowed; 41 of them are too long.
    std::string accents;
    for (int i = 0; i < 30; ++i) accents += "\xc3\xa9";
    EXPECT_EQ(queue_name_problem(accents),
              "The name contains a non-ASCII character at position 1.");
    for (int i = 0; i < 11; ++i) accents += "\xc3\xa9";
    EXPECT_EQ(queue_name_problem(accents), "The name has 41 characters; at most 40 are allowed.");
}

TEST(QueueName, RejectsUppercase) {
    EXPECT_EQ(queue_name_problem("Queue"),
              "The name contains the uppercase letter \"Q\" at position 1.");
    EXPECT_EQ(queue_name_problem("jobZ"),
              "The name contains the uppercase letter \"Z\" at position 4.");
}

TEST(QueueName, RejectsSymbols) {
    EXPECT_EQ(queue_name_problem("a-b"), "The name contains \"-\" at position 2.");
    EXPECT_EQ(queue_name_problem("a b"), "The name contains \" \" at position 2.");
    EXPECT_EQ(queue_name_problem("q\""), "The name contains \"\"\" at position 2.");
    for (const char* name : {"a.b", "a$", "a'b", "a;b", "*", "a/b", "a\\b", "x%", "a(b)", "a,b"})
        EXPECT_NE(queue_name_problem(name), "") << name;
}

TEST(QueueName, RejectsNonAscii) {
    EXPECT_EQ(queue_name_problem("caf\xc3\xa9"),
              "The name contains a non-ASCII character at position 4.");
    EXPECT_EQ(queue_name_problem("\xe2\x82\xac"),
              "The name contains a non-ASCII character at position 1.");
}

TEST(QueueName, RejectsControlCharacters) {
    EXPECT_EQ(queue_name_problem("a\tb"), "The name contains a control character at position 2.");
    EXPECT_EQ(queue_name_problem(std::string_view("a\0b", 3)),
              "The name contains a control character at position 2.");
    EXPECT_EQ(queue_name_problem("a\x7f"), "The name contains a control character at position 2.");
}

TEST(QueueName, CheckThrowsInvalidNameNamingTheArgument) {
    try {
        check_queue_name("Bad-Name", "target");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), sqlstate::kInvalidName);
        EXPECT_STREQ(e.what(), "invalid queue name \"Bad-Name\" for argument target");
        EXPECT_EQ(e.detail(), "The name contains the uppercase letter \"B\" at position 1.");
        EXPECT_NE(e.hint(), "");
    }
}

TEST(QueueName, CheckDefaultsToArgumentQueue) {
    try {
        check_queue_name("");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "invalid queue name \"\" for argument queue");
        EXPECT_EQ(e.detail(), "The name is empty.");
    }
}

TEST(QueueName, TableNames) {
    EXPECT_EQ(docs_table("jobs"), "jobs__docs");
    EXPECT_EQ(logs_table("jobs"), "jobs__logs");
    EXPECT_EQ(metrics_table("jobs"), "jobs__metrics");
}

TEST(QueueName, TemporaryNames) {
    unsigned char bytes[kTemporaryNameBytes] = {};
    EXPECT_EQ(temporary_queue_name(bytes), "tmp_00000000000000000000000000000000");
    for (std::size_t i = 0; i < kTemporaryNameBytes; ++i)
        bytes[i] = static_cast<unsigned char>(i * 17 + 0x0f);
    const std::string name = temporary_queue_name(bytes);
    EXPECT_EQ(name, "tmp_0f2031425364758697a8b9cadbecfd0e");
    EXPECT_EQ(name.size(), 36u);
    EXPECT_LE(name.size(), kMaxQueueNameLength);
    EXPECT_EQ(queue_name_problem(name), "");
    bytes[15] = 0xff;
    EXPECT_EQ(temporary_queue_name(bytes).substr(32), "fdff");
}

}  // namespace
}  // namespace fetchq::core
