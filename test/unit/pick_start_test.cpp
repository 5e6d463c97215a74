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
using fetchq::core::PickOutcome;
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

// clear: nothing pending but not due lies before `first`.
PickOutcome took(PickKey first, bool clear = true) {
    PickOutcome o;
    o.usable = true;
    o.first = first;
    o.first_clear = clear;
    return o;
}

PickOutcome took_nothing() {
    PickOutcome o;
    o.usable = true;
    return o;
}

// Ends a pick that failed or was not read.
void drop(PickStart& s, const StartSeen& seen, int64_t now) {
    finish_pick(s, true, seen, 0, PickOutcome{}, now);
}

// A pick that read at `now` and took documents from `first` on.
bool pick(PickStart& s, int64_t now, PickKey first, int32_t version = 0) {
    return finish_pick(s, true, begin(s, now, version), version, took(first), now);
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
    EXPECT_FALSE(finish_pick(s, true, first, 0, took_nothing(), 0));
    EXPECT_FALSE(s.valid);
    ASSERT_TRUE(pick(s, 10, key(0, 50)));
    const StartSeen next = begin(s, 20);
    ASSERT_TRUE(next.key);
    EXPECT_TRUE(same(*next.key, key(0, 50)));
    drop(s, next, 20);
    // Another version, another queue, or too old: from the beginning.
    StartSeen other = begin(s, 20, 1);
    EXPECT_FALSE(other.key);
    drop(s, other, 20);
    other = begin_pick(s, false, kOther, 0, 20, kAge);
    EXPECT_FALSE(other.key);
    drop(s, other, 20);
    other = begin(s, 10 + kAge);
    EXPECT_FALSE(other.key);
    drop(s, other, 10 + kAge);
}

TEST(PickStart, TheAgeCountsFromThePickFromTheBeginning) {
    PickStart s;
    ASSERT_TRUE(pick(s, 0, key(0, 10)));
    ASSERT_TRUE(pick(s, 600, key(0, 20)));  // from the start: keeps when it was set
    EXPECT_EQ(s.anchored_at, 0);
    const StartSeen late = begin(s, kAge);
    EXPECT_FALSE(late.key);
    EXPECT_TRUE(late.renews);
    // Meanwhile the others keep the old start.
    const StartSeen other = begin(s, kAge);
    ASSERT_TRUE(other.key);
    EXPECT_FALSE(other.renews);
    drop(s, other, kAge);
    ASSERT_TRUE(finish_pick(s, true, late, 0, took(key(0, 30)), kAge));
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
    drop(s, after, 1);
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
    ASSERT_TRUE(finish_pick(s, true, seen, 0, took(key(0, 40)), 2));
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
    ASSERT_TRUE(finish_pick(s, true, seen, 0, took(key(0, 40)), 2));
    EXPECT_TRUE(same(s.key, key(0, 40)));
}

TEST(PickStart, AChangeOfUnknownPlaceKeepsAPickFromMovingTheStart) {
    PickStart s;
    pick(s, 0, key(0, 10));
    const StartSeen seen = begin(s, 1);
    record_change(s, true, kQueue, PickableChange{});
    EXPECT_FALSE(finish_pick(s, true, seen, 0, took(key(0, 40)), 2));
    EXPECT_FALSE(s.valid);
}

TEST(PickStart, ManyChangesDuringAPickAreAllFoldedIn) {
    PickStart s;
    pick(s, 0, key(0, 10));
    const StartSeen seen = begin(s, 1);
    for (int i = 0; i < 1000; ++i) record_change(s, true, kQueue, at(0, key(0, 1000 - i)));
    ASSERT_TRUE(finish_pick(s, true, seen, 0, took(key(0, 2000)), 2));
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
    EXPECT_FALSE(finish_pick(s, true, extra, 0, took(key(0, 40)), 2));
    EXPECT_TRUE(same(s.key, key(0, 10)));
    for (const StartSeen& b : busy) drop(s, b, 2);
    EXPECT_GE(begin(s, 3).reader, 0);  // readers are freed
}

TEST(PickStart, APickMayMoveTheStartBack) {
    // A slower pick that began earlier: its first document is before the
    // start another pick set since; moving back is safe, only slower.
    PickStart s;
    const StartSeen early = begin(s, 0);
    pick(s, 0, key(0, 50));
    ASSERT_TRUE(finish_pick(s, true, early, 0, took(key(0, 20)), 1));
    EXPECT_TRUE(same(s.key, key(0, 20)));
}

