#include "core/tuple_text.hpp"

#include <cerrno>
#include <cstdlib>

#include "core/error.hpp"

namespace fetchq::core {
namespace {

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    std::vector<TupleDoc> parse() {
        std::vector<TupleDoc> docs;
        skip_spaces();
        if (at_end()) fail("the document list is empty");
        while (true) {
            docs.push_back(tuple());
            skip_spaces();
            if (at_end()) break;
            expect(',', "\",\" between tuples");
            skip_spaces();
        }
        return docs;
    }

private:
    TupleDoc tuple() {
        TupleDoc doc;
        expect('(', "\"(\" to open a tuple");
        skip_spaces();
        doc.subject = string_literal("subject");
        comma();
        doc.priority = integer();
        comma();
        doc.payload = nullable_string("payload");
        comma();
        placeholder();
        skip_spaces();
        expect(')', "\")\" to close a tuple of (subject, priority, payload, {DATA})");
        return doc;
    }

    void comma() {
        skip_spaces();
        expect(',', "\",\" between values");
        skip_spaces();
    }

    std::string string_literal(const char* what) {
        bool escapes = false;
        if (!at_end() && (peek() == 'E' || peek() == 'e') && pos_ + 1 < text_.size() &&
            text_[pos_ + 1] == '\'') {
            escapes = true;
            ++pos_;
        }
        if (at_end() || peek() != '\'') fail(std::string("a quoted ") + what);
        ++pos_;
        std::string out;
        while (true) {
            if (at_end()) fail(std::string("the closing quote of the ") + what);
            char c = text_[pos_++];
            if (c == '\'') {
                if (!at_end() && peek() == '\'') {
                    out.push_back('\'');
                    ++pos_;
                    continue;
                }
                return out;
            }
            if (c == '\\' && escapes) {
                if (at_end()) fail("a character after the backslash");
                char e = text_[pos_++];
                switch (e) {
                    case 'n': out.push_back('\n'); break;
                    case 't': out.push_back('\t'); break;
                    case 'r': out.push_back('\r'); break;
                    case 'b': out.push_back('\b'); break;
                    case 'f': out.push_back('\f'); break;
                    default: out.push_back(e); break;
                }
                continue;
            }
            out.push_back(c);
        }
    }

    std::optional<std::string> nullable_string(const char* what) {
        if (keyword("null")) return std::nullopt;
        return string_literal(what);
    }

    int32_t integer() {
        std::size_t start = pos_;
        if (!at_end() && (peek() == '-' || peek() == '+')) ++pos_;
        std::size_t digits = pos_;
        while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
        if (pos_ == digits) fail("an integer priority");
        std::string number(text_.substr(start, pos_ - start));
        errno = 0;
        long long v = std::strtoll(number.c_str(), nullptr, 10);
        if (errno != 0 || v < INT32_MIN || v > INT32_MAX) {
            pos_ = start;
            fail("a priority within the integer range");
        }
        return static_cast<int32_t>(v);
    }

    void placeholder() {
        if (text_.substr(pos_, 6) != "{DATA}") fail("the {DATA} placeholder");
        pos_ += 6;
    }

    bool keyword(std::string_view word) {
        if (text_.size() - pos_ < word.size()) return false;
        for (std::size_t k = 0; k < word.size(); ++k) {
            char c = text_[pos_ + k];
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
            if (c != word[k]) return false;
        }
        pos_ += word.size();
        return true;
    }

    void expect(char c, const char* what) {
        if (at_end() || peek() != c) fail(what);
        ++pos_;
    }

    void skip_spaces() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++pos_;
    }

    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return text_[pos_]; }

    [[noreturn]] void fail(const std::string& expected) const {
        std::string near = at_end() ? "the end of the text"
                                    : "\"" + std::string(text_.substr(pos_, 20)) + "\"";
        throw Error(sqlstate::kInvalidTextRepresentation,
                    "malformed document list for argument data",
                    "Expected " + expected + " at character " + std::to_string(pos_ + 1) +
                        ", found " + near + ".",
                    "Write each document as ('subject', priority, 'json payload', {DATA}), "
                    "separated by commas.");
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace

std::vector<TupleDoc> parse_tuple_text(std::string_view text) { return Parser(text).parse(); }

}  // namespace fetchq::core
