// Queue names: the only user text that ever becomes part of an identifier.
#pragma once

#include <string>
#include <string_view>

namespace fetchq::core {

inline constexpr std::size_t kMaxQueueNameLength = 40;
inline constexpr std::size_t kMaxSubjectLength = 50;

// Empty when `name` is a valid queue name ([a-z0-9_], 1..40 characters),
// otherwise the reason it is not, for an errdetail.
std::string queue_name_problem(std::string_view name);

// Throws core::Error (42602) naming `argument` when the name is not valid.
void check_queue_name(std::string_view name, std::string_view argument = "queue");

// Per-queue table names, without schema: <queue>__docs, __logs, __metrics.
std::string docs_table(std::string_view queue);
std::string logs_table(std::string_view queue);
std::string metrics_table(std::string_view queue);

// Temporary queues (queue_create_temporary) are named "tmp_" and 32 hex
// digits of 16 random bytes: 36 characters, a valid queue name that no other
// role can guess and take first. A name found taken is drawn again, up to
// kTemporaryNameAttempts times.
inline constexpr std::size_t kTemporaryNameBytes = 16;
inline constexpr int kTemporaryNameAttempts = 8;
std::string temporary_queue_name(const unsigned char (&bytes)[kTemporaryNameBytes]);

}  // namespace fetchq::core
