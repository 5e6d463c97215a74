#include "core/pick_start.hpp"

namespace fetchq::core {

bool picked_before(const PickKey& a, const PickKey& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.next_iteration != b.next_iteration) return a.next_iteration < b.next_iteration;
    return a.attempts < b.attempts;
}

PickableChange merged(const PickableChange& a, const PickableChange& b) {
    if (!a.known || !b.known || a.version != b.version) return PickableChange{};
    return picked_before(b.earliest, a.earliest) ? b : a;
}

StartSeen begin_pick(PickStart& s, bool same_queue, uint32_t queue_hash, int32_t version,
                     int64_t now, int64_t max_age) {
    StartSeen seen;
    if (s.valid && same_queue && s.version == version) {
        // A renewal that never finished (its backend died) is taken over.
        const bool old = now - s.anchored_at >= max_age;
        if (old && (!s.renewing || now - s.renewing_since >= max_age)) {
            s.renewing = true;
            s.renewing_since = now;
            seen.renews = true;
        } else {
            seen.key = s.key;
            seen.anchored_at = s.anchored_at;
        }
    }
    for (int i = 0; i < kReaders; ++i) {
        if (s.readers[i].busy) continue;
        s.readers[i] = PickReader{true, queue_hash, version, false, false, PickKey{}};
        seen.reader = i;
        break;
    }
    return seen;
}

void record_change(PickStart& s, bool same_queue, uint32_t queue_hash,
                   const PickableChange& change) {
    for (PickReader& r : s.readers) {
        if (!r.busy || r.queue_hash != queue_hash) continue;
        if (!change.known) {
            r.unknown = true;
        } else if (change.version == r.version &&
                   (!r.any || picked_before(change.earliest, r.earliest))) {
            r.earliest = change.earliest;
            r.any = true;
        }
    }
    if (!s.valid || !same_queue) return;
    if (!change.known)
        s.valid = false;
    else if (change.version == s.version && picked_before(change.earliest, s.key))
        s.key = change.earliest;
}

namespace {

// The first document taken may become the start.
bool may_start_at(const StartSeen& seen, const PickOutcome& outcome) {
    if (seen.key && outcome.first->priority == seen.key->priority) return true;
    return outcome.first_clear;
}

}  // namespace

bool finish_pick(PickStart& s, bool same_queue, const StartSeen& seen, int32_t version,
                 const PickOutcome& outcome, int64_t now) {
    if (seen.renews) s.renewing = false;
    if (seen.reader < 0) return false;
    PickReader& r = s.readers[seen.reader];
    const PickReader folded = r;
    r = PickReader{};
    if (!outcome.usable || folded.unknown) return false;
    if (!seen.key && !outcome.engage) {
        if (same_queue && s.version == version) s.valid = false;
        return false;
    }
    if (!outcome.first) {
        // Nothing to take from the start on: it holds, renewed.
        if (seen.renews && same_queue && s.valid && s.version == version) {
            if (folded.any && picked_before(folded.earliest, s.key)) s.key = folded.earliest;
            s.anchored_at = now;
        }
        return false;
    }
    if (!may_start_at(seen, outcome)) return false;
    PickKey key = *outcome.first;
    if (folded.any && picked_before(folded.earliest, key)) key = folded.earliest;
    s.valid = true;
    s.version = version;
    s.key = key;
    s.anchored_at = seen.key ? seen.anchored_at : now;
    return true;
}

}  // namespace fetchq::core
