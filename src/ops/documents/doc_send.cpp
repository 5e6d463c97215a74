#include "ops/documents/doc_send.hpp"

#include "core/error.hpp"
#include "ops/documents/doc_push.hpp"

namespace fetchq::ops {

int64_t send(const SendDoc& doc, Oid caller) {
    if (!doc.depends_on.empty() || doc.reply_to)
        throw core::Error(core::sqlstate::kFeatureNotSupported,
                          "doc_send does not take depends_on or reply_to yet");
    return push_one(doc.queue, doc.subject, doc.version, doc.priority, doc.next_iteration,
                    doc.payload, doc.payload_null,
                    doc.expires_at ? Expiry::given(doc.expires_at) : Expiry::queue_default());
}

}  // namespace fetchq::ops
