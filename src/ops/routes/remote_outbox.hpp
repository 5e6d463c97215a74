// The sending half of remote routes (ops/remote_routes/README.md): a document
// that a remote route takes is written to fetchq.remote_outbox, in the
// pushing transaction, and deleted again at once. Logical decoding reads the
// insert from the WAL when the transaction commits and the publication
// fetchq_remote_<link> (publish = 'insert') sends it to the database
// subscribed as that link; a rollback sends nothing. The table stays empty.
//
// Each document carries where it comes from: the database it was first
// pushed in (source_db) and every database it arrived in since (seenby),
// each named "<system identifier>/<database name>", so that two servers'
// databases of one name are told apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/routes/route_cache.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

// "<system identifier>/<database name>" of this database.
const std::string& this_database();

struct Origin {
    std::string source_db;
    std::vector<std::string> seenby;  // this database last
};

// The origin of what is pushed now: set by the receiving half while it
// pushes a document that arrived (ops/remote_routes/inbox.hpp), so that a
// remote route out of the queue it lands in sends it on with its history.
// Without one, a document starts here.
void set_arrival_origin(const Origin* origin);

// True while remote_send inserts into fetchq.remote_outbox: the trigger of
// the receiving half lets that row in.
bool writing_outbox();

struct RemoteDoc {
    Datum subject = 0;  // text
    int32_t version = 0, priority = 0;
    TimestampTz next_iteration = 0;
    Datum payload = 0;
    bool payload_null = false;
    std::optional<TimestampTz> expires_at;
};

// Writes the document to the outbox for the remote route, once its creator
// is checked again (it must still exist and read every document of the
// source: 42501 otherwise). Returns 1. Needs SPI.
int64_t remote_send(const Route& route, const RemoteDoc& doc);

}  // namespace fetchq::ops
