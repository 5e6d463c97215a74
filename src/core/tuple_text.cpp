#include "core/tuple_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "core/error.hpp"

namespace fetchq::core {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Well-formed UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto b = static_cast<unsigned char>(s[i]);
        int len = 0;
        uint32_t min = 0;
        if (b < 0x80) {
            ++i;
            continue;
        } else if (b >= 0xC2 && b <= 0xDF) {
            len = 2, min = 0x80;
        } else if (b >= 0xE0 && b <= 0xEF) {
            len = 3, min = 0x800;
        } else if (b >= 0xF0 && b <= 0xF4) {
            len = 4, min = 0x10000;
        } else {
            return false;
        }
        if (i + static_cast<std::size_t>(len) > s.size()) return false;
        uint32_t cp = b & (0x7F >> len);
        for (int k = 1; k < len; ++k) {
            const auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
            if ((c & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (c & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += static_cast<std::size_t>(len);
    }
    return true;
}

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text) {}

    std::vector<TupleDoc> parse() {
        std::vector<TupleDoc> docs;
        skip_spaces();
        if (at_end()) fail("a tuple ('subject', priority, 'payload', {DATA})");
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
        const std::size_t open = pos_++;
        std::string out;
        bool raw_bytes = false;  // an octal or hex escape wrote a byte >= 0x80
        while (true) {
            if (at_end()) fail(std::string("the closing quote of the ") + what);
            char c = text_[pos_++];
            if (c == '\'') {
                if (!at_end() && peek() == '\'') {
                    out.push_back('\'');
                    ++pos_;
                    continue;
                }
                break;
            }
            if (c == '\\' && escapes) {
                raw_bytes |= escape(out);
                continue;
            }
            out.push_back(c);
        }
        if (raw_bytes && !valid_utf8(out)) {
            pos_ = open;
            fail(std::string("escapes that make the ") + what + " valid UTF-8 text");
        }
        return out;
    }

    // One backslash escape of an E'' literal, as PostgreSQL reads them; the
    // backslash is consumed. True when it wrote a byte >= 0x80.
    bool escape(std::string& out) {
        const std::size_t backslash = pos_ - 1;
        if (at_end()) fail("a character after the backslash");
        const char e = text_[pos_];
        if (e >= '0' && e <= '7') {
            unsigned value = 0;
            for (int n = 0; n < 3 && !at_end() && peek() >= '0' && peek() <= '7'; ++n)
                value = value * 8 + static_cast<unsigned>(text_[pos_++] - '0');
            return byte(out, value & 0xFF, backslash);
        }
        if (e == 'x' && pos_ + 1 < text_.size() && hex_value(text_[pos_ + 1]) >= 0) {
            ++pos_;
            unsigned value = 0;
            for (int n = 0; n < 2 && !at_end() && hex_value(peek()) >= 0; ++n)
                value = value * 16 + static_cast<unsigned>(hex_value(text_[pos_++]));
            return byte(out, value, backslash);
        }
        if (e == 'u' || e == 'U') {
            append_utf8(out, code_point(backslash));
            return false;
        }
        ++pos_;
        switch (e) {
            case 'n':
                out.push_back('\n');
                break;
            case 't':
                out.push_back('\t');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case 'b':
                out.push_back('\b');
                break;
            case 'f':
                out.push_back('\f');
                break;
            default:
                out.push_back(e);
                break;
        }
        return false;
    }

    bool byte(std::string& out, unsigned value, std::size_t backslash) {
        if (value == 0) {
            pos_ = backslash;
            fail("an escape of a non-zero byte");
        }
        out.push_back(static_cast<char>(value));
        return value >= 0x80;
    }

    // \uXXXX or \UXXXXXXXX (pos_ at the u), a surrogate pair as two \u escapes.
    uint32_t code_point(std::size_t backslash) {
        uint32_t cp = hex_digits(backslash);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            const std::size_t second = pos_;
            if (text_.substr(pos_, 2) != "\\u" && text_.substr(pos_, 2) != "\\U") {
                pos_ = backslash;
                fail("a low surrogate escape after the high surrogate");
            }
            ++pos_;
            const uint32_t low = hex_digits(second);
            if (low < 0xDC00 || low > 0xDFFF) {
                pos_ = second;
                fail("a low surrogate escape after the high surrogate");
            }
            return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xDC00 && cp <= 0xDFFF)) {
            pos_ = backslash;
            fail("a Unicode escape of a valid, non-zero code point");
        }
        return cp;
    }

    uint32_t hex_digits(std::size_t backslash) {
        const int count = text_[pos_] == 'u' ? 4 : 8;
        ++pos_;
        uint32_t value = 0;
        for (int n = 0; n < count; ++n) {
            if (at_end() || hex_value(peek()) < 0) {
                pos_ = backslash;
                fail("a Unicode escape \\uXXXX or \\UXXXXXXXX");
            }
            value = value * 16 + static_cast<uint32_t>(hex_value(text_[pos_++]));
        }
        return value;
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

    // Positions count characters, not bytes, and the quoted excerpt never ends
    // inside a multibyte character (the message must stay valid UTF-8).
    [[noreturn]] void fail(const std::string& expected) const {
        std::size_t n = std::min<std::size_t>(20, text_.size() - pos_);
        while (n > 0 && pos_ + n < text_.size() && is_continuation(text_[pos_ + n])) --n;
        std::string near =
            at_end() ? "the end of the text" : "\"" + std::string(text_.substr(pos_, n)) + "\"";
        std::size_t character = 1;
        for (std::size_t i = 0; i < pos_; ++i) character += is_continuation(text_[i]) ? 0 : 1;
        throw Error(sqlstate::kInvalidTextRepresentation,
                    "malformed document list for argument data",
                    "Expected " + expected + " at character " + std::to_string(character) +
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