TEST(PickStart, ChangesOfOneTransactionMerge) {
    const PickableChange a = at(0, key(0, 30)), b = at(0, key(0, 20));
    EXPECT_TRUE(same(merged(a, b).earliest, key(0, 20)));
    EXPECT_TRUE(same(merged(b, a).earliest, key(0, 20)));
    EXPECT_FALSE(merged(a, at(1, key(0, 10))).known);  // two versions: anywhere
    EXPECT_FALSE(merged(a, PickableChange{}).known);
}

// A pending document that is not due yet is passed by picks without a
// trace: the start must not move past it.
TEST(PickStart, TheStartMovesPastAPriorityOnlyWhenNothingWaitsThere) {
    PickStart s;
    pick(s, 0, key(5, 10));
    // From the start, within its priority: nothing was looked for, none needed.
    ASSERT_TRUE(finish_pick(s, true, begin(s, 1), 0, took(key(5, 12), false), 1));
    EXPECT_TRUE(same(s.key, key(5, 12)));
    // On into priority 0 with one of priority 5 not due yet: the start stays.
    EXPECT_FALSE(finish_pick(s, true, begin(s, 2), 0, took(key(0, 20), false), 2));
    EXPECT_TRUE(same(s.key, key(5, 12)));
    // ... and with none waiting, it moves.
    ASSERT_TRUE(finish_pick(s, true, begin(s, 3), 0, took(key(0, 20), true), 3));
    EXPECT_TRUE(same(s.key, key(0, 20)));
    // From the beginning: only when nothing waits before the first.
    record_change(s, true, kQueue, PickableChange{});
    EXPECT_FALSE(finish_pick(s, true, begin(s, 4), 0, took(key(0, 30), false), 4));
    EXPECT_FALSE(s.valid);
    EXPECT_TRUE(finish_pick(s, true, begin(s, 5), 0, took(key(0, 30), true), 5));
}

TEST(PickStart, ARenewalThatFindsNothingRenewsTheStart) {
    PickStart s;
    pick(s, 0, key(0, 10));
    const StartSeen renew = begin(s, kAge);
    ASSERT_TRUE(renew.renews);
    record_change(s, true, kQueue, at(0, key(0, 30)));  // meanwhile, after the start
    EXPECT_FALSE(finish_pick(s, true, renew, 0, took_nothing(), kAge));
    EXPECT_TRUE(s.valid);
    EXPECT_EQ(s.anchored_at, kAge);
    EXPECT_TRUE(same(s.key, key(0, 10)));
    // A renewal that failed leaves it to the next pick.
    const StartSeen failed = begin(s, 2 * kAge);
    ASSERT_TRUE(failed.renews);
    drop(s, failed, 2 * kAge);
    EXPECT_TRUE(begin(s, 2 * kAge).renews);
}

TEST(PickStart, AnUnusablePickDoesNotMoveTheStart) {
    PickStart s;
    pick(s, 0, key(0, 10));
    PickOutcome o = took(key(0, 40));
    o.usable = false;  // an error, a snapshot older than the reading
    EXPECT_FALSE(finish_pick(s, true, begin(s, 1), 0, o, 1));
    EXPECT_TRUE(same(s.key, key(0, 10)));
}

TEST(PickStart, APickFromTheBeginningThatFoundNoDeadPrefixDropsTheStart) {
    PickStart s;
    PickOutcome short_prefix = took(key(0, 10));
    short_prefix.engage = false;
    EXPECT_FALSE(finish_pick(s, true, begin(s, 0), 0, short_prefix, 0));
    EXPECT_FALSE(s.valid);
    pick(s, 0, key(0, 10));
    ASSERT_TRUE(s.valid);
    // A renewal that finds the prefix gone: back to picks from the beginning.
    const StartSeen renew = begin(s, kAge);
    ASSERT_TRUE(renew.renews);
    EXPECT_FALSE(finish_pick(s, true, renew, 0, short_prefix, kAge));
    EXPECT_FALSE(s.valid);
    // A pick from the start does not measure: it moves the start as before.
    pick(s, kAge, key(0, 20));
    PickOutcome from_start = took(key(0, 30));
    from_start.engage = false;
    EXPECT_TRUE(finish_pick(s, true, begin(s, kAge + 1), 0, from_start, kAge + 1));
    EXPECT_TRUE(same(s.key, key(0, 30)));
}
