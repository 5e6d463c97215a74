// Requests and replies: a document sent with reply_to (doc_send) names the
// queue its answer goes to, recorded in fetchq.doc_replies (fetchq's
// catalog, written as its owner); doc_reply delivers the answer there and
// completes the request. Every function needs SPI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Records that the document `subject` of `queue`, just sent, is answered
// into `reply_to`.
void record_reply_to(const std::string& queue, const std::string& subject,
                     const std::string& reply_to);

// The reply queue of the request, if it was sent with one: the row must be
// the document's own (created at `created_at`), not one left by an earlier
// document of the same subject.
std::optional<std::string> reply_to_of(const std::string& queue, const std::string& subject,
                                       TimestampTz created_at);

// The request's row, locked until the end of the transaction (FOR UPDATE,
// on the latest state: a pick earlier in the same statement is seen);
// false when there is none.
struct Request {
    int64_t status = 0;
    TimestampTz created_at = 0;
};
bool lock_request(const std::string& queue, const std::string& subject, Request* out);

// The request was answered: its row goes.
void forget_reply_to(const std::string& queue, const std::string& subject);

}  // namespace fetchq::ops
