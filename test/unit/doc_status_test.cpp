// The document lifecycle: status codes, moves and the counters each move
// changes, checked against what the SQL functions and the scheduler's tasks
// count today.
#include "core/doc_status.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/counter_columns.hpp"

using fetchq::core::counter_column;
using fetchq::core::DocMove;
using fetchq::core::DocStatus;
using fetchq::core::Error;
using fetchq::core::kDeleted;
using fetchq::core::kDocMoves;
using fetchq::core::kDocStatuses;
using fetchq::core::kNew;
using fetchq::core::move_name;
using fetchq::core::move_spec;
using fetchq::core::MoveCase;
using fetchq::core::sql_status;
using fetchq::core::sql_status_list;
using fetchq::core::status_code;
using fetchq::core::status_counter;
using fetchq::core::status_from_code;
using fetchq::core::version_counter;

namespace {

// Usable in constant expressions.
static_assert(status_code(DocStatus::kActive) == 2);
static_assert(status_from_code(-1) == DocStatus::kKilled);
static_assert(!status_from_code(4));
static_assert(status_counter(DocStatus::kPlanned) == "pln");
static_assert(move_spec(DocMove::kPick).ending_in(DocStatus::kActive).delta_of("pkd") == 1);
static_assert(move_spec(DocMove::kExpire).starting_from(DocStatus::kPending).delta_of("pnd") == -1);

std::string status_text(std::optional<DocStatus> status) {
    return status ? std::string(status_counter(*status)) : std::string("none");
}

std::string case_text(DocMove move, const MoveCase& c) {
    return std::string(move_name(move)) + " " + status_text(c.from) + " -> " + status_text(c.to);
}

std::map<std::string, int> delta_map(const MoveCase& c) {
    std::map<std::string, int> out;
    for (const auto& d : c.deltas) out[std::string(d.counter)] += d.delta;
    return out;
}

}  // namespace

TEST(DocStatus, CodesAndCountersAreFetchq4s) {
    EXPECT_EQ(status_code(DocStatus::kKilled), -1);
    EXPECT_EQ(status_code(DocStatus::kPlanned), 0);
    EXPECT_EQ(status_code(DocStatus::kPending), 1);
    EXPECT_EQ(status_code(DocStatus::kActive), 2);
    EXPECT_EQ(status_code(DocStatus::kCompleted), 3);
    EXPECT_EQ(status_counter(DocStatus::kKilled), "kll");
    EXPECT_EQ(status_counter(DocStatus::kPlanned), "pln");
    EXPECT_EQ(status_counter(DocStatus::kPending), "pnd");
    EXPECT_EQ(status_counter(DocStatus::kActive), "act");
    EXPECT_EQ(status_counter(DocStatus::kCompleted), "cpl");
}

TEST(DocStatus, EveryCodeRoundTrips) {
    std::set<int> codes;
    for (DocStatus status : kDocStatuses) {
        EXPECT_EQ(status_from_code(status_code(status)), status) << status_code(status);
        codes.insert(status_code(status));
        // Each status counter is a standard counter column.
        EXPECT_TRUE(counter_column(status_counter(status))) << status_counter(status);
    }
    EXPECT_EQ(codes, (std::set<int>{-1, 0, 1, 2, 3}));
}

TEST(DocStatus, UnknownCodesHaveNoStatus) {
    for (int64_t code :
         {int64_t{-2}, int64_t{4}, int64_t{5}, int64_t{100}, int64_t{-100},
          int64_t{std::numeric_limits<int32_t>::min()},
          int64_t{std::numeric_limits<int32_t>::max()}, std::numeric_limits<int64_t>::min(),
          std::numeric_limits<int64_t>::max(), int64_t{1} << 32, (int64_t{1} << 32) + 1})
        EXPECT_FALSE(status_from_code(code)) << code;
}

