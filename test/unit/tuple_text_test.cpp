// The bulk document list of Fetchq 4's doc_push(queue, version, next_iteration, data).
#include "core/tuple_text.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "core/error.hpp"

namespace fetchq::core {
namespace {

std::vector<TupleDoc> Parse(std::string_view text) { return parse_tuple_text(text); }

TupleDoc One(std::string_view text) {
    std::vector<TupleDoc> docs = parse_tuple_text(text);
    EXPECT_EQ(docs.size(), 1u) << text;
    return docs.empty() ? TupleDoc{} : docs.front();
}

// Passes when parsing fails with 22P02 at 1-based `position`, and the detail
// mentions `expected`.
::testing::AssertionResult FailsAt(std::string_view text, std::size_t position,
                                   std::string_view expected) {
    try {
        parse_tuple_text(text);
    } catch (const Error& e) {
        const std::string at = "at character " + std::to_string(position) + ",";
        if (e.sqlstate() != sqlstate::kInvalidTextRepresentation)
            return ::testing::AssertionFailure() << "sqlstate " << e.sqlstate();
        if (std::string(e.what()) != "malformed document list for argument data")
            return ::testing::AssertionFailure() << "message " << e.what();
        if (e.detail().find(at) == std::string::npos ||
            e.detail().find(expected) == std::string::npos)
            return ::testing::AssertionFailure() << "detail: " << e.detail();
        if (e.hint().empty()) return ::testing::AssertionFailure() << "no hint";
        return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "other exception: " << e.what();
    }
    return ::testing::AssertionFailure() << "parsed without error";
}

// What the Node client (fetchq 4, doc.pushMany) sends once SQL has unquoted it.
TEST(TupleText, NodeClientFormat) {
    auto docs = Parse(R"(('a1', 0, '{"a":1}', {DATA}), ('a2', 1, '{}', {DATA}))");
    ASSERT_EQ(docs.size(), 2u);
    EXPECT_EQ(docs[0].subject, "a1");
    EXPECT_EQ(docs[0].priority, 0);
    EXPECT_EQ(docs[0].payload, R"({"a":1})");
    EXPECT_EQ(docs[1].subject, "a2");
    EXPECT_EQ(docs[1].priority, 1);
    EXPECT_EQ(docs[1].payload, "{}");
}

TEST(TupleText, NodeClientQuoteInPayload) {
    // The client doubles quotes inside JSON twice; SQL undoes one level.
    TupleDoc d = One(R"(('s', 0, '{"name":"it''s"}', {DATA}))");
    EXPECT_EQ(d.payload, R"({"name":"it's"})");
}

TEST(TupleText, ManyDocuments) {
    std::string text;
    for (int i = 0; i < 1000; ++i) {
        if (i) text += ", ";
        text += "('d" + std::to_string(i) + "', " + std::to_string(i % 7) + ", '{}', {DATA})";
    }
    auto docs = Parse(text);
    ASSERT_EQ(docs.size(), 1000u);
    EXPECT_EQ(docs[999].subject, "d999");
    EXPECT_EQ(docs[999].priority, 999 % 7);
}

TEST(TupleText, Whitespace) {
    EXPECT_EQ(Parse("('a',0,'{}',{DATA}),('b',0,'{}',{DATA})").size(), 2u);
    EXPECT_EQ(Parse(" \n\t( 'a' ,\r\n 0 , '{}' , {DATA} ) ,\n( 'b', 0, '{}', {DATA} ) \n").size(),
              2u);
}

TEST(TupleText, DoubledQuotes) {
    EXPECT_EQ(One("('it''s', 0, '{}', {DATA})").subject, "it's");
    EXPECT_EQ(One("('''', 0, '{}', {DATA})").subject, "'");
    EXPECT_EQ(One("('a''''b', 0, '{}', {DATA})").subject, "a''b");
    EXPECT_EQ(One("('', 0, '{}', {DATA})").subject, "");
}

TEST(TupleText, PlainStringsKeepBackslashes) {
    EXPECT_EQ(One(R"(('a\nb', 0, '{"p":"c:\\d"}', {DATA}))").subject, R"(a\nb)");
    EXPECT_EQ(One(R"(('a\nb', 0, '{"p":"c:\\d"}', {DATA}))").payload, R"({"p":"c:\\d"})");
    EXPECT_EQ(One(R"(('a\', 0, '{}', {DATA}))").subject, R"(a\)");
}

TEST(TupleText, SpecialCharactersPassThrough) {
    TupleDoc d =
        One("('caf\xc3\xa9 \xe2\x82\xac (x), {DATA}', 0, '{\"k\":\"\xf0\x9f\x98\x80\"}', {DATA})");
    EXPECT_EQ(d.subject, "caf\xc3\xa9 \xe2\x82\xac (x), {DATA}");
    EXPECT_EQ(d.payload, "{\"k\":\"\xf0\x9f\x98\x80\"}");
}

TEST(TupleText, EscapeStrings) {
    EXPECT_EQ(One(R"((E'a\nb', 0, '{}', {DATA}))").subject, "a\nb");
    EXPECT_EQ(One(R"((e'a\tb', 0, '{}', {DATA}))").subject, "a\tb");
    EXPECT_EQ(One(R"((E'\r\b\f', 0, '{}', {DATA}))").subject, "\r\b\f");
    EXPECT_EQ(One(R"((E'it\'s', 0, '{}', {DATA}))").subject, "it's");
    EXPECT_EQ(One(R"((E'it''s', 0, '{}', {DATA}))").subject, "it's");
    EXPECT_EQ(One(R"((E'a\\b', 0, '{}', {DATA}))").subject, R"(a\b)");
    EXPECT_EQ(One(R"((E'\q\"', 0, '{}', {DATA}))").subject, "q\"");
    EXPECT_EQ(One(R"(('s', 0, E'{"a":"\\n"}', {DATA}))").payload, R"({"a":"\n"})");
}

TEST(TupleText, EscapeStringsNumeric) {
    EXPECT_EQ(One(R"((E'\101\x42\x4a', 0, '{}', {DATA}))").subject, "ABJ");
    EXPECT_EQ(One(R"((E'\1010', 0, '{}', {DATA}))").subject, "A0");  // at most 3 octal digits
    EXPECT_EQ(One(R"((E'\x414', 0, '{}', {DATA}))").subject, "A4");  // at most 2 hex digits
    EXPECT_EQ(One(R"((E'\xg', 0, '{}', {DATA}))").subject, "xg");    // not a hex escape
    EXPECT_EQ(One(R"((E'caf\xc3\xa9', 0, '{}', {DATA}))").subject, "caf\xc3\xa9");
    EXPECT_EQ(One(R"((E'caf\303\251', 0, '{}', {DATA}))").subject, "caf\xc3\xa9");
    EXPECT_EQ(One(R"((E'caf\u00e9', 0, '{}', {DATA}))").subject, "caf\xc3\xa9");
    EXPECT_EQ(One(R"((E'\u20AC', 0, '{}', {DATA}))").subject, "\xe2\x82\xac");
    EXPECT_EQ(One(R"((E'\U0001F600', 0, '{}', {DATA}))").subject, "\xf0\x9f\x98\x80");
    EXPECT_EQ(One(R"((E'\ud83d\ude00', 0, '{}', {DATA}))").subject, "\xf0\x9f\x98\x80");
    EXPECT_EQ(One(R"((E'\u0041', 0, '{}', {DATA}))").subject, "A");
}

TEST(TupleText, EscapeStringsInvalid) {
    EXPECT_TRUE(FailsAt(R"((E'a\0b', 0, '{}', {DATA}))", 5, "non-zero byte"));
    EXPECT_TRUE(FailsAt(R"((E'a\x00', 0, '{}', {DATA}))", 5, "non-zero byte"));
    EXPECT_TRUE(FailsAt(R"((E'a\400', 0, '{}', {DATA}))", 5, "non-zero byte"));
    EXPECT_TRUE(FailsAt(R"((E'a\xff', 0, '{}', {DATA}))", 3, "valid UTF-8"));
    EXPECT_TRUE(FailsAt(R"((E'\xc3', 0, '{}', {DATA}))", 3, "valid UTF-8"));
    EXPECT_TRUE(FailsAt(R"((E'\xc0\x80', 0, '{}', {DATA}))", 3, "valid UTF-8"));  // overlong
    EXPECT_TRUE(FailsAt(R"((E'\xed\xa0\x80', 0, '{}', {DATA}))", 3, "valid UTF-8"));
    EXPECT_TRUE(FailsAt(R"(('s', 0, E'\xff', {DATA}))", 11, "payload valid UTF-8"));
    EXPECT_TRUE(FailsAt(R"((E'\u12', 0, '{}', {DATA}))", 4, "Unicode escape"));
    EXPECT_TRUE(FailsAt(R"((E'\u', 0, '{}', {DATA}))", 4, "Unicode escape"));
    EXPECT_TRUE(FailsAt(R"((E'\U0001F60', 0, '{}', {DATA}))", 4, "Unicode escape"));
    EXPECT_TRUE(FailsAt(R"((E'\u0000', 0, '{}', {DATA}))", 4, "valid, non-zero code point"));
    EXPECT_TRUE(FailsAt(R"((E'\U00110000', 0, '{}', {DATA}))", 4, "valid, non-zero code point"));
    EXPECT_TRUE(FailsAt(R"((E'\ude00', 0, '{}', {DATA}))", 4, "valid, non-zero code point"));
    EXPECT_TRUE(FailsAt(R"((E'\ud83dx', 0, '{}', {DATA}))", 4, "low surrogate"));
    EXPECT_TRUE(FailsAt(R"((E'\ud83d\u0041', 0, '{}', {DATA}))", 10, "low surrogate"));
    EXPECT_TRUE(FailsAt(R"((E'abc\)", 8, "a character after the backslash"));
}

TEST(TupleText, NullPayload) {
    EXPECT_FALSE(One("('a', 0, NULL, {DATA})").payload.has_value());
    EXPECT_FALSE(One("('a', 0, null, {DATA})").payload.has_value());
    EXPECT_FALSE(One("('a', 0, Null, {DATA})").payload.has_value());
    // A quoted 'NULL' is text, not NULL.
    EXPECT_EQ(One("('a', 0, 'NULL', {DATA})").payload, "NULL");
}

TEST(TupleText, Priorities) {
    EXPECT_EQ(One("('a', -5, '{}', {DATA})").priority, -5);
    EXPECT_EQ(One("('a', +7, '{}', {DATA})").priority, 7);
    EXPECT_EQ(One("('a', 007, '{}', {DATA})").priority, 7);
    EXPECT_EQ(One("('a', 2147483647, '{}', {DATA})").priority, INT32_MAX);
    EXPECT_EQ(One("('a', -2147483648, '{}', {DATA})").priority, INT32_MIN);
}

TEST(TupleText, MalformedLists) {
    EXPECT_TRUE(FailsAt("", 1, "a tuple"));
    EXPECT_TRUE(FailsAt("   ", 4, "a tuple"));
    EXPECT_TRUE(FailsAt("x", 1, "\"(\" to open a tuple"));
    EXPECT_TRUE(FailsAt("'a', 0, '{}', {DATA}", 1, "\"(\" to open a tuple"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', {DATA}) x", 24, "\",\" between tuples"));
    EXPECT_TRUE(
        FailsAt("('a', 0, '{}', {DATA}) ('b', 0, '{}', {DATA})", 24, "\",\" between tuples"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', {DATA}),", 24, "\"(\" to open a tuple"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', {DATA}), ", 25, "the end of the text"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', {DATA}); DROP TABLE x; --", 23, "between tuples"));
}

TEST(TupleText, MalformedTuples) {
    EXPECT_TRUE(FailsAt("(", 2, "a quoted subject"));
    EXPECT_TRUE(FailsAt("(a, 0, '{}', {DATA})", 2, "a quoted subject"));
    EXPECT_TRUE(FailsAt("(\"a\", 0, '{}', {DATA})", 2, "a quoted subject"));
    EXPECT_TRUE(FailsAt("(NULL, 0, '{}', {DATA})", 2, "a quoted subject"));
    EXPECT_TRUE(FailsAt("('abc", 6, "the closing quote of the subject"));
    EXPECT_TRUE(FailsAt("('a'", 5, "\",\" between values"));
    EXPECT_TRUE(FailsAt("('a' 0, '{}', {DATA})", 6, "\",\" between values"));
    EXPECT_TRUE(FailsAt("('a', x, '{}', {DATA})", 7, "an integer priority"));
    EXPECT_TRUE(FailsAt("('a', '1', '{}', {DATA})", 7, "an integer priority"));
    EXPECT_TRUE(FailsAt("('a', -, '{}', {DATA})", 8, "an integer priority"));
    EXPECT_TRUE(FailsAt("('a', 1.5, '{}', {DATA})", 8, "\",\" between values"));
    EXPECT_TRUE(FailsAt("('a', 2147483648, '{}', {DATA})", 7, "within the integer range"));
    EXPECT_TRUE(FailsAt("('a', -2147483649, '{}', {DATA})", 7, "within the integer range"));
    EXPECT_TRUE(
        FailsAt("('a', 99999999999999999999999, '{}', {DATA})", 7, "within the integer range"));
    EXPECT_TRUE(FailsAt("('a', 0, x, {DATA})", 10, "a quoted payload"));
    EXPECT_TRUE(FailsAt("('a', 0, nul, {DATA})", 10, "a quoted payload"));
    EXPECT_TRUE(FailsAt("('a', 0, {DATA})", 10, "a quoted payload"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}", 13, "the closing quote of the payload"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}'", 14, "\",\" between values"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', DATA)", 16, "the {DATA} placeholder"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', {data})", 16, "the {DATA} placeholder"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', {DATA}", 22, "\")\" to close a tuple"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}', {DATA}, 5)", 22, "\")\" to close a tuple"));
    EXPECT_TRUE(FailsAt("('a', 0, '{}')", 14, "\",\" between values"));
}

TEST(TupleText, ErrorPositionCountsCharacters) {
    // "é" and "€" are one character each (two and three bytes): x is the 8th, the 11th byte.
    EXPECT_TRUE(FailsAt("('\xc3\xa9\xe2\x82\xac', x, '{}', {DATA})", 8, "an integer priority"));
}

TEST(TupleText, ErrorExcerptKeepsWholeCharacters) {
    try {
        // The 20-byte excerpt would end inside the second byte of "é".
        parse_tuple_text("('a', 0, '{}', {DATA}) 1234567890123456789\xc3\xa9");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.detail(),
                  "Expected \",\" between tuples at character 24, found \"1234567890123456789\".");
    }
}

TEST(TupleText, ErrorShowsWhatFollows) {
    try {
        parse_tuple_text("('a', zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz, '{}', {DATA})");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.detail(),
                  "Expected an integer priority at character 7, found \"zzzzzzzzzzzzzzzzzzzz\".");
    }
}

}  // namespace
}  // namespace fetchq::core
