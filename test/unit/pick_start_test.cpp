// Where picks start (core/pick_start.hpp): the start only moves past
// documents a pick took, comes back for documents a commit made pickable,
// and a pick does not move it past a commit its snapshot may have missed.
#include "core/pick_start.hpp"

#include <gtest/gtest.h>

using fetchq::core::begin_pick;
using fetchq::core::finish_pick;
using fetchq::core::kReaders;
using fetchq::core::merged;
using fetchq::core::PickableChange;
using fetchq::core::picked_before;
using fetchq::core::PickKey;
using fetchq::core::PickStart;
using fetchq::core::record_change;
using fetchq::core::StartSeen;

namespace {

constexpr int64_t kAge = 1000;
constexpr uint32_t kQueue = 7, kOther = 8;

PickKey key(int32_t priority, int64_t next_iteration, int32_t attempts = 0) {
    return PickKey{priority, next_iteration, attempts};
}

PickableChange at(int32_t version, PickKey k) { return PickableChange{true, version, k}; }

bool same(const PickKey& a, const PickKey& b) {
    return a.priority == b.priority && a.next_iteration == b.next_iteration &&
           a.attempts == b.attempts;
}

StartSeen begin(PickStart& s, int64_t now, int32_t version = 0) {
    return begin_pick(s, true, kQueue, version, now, kAge);
}

// A pick that read at `now` and took documents from `first` on.
bool pick(PickStart& s, int64_t now, PickKey first, int32_t version = 0) {
    return finish_pick(s, begin(s, now, version), version, &first, now);
}

}  // namespace

TEST(PickStart, PickOrderIsPriorityDescendingThenTimeThenAttempts) {
    EXPECT_TRUE(picked_before(key(5, 100), key(0, 1)));
    EXPECT_TRUE(picked_before(key(0, 1), key(0, 2)));
    EXPECT_TRUE(picked_before(key(0, 1, 0), key(0, 1, 1)));
    EXPECT_FALSE(picked_before(key(0, 1, 1), key(0, 1, 1)));
    EXPECT_FALSE(picked_before(key(-1, 0), key(0, 5)));
}

TEST(PickStart, NoStartUntilAPickSetsOne) {
    PickStart s;
    const StartSeen first = begin(s, 0);
    EXPECT_FALSE(first.key);
    EXPECT_FALSE(finish_pick(s, first, 0, nullptr, 0));  // took nothing
    EXPECT_FALSE(s.valid);
    ASSERT_TRUE(pick(s, 10, key(0, 50)));
    const StartSeen next = begin(s, 20);
    ASSERT_TRUE(next.key);
    EXPECT_TRUE(same(*next.key, key(0, 50)));
    finish_pick(s, next, 0, nullptr, 20);
    // Another version, another queue, or too old: from the beginning.
    StartSeen other = begin(s, 20, 1);
    EXPECT_FALSE(other.key);
    finish_pick(s, other, 1, nullptr, 20);
    other = begin_pick(s, false, kOther, 0, 20, kAge);
    EXPECT_FALSE(other.key);
    finish_pick(s, other, 0, nullptr, 20);
    other = begin(s, 10 + kAge);
    EXPECT_FALSE(other.key);
    finish_pick(s, other, 0, nullptr, 10 + kAge);
}

TEST(PickStart, TheAgeCountsFromThePickFromTheBeginning) {
    PickStart s;
    ASSERT_TRUE(pick(s, 0, key(0, 10)));
    ASSERT_TRUE(pick(s, 600, key(0, 20)));  // from the start: keeps when it was set
    EXPECT_EQ(s.anchored_at, 0);
    const StartSeen late = begin(s, kAge);
    EXPECT_FALSE(late.key);
    ASSERT_TRUE(finish_pick(s, late, 0, &s.key, kAge));
    EXPECT_EQ(s.anchored_at, kAge);
}

TEST(PickStart, ACommitMovesTheStartBackToWhatItMadePickable) {
    PickStart s;
    pick(s, 0, key(0, 50));
    record_change(s, true, kQueue, at(0, key(0, 70)));  // after the start: no change
    EXPECT_TRUE(same(s.key, key(0, 50)));
    record_change(s, true, kQueue, at(0, key(0, 30)));
    EXPECT_TRUE(same(s.key, key(0, 30)));
    record_change(s, true, kQueue, at(0, key(9, 99)));  // a higher priority comes first
    EXPECT_TRUE(same(s.key, key(9, 99)));
    record_change(s, true, kQueue, at(1, key(99, 0)));  // another version's picks
    EXPECT_TRUE(same(s.key, key(9, 99)));
    record_change(s, false, kOther, at(0, key(99, 0)));  // another queue sharing the slot
    EXPECT_TRUE(same(s.key, key(9, 99)));
    EXPECT_TRUE(s.valid);
    record_change(s, true, kQueue, PickableChange{});  // anywhere
    EXPECT_FALSE(s.valid);
    const StartSeen after = begin(s, 1);
    EXPECT_FALSE(after.key);
    finish_pick(s, after, 0, nullptr, 1);
}

