// Where a queue's picks start. Every pick walks the pick index from its
// beginning, past the entries of documents already taken; while a held xmin
// horizon keeps VACUUM (and the index scans themselves) from removing those,
// a pick reads thousands of them. A start key lets a pick begin where the
// documents still to take begin. It is kept only while picks from the
// beginning find such a dead prefix (`engage`), since a document made
// pickable by plain SQL, which no change reports, is not seen from a start
// until a pick from the beginning renews it.
//
// The rule that keeps it exact: every pending document a pick may take lies
// at or after the start. A pick that took documents moves the start to the
// first of them (those before it were taken or locked by others); a commit
// that made a document pickable moves the start back to it, or, when it
// cannot say where (any move but a push), drops the start; so does an abort
// that returned picked documents. The trap: a pick's snapshot may miss a
// commit that comes after the pick read the start, and that commit's
// document may lie before the first document the pick took. So a pick
// registers as a reader when it reads the start; each change published
// meanwhile is folded into every reader of its queue; the pick then moves
// the start to the earlier of its first document and what was folded in.
//
// Plain data, kept in shared memory by ops/shared_memory/pick_start.cpp under a spinlock.
#pragma once

#include <cstdint>
#include <optional>

namespace fetchq::core {

// A document's place in pick order: priority descending, then
// next_iteration, then attempts (the pick index of ops/queues/queue_tables.cpp).
struct PickKey {
    int32_t priority = 0;
    int64_t next_iteration = 0;  // TimestampTz
    int32_t attempts = 0;
};

// a is taken before b.
bool picked_before(const PickKey& a, const PickKey& b);

// What a commit (or abort) tells the picks of one queue.
struct PickableChange {
    bool known = false;  // false: documents may have become pickable anywhere
    int32_t version = 0;
    PickKey earliest;  // when known: the first of them in pick order
};

// The earlier of two changes of one transaction.
PickableChange merged(const PickableChange& a, const PickableChange& b);

// A pick between reading the start and moving it: what was published
// meanwhile for its queue (by hash) and version.
struct PickReader {
    bool busy = false;
    uint32_t queue_hash = 0;
    int32_t version = 0;
    bool unknown = false;  // a change of unknown place came
    bool any = false;      // `earliest` holds the first change
    PickKey earliest;
};

constexpr int kReaders = 16;

struct PickStart {
    bool valid = false;
    int32_t version = 0;
    PickKey key;
    int64_t anchored_at = 0;  // when a pick from the beginning set it
    // A start past its age is renewed by one pick from the beginning at a
    // time; the others keep using it meanwhile.
    bool renewing = false;
    int64_t renewing_since = 0;
    PickReader readers[kReaders];
};

// What a pick read before it looked: where to start (none: from the
// beginning) and its reader (-1: none free, so it will not move the start).
struct StartSeen {
    std::optional<PickKey> key;
    int64_t anchored_at = 0;
    int reader = -1;
    bool renews = false;  // this pick renews the start
};

// Reads the start for picks of `version` and registers the pick as a reader.
// No start when there is none for it; none either for one pick at a time
// once it was set longer than `max_age` ago: that pick, from the beginning,
// finds what no change reported (documents made pickable by plain SQL) and
// sets it anew.
StartSeen begin_pick(PickStart& s, bool same_queue, uint32_t queue_hash, int32_t version,
                     int64_t now, int64_t max_age);

// A commit's change to a queue; same_queue: the start is that queue's.
void record_change(PickStart& s, bool same_queue, uint32_t queue_hash,
                   const PickableChange& change);

// How a pick ended.
struct PickOutcome {
    // It ran to its end in a snapshot taken after the start was read, and
    // every document it took has a key with no NULL in it.
    bool usable = false;
    std::optional<PickKey> first;  // the first document it took
    // No pending document that is not due yet lies before the first one
    // (false: one does, or it was not looked for).
    bool first_clear = false;
    // A pick from the beginning: it read enough dead index entries to be
    // worth a start. Without, the start is dropped.
    bool engage = true;
};

// Ends a pick begun with `seen`, and moves the start to the first document
// it took, or before it to a change the pick may have missed. Only within
// one priority: a pending document that is not due yet (rejected with a
// delay) is skipped by picks without a trace, and a start moved to a lower
// priority would pass those of the higher ones. So a pick moves it only
// when its first document has the start's priority (a pick from the start),
// or when it looked and found no such document before its first one. A
// renewing pick that took nothing renews the start as it is. True when the
// start moved.
bool finish_pick(PickStart& s, bool same_queue, const StartSeen& seen, int32_t version,
                 const PickOutcome& outcome, int64_t now);

}  // namespace fetchq::core
