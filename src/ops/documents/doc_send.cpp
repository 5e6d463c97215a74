#include "ops/documents/doc_send.hpp"

#include "core/error.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/documents/doc_reply.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/routes/route_cache.hpp"

extern "C" {
#include "datatype/timestamp.h"
}

namespace fetchq::ops {

namespace {

// A waiting document is not delivered through routes: a copy would wait on
// nothing, or forever.
void refuse_routed_wait(const std::string& queue) {
    const std::shared_ptr<const QueueRoutes> routes = routes_from(queue);
    if (!routes->is_topic && routes->routes.empty()) return;
    throw core::Error(core::sqlstate::kFeatureNotSupported,
                      std::string("depends_on is not supported for ") +
                          (routes->is_topic ? "topic" : "queue with routes") + " \"" + queue + "\"",
                      "A copy delivered through a route would not wait for the dependencies.",
                      "Send the waiting document into the destination queues themselves.");
}

// The reply queue must exist when the request is sent; a topic keeps no
// request to answer.
void check_reply_to(const std::string& queue, const std::string& reply_to) {
    if (!OidIsValid(queue_owner_or_invalid(reply_to)))
        throw core::Error(core::sqlstate::kUndefinedObject,
                          "reply queue \"" + reply_to + "\" does not exist", {},
                          "Create it first, usually with fetchq.queue_create_temporary().");
    if (routes_from(queue)->is_topic)
        throw core::Error(core::sqlstate::kFeatureNotSupported,
                          "reply_to is not supported for topic \"" + queue + "\"",
                          "A topic keeps no document to answer.", "Send the request into a queue.");
}

}  // namespace

int64_t send(const SendDoc& doc, Oid caller) {
    if (doc.reply_to) check_reply_to(doc.queue, *doc.reply_to);
    if (doc.requeue_finished) check_requeue_target(doc.queue);
    const std::vector<DocRef> waits_on = doc.depends_on.empty()
                                             ? std::vector<DocRef>()
                                             : unfinished_dependencies(doc.depends_on, caller);
    if (!waits_on.empty()) refuse_routed_wait(doc.queue);
    // A waiting document is planned for 'infinity': never promoted, never
    // picked, until its last dependency is completed.
    const TimestampTz next_iteration = waits_on.empty() ? doc.next_iteration : DT_NOEND;
    const Expiry expiry = doc.expires_at ? Expiry::given(doc.expires_at) : Expiry::queue_default();
    int64_t n = push_one(doc.queue, doc.subject, doc.version, doc.priority, next_iteration,
                         doc.payload, doc.payload_null, expiry, doc.flow_key);
    if (n == 0 && doc.requeue_finished) {
        // The subject exists: a requeue would change it, which takes pick.
        require_change(doc.queue, doc.subject, caller, "doc_send with if_finished => 'requeue'");
        n = requeue_finished(doc.queue, doc.subject, doc.version, doc.priority, next_iteration,
                             doc.payload, doc.payload_null, expiry, doc.flow_key);
    }
    if (n > 0 && !waits_on.empty())
        record_wait(doc.queue, doc.subject, doc.next_iteration, waits_on);
    if (n > 0 && doc.reply_to) {
        record_reply_to(doc.queue, doc.subject, *doc.reply_to);
        // Its completion or kill, however made, forgets the row.
        mark_awaited(doc.queue);
    }
    return n;
}

}  // namespace fetchq::ops