// The trap: a pick's snapshot missed a commit that came after the pick read
// the start, of a document before the first one the pick took. The commit
// lowered the start; the pick must not move it past that document.
TEST(PickStart, APickDoesNotMovePastACommitItMayHaveMissed) {
    PickStart s;
    pick(s, 0, key(0, 10));
    const StartSeen seen = begin(s, 1);
    record_change(s, true, kQueue, at(0, key(0, 15)));  // after the start: it stays
    EXPECT_TRUE(same(s.key, key(0, 10)));
    const PickKey first = key(0, 40);
    ASSERT_TRUE(finish_pick(s, seen, 0, &first, 2));
    EXPECT_TRUE(same(s.key, key(0, 15)));
}

TEST(PickStart, ACommitAfterThePickStillMovesItBack) {
    PickStart s;
    pick(s, 0, key(0, 40));
    record_change(s, true, kQueue, at(0, key(0, 15)));
    EXPECT_TRUE(same(s.key, key(0, 15)));
}

TEST(PickStart, ReadersFoldOnlyTheirQueuesAndVersionsChanges) {
    PickStart s;
    pick(s, 0, key(0, 10));
    const StartSeen seen = begin(s, 1);
    record_change(s, false, kOther, at(0, key(0, 12)));  // another queue
    record_change(s, true, kQueue, at(1, key(0, 13)));   // another version
    record_change(s, false, kOther, PickableChange{});   // another queue, anywhere
    const PickKey first = key(0, 40);
    ASSERT_TRUE(finish_pick(s, seen, 0, &first, 2));
    EXPECT_TRUE(same(s.key, key(0, 40)));
}

TEST(PickStart, AChangeOfUnknownPlaceKeepsAPickFromMovingTheStart) {
    PickStart s;
    pick(s, 0, key(0, 10));
    const StartSeen seen = begin(s, 1);
    record_change(s, true, kQueue, PickableChange{});
    const PickKey first = key(0, 40);
    EXPECT_FALSE(finish_pick(s, seen, 0, &first, 2));
    EXPECT_FALSE(s.valid);
}

TEST(PickStart, ManyChangesDuringAPickAreAllFoldedIn) {
    PickStart s;
    pick(s, 0, key(0, 10));
    const StartSeen seen = begin(s, 1);
    for (int i = 0; i < 1000; ++i) record_change(s, true, kQueue, at(0, key(0, 1000 - i)));
    const PickKey first = key(0, 2000);
    ASSERT_TRUE(finish_pick(s, seen, 0, &first, 2));
    EXPECT_TRUE(same(s.key, key(0, 1)));
}

TEST(PickStart, APickWithNoFreeReaderStillPicksButDoesNotMoveTheStart) {
    PickStart s;
    pick(s, 0, key(0, 10));
    StartSeen busy[kReaders];
    for (StartSeen& b : busy) b = begin(s, 1);
    const StartSeen extra = begin(s, 1);
    ASSERT_TRUE(extra.key);  // it starts from the start
    EXPECT_EQ(extra.reader, -1);
    const PickKey first = key(0, 40);
    EXPECT_FALSE(finish_pick(s, extra, 0, &first, 2));
    EXPECT_TRUE(same(s.key, key(0, 10)));
    for (const StartSeen& b : busy) finish_pick(s, b, 0, nullptr, 2);
    EXPECT_GE(begin(s, 3).reader, 0);  // readers are freed
}

TEST(PickStart, APickMayMoveTheStartBack) {
    // A slower pick that began earlier: its first document is before the
    // start another pick set since; moving back is safe, only slower.
    PickStart s;
    const StartSeen early = begin(s, 0);
    pick(s, 0, key(0, 50));
    const PickKey first = key(0, 20);
    ASSERT_TRUE(finish_pick(s, early, 0, &first, 1));
    EXPECT_TRUE(same(s.key, key(0, 20)));
}

TEST(PickStart, ChangesOfOneTransactionMerge) {
    const PickableChange a = at(0, key(0, 30)), b = at(0, key(0, 20));
    EXPECT_TRUE(same(merged(a, b).earliest, key(0, 20)));
    EXPECT_TRUE(same(merged(b, a).earliest, key(0, 20)));
    EXPECT_FALSE(merged(a, at(1, key(0, 10))).known);  // two versions: anywhere
    EXPECT_FALSE(merged(a, PickableChange{}).known);
}
