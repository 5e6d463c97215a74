// Rows of a queue's error log (fetchq_data.<queue>__logs), written by
// log_error and doc_reject alike.
#pragma once

#include <optional>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Raises 22001 naming the argument when `text` has more than `limit`
// characters (not bytes).
void check_length(const std::string& text, int limit, const char* name, const char* hint);

// Checks the lengths the table allows (subject 50, message 255 characters).
void check_log_entry(const std::string& subject, const std::string& message);

// Inserts one log row; the caller is connected to SPI. Returns rows inserted.
uint64_t insert_log(const std::string& queue, const std::string& subject,
                    const std::string& message, Datum details, bool details_null,
                    const std::optional<std::string>& ref_id);

}  // namespace fetchq::ops
