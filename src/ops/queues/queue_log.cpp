#include "ops/queues/queue_log.hpp"

#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "ops/queues/queue_sql.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {
constexpr int kMaxMessageLength = 255;  // fetchq_data.<queue>__logs.message
}

void check_length(const std::string& text, int limit, const char* name, const char* hint) {
    const char* s = text.c_str();
    const int len = static_cast<int>(text.size());
    const int chars = pg_call([&] { return pg_mbstrlen_with_len(s, len); });
    if (chars > limit)
        throw core::Error(
            core::sqlstate::kStringDataRightTruncation,
            std::string("argument ") + name + " exceeds " + std::to_string(limit) + " characters",
            "It has " + std::to_string(chars) + " characters.", hint);
}

void check_log_entry(const std::string& subject, const std::string& message) {
    check_length(subject, static_cast<int>(core::kMaxSubjectLength), "subject",
                 "Log against the subject of a document: at most 50 characters.");
    check_length(message, kMaxMessageLength, "message", "Put the long text in details.");
}

uint64_t insert_log(const std::string& queue, const std::string& subject,
                    const std::string& message, Datum details, bool details_null,
                    const std::optional<std::string>& ref_id) {
    SPIPlanPtr plan = queue_plan(queue, "log_insert",
                                 [&] {
                                     return "INSERT INTO " + logs_rel(queue) +
                                            " (created_at, subject, message, details, ref_id)"
                                            " VALUES (now(), $1, $2, $3, $4)";
                                 },
                                 {TEXTOID, TEXTOID, JSONBOID, TEXTOID});
    Datum values[4] = {to_text(subject), to_text(message), details,
                       ref_id ? to_text(*ref_id) : (Datum)0};
    const char nulls[4] = {' ', ' ', details_null ? 'n' : ' ', ref_id ? ' ' : 'n'};
    return queue_execute(queue, plan, values, nulls);
}

}  // namespace fetchq::ops