TEST(DocStatus, SqlText) {
    EXPECT_EQ(sql_status(DocStatus::kKilled), "-1");
    EXPECT_EQ(sql_status(DocStatus::kPlanned), "0");
    EXPECT_EQ(sql_status(DocStatus::kPending), "1");
    EXPECT_EQ(sql_status(DocStatus::kActive), "2");
    EXPECT_EQ(sql_status(DocStatus::kCompleted), "3");
    EXPECT_EQ(sql_status_list({DocStatus::kPlanned, DocStatus::kPending}), "(0, 1)");
    EXPECT_EQ(sql_status_list({DocStatus::kActive}), "(2)");
    EXPECT_EQ(sql_status_list({DocStatus::kCompleted, DocStatus::kKilled}), "(3, -1)");
    EXPECT_THROW(sql_status_list({}), Error);
    EXPECT_EQ("status IN " + sql_status_list({DocStatus::kPlanned, DocStatus::kPending}),
              "status IN (0, 1)");  // task_expire.cpp's filter
}

TEST(DocStatus, VersionCounter) {
    EXPECT_EQ(version_counter(0), "v0");
    EXPECT_EQ(version_counter(12), "v12");
    EXPECT_EQ(version_counter(-1), "v-1");
    EXPECT_TRUE(counter_column(version_counter(0)));  // v0 is a column of fetchq.counters
}

// What the code counts today, per document, for each case of each move.
struct Expected {
    DocMove move;
    std::optional<DocStatus> from;
    std::optional<DocStatus> to;
    std::map<std::string, int> deltas;
    int version_delta;  // v<version>
};

