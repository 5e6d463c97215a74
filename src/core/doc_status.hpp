// The document lifecycle, named once: the statuses of a queue's documents
// (Fetchq 4's codes), the moves between them, and the counters each move
// changes per document. SQL text and counter bookkeeping are built from
// these names instead of literals.
//
//   push ──> planned (not due) ──promote──> pending ──pick──> active
//   push ──> pending (due)
//   active ──complete──> completed     ──kill──> killed      ──drop──> deleted
//          ──reschedule──> planned or pending (due)
//          ──reject──> pending, or killed when its attempts are used up
//          ──orphan──> pending (lock expired, attempts left)
//          ──dead──> killed (lock expired, attempts used up)
//          ──release──> pending, or killed when its attempts are used up
//                       (picked session-bound by a session that ended)
//   planned or pending ──expire──> deleted (expires_at passed)
//   planned or pending ──take──> active (doc_take: one document by subject)
//   planned, waiting on documents (doc_send's depends_on) ──cascade──> killed
//                       (a document it waited on was killed)
//   planned or pending (waiting ones included) ──cancel──> killed (doc_cancel)
//   completed or killed ──requeue──> pending, or planned when not due
//                       (doc_send's if_finished => 'requeue')
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace fetchq::core {

// The status column of a queue's documents.
enum class DocStatus : int {
    kKilled = -1,    // failed for good (killed, or out of attempts)
    kPlanned = 0,    // waiting for its next_iteration
    kPending = 1,    // due: can be picked
    kActive = 2,     // picked, locked until its next_iteration
    kCompleted = 3,  // done
};

inline constexpr std::array<DocStatus, 5> kDocStatuses = {DocStatus::kKilled, DocStatus::kPlanned,
                                                          DocStatus::kPending, DocStatus::kActive,
                                                          DocStatus::kCompleted};

// The code stored in the status column.
constexpr int status_code(DocStatus status) { return static_cast<int>(status); }

// The counter of the documents in `status`: "kll", "pln", "pnd", "act", "cpl".
constexpr std::string_view status_counter(DocStatus status) {
    switch (status) {
        case DocStatus::kKilled:
            return "kll";
        case DocStatus::kPlanned:
            return "pln";
        case DocStatus::kPending:
            return "pnd";
        case DocStatus::kActive:
            return "act";
        case DocStatus::kCompleted:
            return "cpl";
    }
    return {};
}

// The status stored as `code`; nullopt for any other value.
constexpr std::optional<DocStatus> status_from_code(int64_t code) {
    for (DocStatus status : kDocStatuses)
        if (status_code(status) == code) return status;
    return std::nullopt;
}

// A status as SQL text: "2", "-1".
std::string sql_status(DocStatus status);
// Statuses as a parenthesized SQL list, in the order given: "(0, 1)". An
// empty list is an error (XX000): "IN ()" is not SQL.
std::string sql_status_list(std::initializer_list<DocStatus> statuses);

// The counter of the documents of one version: "v0", "v12", "v-1".
std::string version_counter(int32_t version);

// The moves a document makes. Push, pick and the outcomes are SQL functions
// (doc_push, doc_pick, doc_complete, ...); promote, orphan, dead, release
// and expire are the scheduler's tasks (and the mnt_* functions).
enum class DocMove {
    kPush,        // a new document -> planned, or pending when due
    kPromote,     // planned -> pending, when due
    kPick,        // pending -> active
    kComplete,    // active -> completed
    kKill,        // active -> killed
    kDrop,        // active -> deleted
    kReschedule,  // active -> planned, or pending when due
    kReject,      // active -> pending, or killed when its attempts are used up
    kOrphan,      // active, lock expired, attempts left -> pending
    kDead,        // active, lock expired, attempts used up -> killed
    kRelease,     // active, picked session-bound by an ended session -> pending, or killed
                  // when its attempts are used up
    kExpire,      // planned or pending, past expires_at -> deleted
    kRetry,       // killed -> pending, or planned when not due yet (doc_retry)
    kPurge,       // completed or killed, older than the queue's retention -> deleted
    kTake,        // planned or pending -> active, named by its subject (doc_take)
    kCascade,     // planned, waiting on a document that was killed -> killed
    kCancel,      // planned or pending (waiting included) -> killed (doc_cancel)
    kRequeue,     // completed or killed -> pending, or planned when not due (doc_send's
                  // if_finished => 'requeue'); the version counters move apart
                  // (version_delta 0), as the new version may differ from the old
};

inline constexpr std::array<DocMove, 18> kDocMoves = {
    DocMove::kPush,    DocMove::kPromote,    DocMove::kPick,   DocMove::kComplete, DocMove::kKill,
    DocMove::kDrop,    DocMove::kReschedule, DocMove::kReject, DocMove::kOrphan,   DocMove::kDead,
    DocMove::kRelease, DocMove::kExpire,     DocMove::kRetry,  DocMove::kPurge,    DocMove::kTake,
    DocMove::kCascade, DocMove::kCancel,     DocMove::kRequeue};

constexpr std::string_view move_name(DocMove move) {
    switch (move) {
        case DocMove::kPush:
            return "push";
        case DocMove::kPromote:
            return "promote";
        case DocMove::kPick:
            return "pick";
        case DocMove::kComplete:
            return "complete";
        case DocMove::kKill:
            return "kill";
        case DocMove::kDrop:
            return "drop";
        case DocMove::kReschedule:
            return "reschedule";
        case DocMove::kReject:
            return "reject";
        case DocMove::kOrphan:
            return "orphan";
        case DocMove::kDead:
            return "dead";
        case DocMove::kRelease:
            return "release";
        case DocMove::kExpire:
            return "expire";
        case DocMove::kRetry:
            return "retry";
        case DocMove::kPurge:
            return "purge";
        case DocMove::kTake:
            return "take";
        case DocMove::kCascade:
            return "cascade";
        case DocMove::kCancel:
            return "cancel";
        case DocMove::kRequeue:
            return "requeue";
    }
    return {};
}

// At most N values, kept in place; usable in constant expressions.
template <typename T, std::size_t N>
class FixedList {
  public:
    constexpr FixedList() = default;
    constexpr FixedList(std::initializer_list<T> values) {
        if (values.size() > N) throw Error(sqlstate::kInternalError, "FixedList overflow");
        for (const T& value : values) items_[size_++] = value;
    }
    constexpr std::size_t size() const { return size_; }
    constexpr const T* begin() const { return items_.data(); }
    constexpr const T* end() const { return items_.data() + size_; }
    constexpr const T& operator[](std::size_t i) const { return items_[i]; }

  private:
    std::array<T, N> items_{};
    std::size_t size_ = 0;
};

// The change of one counter for each document moved.
struct CounterDelta {
    std::string_view counter;
    int delta = 0;
};

// No status: where a pushed document comes from, where a deleted one goes.
inline constexpr std::optional<DocStatus> kNew = std::nullopt;
inline constexpr std::optional<DocStatus> kDeleted = std::nullopt;

// One way a move goes: from one status to one status (kNew: pushed,
// kDeleted: deleted), with the counters it changes per document, in the
// order the code adds them. Besides these, `version_delta` is the change
// of the document's version counter (version_counter(version)).
struct MoveCase {
    std::optional<DocStatus> from;
    std::optional<DocStatus> to;
    FixedList<CounterDelta, 5> deltas;
    int version_delta = 0;

    // The change of `counter` per document, 0 when this case leaves it alone.
    constexpr int delta_of(std::string_view counter) const {
        for (const CounterDelta& d : deltas)
            if (d.counter == counter) return d.delta;
        return 0;
    }
};

// A move: one case, or more when where it ends depends on a condition (push
// and reschedule: due or not; reject and release: attempts used up or not)
// or when its counters depend on where it starts (expire: planned or
// pending; requeue: both). Orphan and dead are one event (an expired lock)
// split by the attempts, as the scheduler runs them as two tasks.
struct MoveSpec {
    DocMove move = DocMove::kPush;
    FixedList<MoveCase, 4> cases;

    // The case from `from` to `to`. Error (XX000) when the move has none.
    constexpr const MoveCase& between(std::optional<DocStatus> from,
                                      std::optional<DocStatus> to) const {
        for (const MoveCase& c : cases)
            if (c.from == from && c.to == to) return c;
        throw Error(sqlstate::kInternalError, "no such move case");
    }

    // The case that ends in `to` (kDeleted for a deletion). Error (XX000)
    // when the move never ends there, or ends there from two statuses.
    constexpr const MoveCase& ending_in(std::optional<DocStatus> to) const {
        std::size_t found = cases.size();
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if (cases[i].to != to) continue;
            if (found != cases.size()) throw Error(sqlstate::kInternalError, "ambiguous move case");
            found = i;
        }
        if (found == cases.size()) throw Error(sqlstate::kInternalError, "no such move case");
        return cases[found];
    }

    // The case that starts from `from` (kNew for a push). Error (XX000)
    // when the move never starts there, or goes two ways from there.
    constexpr const MoveCase& starting_from(std::optional<DocStatus> from) const {
        std::size_t found = cases.size();
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if (cases[i].from != from) continue;
            if (found != cases.size()) throw Error(sqlstate::kInternalError, "ambiguous move case");
            found = i;
        }
        if (found == cases.size()) throw Error(sqlstate::kInternalError, "no such move case");
        return cases[found];
    }
};

