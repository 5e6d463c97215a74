#include "ops/streams/stream_locks.hpp"

#include "pg/guard.hpp"
#include "pg/postgres.hpp"

extern "C" {
#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/lock.h"
}

namespace fetchq::ops {

namespace {

constexpr uint16 kClaimClass = 71;
constexpr uint16 kStreamClass = 72;

uint64 hash_of(int32_t stream_id, const std::string& group, const std::string& key) {
    const uint64 h =
        hash_bytes_extended(reinterpret_cast<const unsigned char*>(key.data()),
                            static_cast<int>(key.size()), static_cast<uint64>(stream_id));
    return hash_bytes_extended(reinterpret_cast<const unsigned char*>(group.data()),
                               static_cast<int>(group.size()), h);
}

}  // namespace

namespace {

LockAcquireResult acquire(int32_t stream_id, const std::string& group, const std::string& key,
                          bool wait) {
    const uint64 hash = hash_of(stream_id, group, key);
    return pg::pg_call([&] {
        LOCKTAG tag;
        SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, static_cast<uint32>(hash >> 32),
                             static_cast<uint32>(hash), kClaimClass);
        return LockAcquire(&tag, ExclusiveLock, false, !wait);
    });
}

}  // namespace

bool try_lock_key_for_claim(int32_t stream_id, const std::string& group, const std::string& key) {
    return acquire(stream_id, group, key, false) != LOCKACQUIRE_NOT_AVAIL;
}

void lock_key_for_release(int32_t stream_id, const std::string& group, const std::string& key) {
    acquire(stream_id, group, key, true);
}

namespace {

LockAcquireResult acquire_stream(int32_t stream_id, LOCKMODE mode) {
    return pg::pg_call([&] {
        LOCKTAG tag;
        SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, static_cast<uint32>(stream_id), 0, kStreamClass);
        return LockAcquire(&tag, mode, false, false);
    });
}

}  // namespace

bool lock_stream_shared(int32_t stream_id) {
    return acquire_stream(stream_id, ShareLock) != LOCKACQUIRE_ALREADY_HELD;
}

void lock_stream_for_drop(int32_t stream_id) { acquire_stream(stream_id, AccessExclusiveLock); }

}  // namespace fetchq::ops