const std::vector<Expected>& expected_moves() {
    using S = DocStatus;
    static const std::vector<Expected> expected = {
        // src/sql_api/documents/doc_push.cpp, count_pushed(): ent, cnt, v<version> +n, then
        // pnd +n when status_for() says due (next_iteration <= transaction start),
        // else pln +n.
        {DocMove::kPush, kNew, S::kPending, {{"ent", 1}, {"cnt", 1}, {"pnd", 1}}, 1},
        {DocMove::kPush, kNew, S::kPlanned, {{"ent", 1}, {"cnt", 1}, {"pln", 1}}, 1},
        // src/worker/task_promote.cpp, promote_planned(): status 0 -> 1, pnd +n, pln -n.
        {DocMove::kPromote, S::kPlanned, S::kPending, {{"pnd", 1}, {"pln", -1}}, 0},
        // src/sql_api/documents/doc_pick.cpp, doc_pick(): status 1 -> 2, pkd +n, act +n, pnd -n.
        {DocMove::kPick, S::kPending, S::kActive, {{"pkd", 1}, {"act", 1}, {"pnd", -1}}, 0},
        // src/sql_api/documents/doc_outcome.cpp, doc_complete() and doc_complete_many():
        // count_finished("cpl") = prc +n, cpl +n, act -n.
        {DocMove::kComplete, S::kActive, S::kCompleted, {{"prc", 1}, {"cpl", 1}, {"act", -1}}, 0},
        // src/sql_api/documents/doc_outcome.cpp, doc_kill(): count_finished("kll").
        {DocMove::kKill, S::kActive, S::kKilled, {{"prc", 1}, {"kll", 1}, {"act", -1}}, 0},
        // src/sql_api/documents/doc_outcome.cpp, doc_drop(): DELETE ... status = 2,
        // count_finished("drp"), cnt -n, v<version> -n.
        {DocMove::kDrop,
         S::kActive,
         kDeleted,
         {{"prc", 1}, {"drp", 1}, {"act", -1}, {"cnt", -1}},
         -1},
        // src/sql_api/documents/doc_outcome.cpp, doc_reschedule(): count_finished("res"),
        // then pnd +n when due, pln +n when not.
        {DocMove::kReschedule,
         S::kActive,
         S::kPending,
         {{"prc", 1}, {"res", 1}, {"act", -1}, {"pnd", 1}},
         0},
        {DocMove::kReschedule,
         S::kActive,
         S::kPlanned,
         {{"prc", 1}, {"res", 1}, {"act", -1}, {"pln", 1}},
         0},
        // src/sql_api/documents/doc_outcome.cpp, doc_reject(): count_finished("rej"), err +n,
        // then pnd +n, or kll +n when attempts >= max_attempts (status -1).
        {DocMove::kReject,
         S::kActive,
         S::kPending,
         {{"prc", 1}, {"rej", 1}, {"act", -1}, {"err", 1}, {"pnd", 1}},
         0},
        {DocMove::kReject,
         S::kActive,
         S::kKilled,
         {{"prc", 1}, {"rej", 1}, {"act", -1}, {"err", 1}, {"kll", 1}},
         0},
        // src/worker/task_expired.cpp, reschedule_orphans(): count_expired("pnd")
        // = err +n, orp +n, pnd +n, act -n.
        {DocMove::kOrphan,
         S::kActive,
         S::kPending,
         {{"err", 1}, {"orp", 1}, {"pnd", 1}, {"act", -1}},
         0},
        // src/worker/task_expired.cpp, mark_dead(): count_expired("kll").
        {DocMove::kDead,
         S::kActive,
         S::kKilled,
         {{"err", 1}, {"orp", 1}, {"kll", 1}, {"act", -1}},
         0},
        // src/worker/task_sessions.cpp, release_session_locks(): act -n, orp +n,
        // err +n, pnd +(n - killed), kll +killed (killed: attempts >= max_attempts).
        {DocMove::kRelease,
         S::kActive,
         S::kPending,
         {{"act", -1}, {"orp", 1}, {"err", 1}, {"pnd", 1}},
         0},
        {DocMove::kRelease,
         S::kActive,
         S::kKilled,
         {{"act", -1}, {"orp", 1}, {"err", 1}, {"kll", 1}},
         0},
        // src/worker/task_expire.cpp, expire_documents(): DELETE ... status IN (0, 1);
        // per row pln or pnd -1 and v<version> -1; cnt -n, exp +n.
        {DocMove::kExpire, S::kPlanned, kDeleted, {{"pln", -1}, {"cnt", -1}, {"exp", 1}}, -1},
        {DocMove::kExpire, S::kPending, kDeleted, {{"pnd", -1}, {"cnt", -1}, {"exp", 1}}, -1},
        // src/ops/documents/doc_outcome.cpp (doc_retry): kll -n, pnd or pln +n (as issue 11 asks).
        {DocMove::kRetry, S::kKilled, S::kPending, {{"kll", -1}, {"pnd", 1}}, 0},
        {DocMove::kRetry, S::kKilled, S::kPlanned, {{"kll", -1}, {"pln", 1}}, 0},
        // src/ops/maintenance/purge.cpp: retention of finished documents; cnt and cpl or
        // kll down, rtn (removed by retention) up, ent and pkd untouched.
        {DocMove::kPurge, S::kCompleted, kDeleted, {{"cpl", -1}, {"cnt", -1}, {"rtn", 1}}, -1},
        {DocMove::kPurge, S::kKilled, kDeleted, {{"kll", -1}, {"cnt", -1}, {"rtn", 1}}, -1},
        {DocMove::kTake, S::kPending, S::kActive, {{"pkd", 1}, {"act", 1}, {"pnd", -1}}, 0},
        {DocMove::kTake, S::kPlanned, S::kActive, {{"pkd", 1}, {"act", 1}, {"pln", -1}}, 0},
        // src/ops/documents/doc_dependencies.cpp: a waiting document whose dependency was
        // killed is killed (no attempt, so no prc).
        {DocMove::kCascade, S::kPlanned, S::kKilled, {{"kll", 1}, {"pln", -1}}, 0},
        // src/ops/documents/doc_cancel.cpp: a planned (waiting included) or pending document
        // killed by doc_cancel; never picked, so no prc.
        {DocMove::kCancel, S::kPlanned, S::kKilled, {{"kll", 1}, {"pln", -1}}, 0},
        {DocMove::kCancel, S::kPending, S::kKilled, {{"kll", 1}, {"pnd", -1}}, 0},
        // src/ops/documents/doc_push.cpp, requeue_finished(): a finished document pending or
        // planned again; the version counters move in the code (old -1, new +1).
        {DocMove::kRequeue, S::kCompleted, S::kPending, {{"cpl", -1}, {"pnd", 1}}, 0},
        {DocMove::kRequeue, S::kCompleted, S::kPlanned, {{"cpl", -1}, {"pln", 1}}, 0},
        {DocMove::kRequeue, S::kKilled, S::kPending, {{"kll", -1}, {"pnd", 1}}, 0},
        {DocMove::kRequeue, S::kKilled, S::kPlanned, {{"kll", -1}, {"pln", 1}}, 0},
    };
    return expected;
}

