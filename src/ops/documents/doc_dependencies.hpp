// Waiting documents (doc_send's depends_on): a document that may not be
// picked before other documents, in any queue, are completed.
//
// A waiting document is planned with next_iteration 'infinity' (never
// promoted, never picked; doc_take takes it). fetchq.doc_waits keeps the
// next_iteration it was sent with and how many of its dependencies are not
// completed; fetchq.doc_dependencies one row per dependency, indexed by the
// document waited on. Completing that document counts its dependents down
// and gives back their next_iteration when it was the last; killing it kills
// its waiting dependents, and theirs, in the same transaction. Both probe
// the index only for the queues of fetchq.awaited_queues (a per-backend
// flag, ops/catalog/catalog_cache.hpp); a queue nobody waits on costs
// nothing. The catalog is written as its owner (ops/catalog/catalog_owner.hpp);
// a dependent's documents and log as its queue's owner, in a
// security-restricted context, never as the role that completed or killed
// the dependency. Every function needs SPI.
#pragma once

#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// A document named by its queue and subject (SQL type fetchq.doc_ref).
struct DocRef {
    std::string queue;
    std::string subject;
};

// The dependencies of a document being sent that are not completed yet,
// each once, their rows locked (FOR SHARE) so that a completion under way
// either commits first or sees the wait. Refused, naming the document: one
// that does not exist (23503), one that was killed (22023), one in a queue
// where `caller` lacks read (42501).
std::vector<DocRef> unfinished_dependencies(const std::vector<DocRef>& refs, Oid caller);

// Records that `subject` of `queue`, just sent waiting, waits on `deps`
// (unfinished_dependencies' result, not empty) and is due at
// `next_iteration` once they are completed.
void record_wait(const std::string& queue, const std::string& subject, TimestampTz next_iteration,
                 const std::vector<DocRef>& deps);

// `subject` of `queue` was completed: its waiting dependents whose last
// dependency it was become planned or pending (and a request's reply queue
// is forgotten).
void release_dependents(const std::string& queue, const std::string& subject);

// `subject` of `queue` was killed (or left its queue otherwise, as `how`
// says: "expired", "dropped"): its waiting dependents are killed,
// transitively, each with a row in its queue's log naming the cause ("killed:
// it waited on q/s, expired").
void kill_dependents(const std::string& queue, const std::string& subject,
                     const char* how = "killed");

// Every document of `queue` is about to go (`how`: "dropped with its
// queue", "truncated with its queue"): the documents waiting on them, in
// other queues too, are killed, and its own waiting documents' waits are
// forgotten. Call it before the drop or the truncate, while the catalog
// still says who waits on what.
void forget_queue_documents(const std::string& queue, const char* how);

// A document deleted from its queue without being completed (expired,
// dropped): `waiting` when it was itself waiting (planned at 'infinity').
struct LeftDocument {
    std::string subject;
    bool waiting = false;
};

// Documents of `queue` deleted as `how` says: a waiting one's wait is
// forgotten (its subject may be sent again), the documents waiting on any of
// them are killed.
void forget_left_documents(const std::string& queue, const std::vector<LeftDocument>& left,
                           const char* how);

// `subject` of `queue`, a waiting document, was cancelled (doc_cancel): its
// wait is forgotten, so that its dependencies no longer count it down.
void forget_wait(const std::string& queue, const std::string& subject);

// Whether a document ever waited on one of the queue's, or one of its
// documents was a request (doc_send's reply_to): the cached flag. Only then
// does a completion or a kill there look at the catalog (waits, and the
// request's reply queue, forgotten).
bool queue_awaited(const std::string& queue);

// Lists the queue in fetchq.awaited_queues, unless the flag says it is.
void mark_awaited(const std::string& queue);

}  // namespace fetchq::ops
