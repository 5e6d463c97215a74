// The document list of the bulk doc_push(queue, version, next_iteration, data)
// of Fetchq 4: "('a1', 0, '{\"a\":1}', {DATA}), ('a2', 1, '{}', {DATA})".
// Fetchq pasted it into an INSERT; fetchq parses it here and never runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fetchq::core {

struct TupleDoc {
    std::string subject;
    int32_t priority = 0;
    std::optional<std::string> payload;  // JSON text; nullopt for NULL
};

// Parses the whole text. Each tuple is (subject, priority, payload, {DATA}):
// subject and payload are SQL string literals ('' doubles a quote, E'...'
// allows backslash escapes as PostgreSQL reads them, yielding valid UTF-8),
// priority an integer, payload may be NULL.
// Throws core::Error (22P02) naming the position of the first problem.
std::vector<TupleDoc> parse_tuple_text(std::string_view text);

}  // namespace fetchq::core