TEST(DocMove, CountersMatchTheCurrentCode) {
    std::map<DocMove, std::size_t> cases_expected;
    for (const Expected& e : expected_moves()) {
        ++cases_expected[e.move];
        const MoveCase* found = nullptr;
        for (const MoveCase& c : move_spec(e.move).cases)
            if (c.from == e.from && c.to == e.to) found = &c;
        const std::string name =
            std::string(move_name(e.move)) + " " + status_text(e.from) + " -> " + status_text(e.to);
        ASSERT_NE(found, nullptr) << name;
        EXPECT_EQ(delta_map(*found), e.deltas) << name;
        EXPECT_EQ(found->version_delta, e.version_delta) << name;
    }
    // Nothing in move_spec that the list above does not check.
    for (DocMove move : kDocMoves)
        EXPECT_EQ(move_spec(move).cases.size(), cases_expected[move]) << move_name(move);
}

TEST(DocMove, EachMoveHasItsOwnSpec) {
    std::set<std::string_view> names;
    for (DocMove move : kDocMoves) {
        EXPECT_EQ(move_spec(move).move, move) << move_name(move);
        names.insert(move_name(move));
    }
    EXPECT_EQ(names.size(), kDocMoves.size());
}

// Whatever a move does, the status counters keep adding up to cnt: one
// document leaves the counter of its old status and enters the counter of
// its new one; a push adds one, a deletion takes one away, from both sides.
TEST(DocMove, StatusCountersAddUpToCnt) {
    for (DocMove move : kDocMoves) {
        int expected_sum = 0;
        if (move == DocMove::kPush) expected_sum = 1;
        if (move == DocMove::kDrop || move == DocMove::kExpire || move == DocMove::kPurge)
            expected_sum = -1;
        for (const MoveCase& c : move_spec(move).cases) {
            const std::string name = case_text(move, c);
            int sum = 0;
            for (DocStatus status : kDocStatuses) {
                const int delta = c.delta_of(status_counter(status));
                sum += delta;
                const int moved = (c.to == status ? 1 : 0) - (c.from == status ? 1 : 0);
                EXPECT_EQ(delta, moved) << name << ", " << status_counter(status);
            }
            EXPECT_EQ(sum, expected_sum) << name;
            EXPECT_EQ(c.delta_of("cnt"), expected_sum) << name;
            // The version counter follows cnt: a document keeps its version.
            EXPECT_EQ(c.version_delta, expected_sum) << name;
        }
    }
}

TEST(DocMove, CasesAreWellFormed) {
    for (DocMove move : kDocMoves) {
        const auto& cases = move_spec(move).cases;
        ASSERT_GE(cases.size(), 1u) << move_name(move);
        ASSERT_LE(cases.size(), 4u) << move_name(move);
        for (const MoveCase& c : cases) {
            const std::string name = case_text(move, c);
            EXPECT_TRUE(c.from || c.to) << name;
            EXPECT_NE(c.from, c.to) << name;
            std::set<std::string_view> seen;
            for (const auto& d : c.deltas) {
                EXPECT_TRUE(seen.insert(d.counter).second)
                    << name << " counts " << d.counter << " twice";
                EXPECT_NE(d.delta, 0) << name << ", " << d.counter;
                // A standard counter of fetchq.counters, or "exp" / "rtn" (custom counter rows).
                EXPECT_TRUE(counter_column(d.counter) || d.counter == "exp" || d.counter == "rtn")
                    << name << ", " << d.counter;
            }
        }
        // Two cases never share both ends.
        for (std::size_t i = 0; i < cases.size(); ++i)
            for (std::size_t j = i + 1; j < cases.size(); ++j)
                EXPECT_FALSE(cases[i].from == cases[j].from && cases[i].to == cases[j].to)
                    << move_name(move);
    }
}