namespace detail {

// Every move, as the current code makes it (sql_api/documents/doc_*.cpp, ops/maintenance/*.cpp).
// Each case reads {from, to, {counter changes}, change of the version counter}.
constexpr MoveSpec make_move_spec(DocMove move) {
    using S = DocStatus;
    switch (move) {
        case DocMove::kPush:
            return {move,
                    {{kNew, S::kPending, {{"ent", 1}, {"cnt", 1}, {"pnd", 1}}, 1},
                     {kNew, S::kPlanned, {{"ent", 1}, {"cnt", 1}, {"pln", 1}}, 1}}};
        case DocMove::kPromote:
            return {move, {{S::kPlanned, S::kPending, {{"pnd", 1}, {"pln", -1}}, 0}}};
        case DocMove::kPick:
            return {move, {{S::kPending, S::kActive, {{"pkd", 1}, {"act", 1}, {"pnd", -1}}, 0}}};
        case DocMove::kComplete:
            return {move, {{S::kActive, S::kCompleted, {{"prc", 1}, {"cpl", 1}, {"act", -1}}, 0}}};
        case DocMove::kKill:
            return {move, {{S::kActive, S::kKilled, {{"prc", 1}, {"kll", 1}, {"act", -1}}, 0}}};
        case DocMove::kDrop:
            return {
                move,
                {{S::kActive, kDeleted, {{"prc", 1}, {"drp", 1}, {"act", -1}, {"cnt", -1}}, -1}}};
        case DocMove::kReschedule:
            return {
                move,
                {{S::kActive, S::kPending, {{"prc", 1}, {"res", 1}, {"act", -1}, {"pnd", 1}}, 0},
                 {S::kActive, S::kPlanned, {{"prc", 1}, {"res", 1}, {"act", -1}, {"pln", 1}}, 0}}};
        case DocMove::kReject:
            return {move,
                    {{S::kActive,
                      S::kPending,
                      {{"prc", 1}, {"rej", 1}, {"act", -1}, {"err", 1}, {"pnd", 1}},
                      0},
                     {S::kActive,
                      S::kKilled,
                      {{"prc", 1}, {"rej", 1}, {"act", -1}, {"err", 1}, {"kll", 1}},
                      0}}};
        case DocMove::kOrphan:
            return {
                move,
                {{S::kActive, S::kPending, {{"err", 1}, {"orp", 1}, {"pnd", 1}, {"act", -1}}, 0}}};
        case DocMove::kDead:
            return {
                move,
                {{S::kActive, S::kKilled, {{"err", 1}, {"orp", 1}, {"kll", 1}, {"act", -1}}, 0}}};
        case DocMove::kRelease:
            return {
                move,
                {{S::kActive, S::kPending, {{"act", -1}, {"orp", 1}, {"err", 1}, {"pnd", 1}}, 0},
                 {S::kActive, S::kKilled, {{"act", -1}, {"orp", 1}, {"err", 1}, {"kll", 1}}, 0}}};
        case DocMove::kExpire:
            return {move,
                    {{S::kPlanned, kDeleted, {{"pln", -1}, {"cnt", -1}, {"exp", 1}}, -1},
                     {S::kPending, kDeleted, {{"pnd", -1}, {"cnt", -1}, {"exp", 1}}, -1}}};
        case DocMove::kRetry:
            return {move,
                    {{S::kKilled, S::kPending, {{"kll", -1}, {"pnd", 1}}, 0},
                     {S::kKilled, S::kPlanned, {{"kll", -1}, {"pln", 1}}, 0}}};
        case DocMove::kPurge:
            return {move,
                    {{S::kCompleted, kDeleted, {{"cpl", -1}, {"cnt", -1}, {"rtn", 1}}, -1},
                     {S::kKilled, kDeleted, {{"kll", -1}, {"cnt", -1}, {"rtn", 1}}, -1}}};
        case DocMove::kTake:
            return {move,
                    {{S::kPending, S::kActive, {{"pkd", 1}, {"act", 1}, {"pnd", -1}}, 0},
                     {S::kPlanned, S::kActive, {{"pkd", 1}, {"act", 1}, {"pln", -1}}, 0}}};
        case DocMove::kCascade:
            return {move, {{S::kPlanned, S::kKilled, {{"kll", 1}, {"pln", -1}}, 0}}};
        case DocMove::kCancel:
            return {move,
                    {{S::kPlanned, S::kKilled, {{"kll", 1}, {"pln", -1}}, 0},
                     {S::kPending, S::kKilled, {{"kll", 1}, {"pnd", -1}}, 0}}};
        case DocMove::kRequeue:
            return {move,
                    {{S::kCompleted, S::kPending, {{"cpl", -1}, {"pnd", 1}}, 0},
                     {S::kCompleted, S::kPlanned, {{"cpl", -1}, {"pln", 1}}, 0},
                     {S::kKilled, S::kPending, {{"kll", -1}, {"pnd", 1}}, 0},
                     {S::kKilled, S::kPlanned, {{"kll", -1}, {"pln", 1}}, 0}}};
    }
    throw Error(sqlstate::kInternalError, "unknown document move");
}

constexpr std::array<MoveSpec, kDocMoves.size()> make_move_specs() {
    std::array<MoveSpec, kDocMoves.size()> specs{};
    for (std::size_t i = 0; i < kDocMoves.size(); ++i) {
        // move_spec() finds a move's spec at the move's value.
        if (static_cast<std::size_t>(kDocMoves[i]) != i)
            throw Error(sqlstate::kInternalError, "kDocMoves out of order");
        specs[i] = make_move_spec(kDocMoves[i]);
    }
    return specs;
}

}  // namespace detail

inline constexpr std::array<MoveSpec, kDocMoves.size()> kMoveSpecs = detail::make_move_specs();

// A move's spec. It lives in static storage: references to it and into it
// stay valid.
constexpr const MoveSpec& move_spec(DocMove move) {
    return kMoveSpecs[static_cast<std::size_t>(move)];
}

}  // namespace fetchq::core