TEST(DocMove, FromAndTo) {
    using S = DocStatus;
    EXPECT_EQ(move_spec(DocMove::kPick).starting_from(S::kPending).to, S::kActive);
    EXPECT_EQ(move_spec(DocMove::kPromote).ending_in(S::kPending).from, S::kPlanned);
    for (DocMove move : {DocMove::kComplete, DocMove::kKill, DocMove::kDrop, DocMove::kReschedule,
                         DocMove::kReject, DocMove::kOrphan, DocMove::kDead, DocMove::kRelease})
        for (const MoveCase& c : move_spec(move).cases)
            EXPECT_EQ(c.from, S::kActive) << move_name(move);
    EXPECT_EQ(move_spec(DocMove::kDrop).ending_in(kDeleted).delta_of("drp"), 1);
    EXPECT_EQ(move_spec(DocMove::kExpire).starting_from(S::kPlanned).delta_of("pln"), -1);
    EXPECT_EQ(move_spec(DocMove::kExpire).starting_from(S::kPending).delta_of("pnd"), -1);
    EXPECT_EQ(move_spec(DocMove::kPush).ending_in(S::kPlanned).from, kNew);
    EXPECT_EQ(move_spec(DocMove::kReject).ending_in(S::kKilled).delta_of("kll"), 1);
    EXPECT_EQ(move_spec(DocMove::kRelease).ending_in(S::kPending).delta_of("kll"), 0);
    EXPECT_EQ(move_spec(DocMove::kReschedule).ending_in(S::kPlanned).delta_of("res"), 1);
    // A cancel never went through a pick: nothing processed, nothing failed.
    for (const MoveCase& c : move_spec(DocMove::kCancel).cases) {
        EXPECT_EQ(c.to, S::kKilled);
        EXPECT_EQ(c.delta_of("prc"), 0);
        EXPECT_EQ(c.delta_of("err"), 0);
    }
    EXPECT_EQ(move_spec(DocMove::kCancel).starting_from(S::kPending).delta_of("pnd"), -1);
    // A requeue starts finished, and pushes nothing new.
    for (const MoveCase& c : move_spec(DocMove::kRequeue).cases) {
        EXPECT_TRUE(c.from == S::kCompleted || c.from == S::kKilled);
        EXPECT_EQ(c.delta_of("ent"), 0);
        EXPECT_EQ(c.delta_of("cnt"), 0);
    }
    EXPECT_EQ(move_spec(DocMove::kRequeue).between(S::kKilled, S::kPlanned).delta_of("kll"), -1);
    EXPECT_EQ(move_spec(DocMove::kRequeue).between(S::kCompleted, S::kPending).delta_of("cpl"), -1);
}

TEST(DocMove, MissingOrAmbiguousCasesAreErrors) {
    using S = DocStatus;
    EXPECT_THROW(move_spec(DocMove::kPick).ending_in(S::kCompleted), Error);
    EXPECT_THROW(move_spec(DocMove::kPush).starting_from(S::kActive), Error);
    EXPECT_THROW(move_spec(DocMove::kExpire).starting_from(S::kActive), Error);
    // Both expire cases end deleted, both reject cases start active.
    EXPECT_THROW(move_spec(DocMove::kExpire).ending_in(kDeleted), Error);
    EXPECT_THROW(move_spec(DocMove::kReject).starting_from(S::kActive), Error);
    // Requeue goes two ways from each start and ends in each place from two.
    EXPECT_THROW(move_spec(DocMove::kRequeue).starting_from(S::kKilled), Error);
    EXPECT_THROW(move_spec(DocMove::kRequeue).ending_in(S::kPending), Error);
    EXPECT_THROW(move_spec(DocMove::kRequeue).between(S::kActive, S::kPending), Error);
    EXPECT_THROW(move_spec(DocMove::kCancel).starting_from(S::kActive), Error);
}
