#include "ops/documents/route_delivery.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/routes/remote_outbox.hpp"
#include "ops/routes/route_rights.hpp"
#include "ops/routes/route_selector.hpp"
#include "ops/counters/counters.hpp"
#include "pg/as_user.hpp"
#include "pg/guard.hpp"
#include "pg/spi.hpp"

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

// The queues a delivery went through, from the queue pushed into: a cycle
// that plain DML on fetchq.routes closed (route_create refuses one) stops
// here instead of recursing.
std::vector<std::string>& delivery_path() {
    static std::vector<std::string> path;
    return path;
}

std::string path_text(const std::vector<std::string>& queues) {
    std::string out;
    for (const std::string& q : queues) out += (out.empty() ? "" : " -> ") + q;
    return out;
}

// One route on the path while its delivery runs.
class PathStep {
  public:
    explicit PathStep(const Route& route) : root_(delivery_path().empty()) {
        std::vector<std::string>& path = delivery_path();
        if (root_) path.push_back(route.source);
        if (std::find(path.begin(), path.end(), route.destination) != path.end()) {
            const std::string cycle = path_text(path) + " -> " + route.destination;
            if (root_) path.pop_back();  // no destructor runs after a throw here
            throw core::Error(core::sqlstate::kObjectNotInPrerequisiteState,
                              "routes form a cycle: " + cycle,
                              "Route " + std::to_string(route.id) + " from queue \"" +
                                  route.source + "\" to queue \"" + route.destination +
                                  "\" leads back to a queue the document came through.",
                              "Drop one of these routes with fetchq.route_drop().");
        }
        path.push_back(route.destination);
    }
    ~PathStep() {
        delivery_path().pop_back();
        if (root_) delivery_path().pop_back();
    }
    PathStep(const PathStep&) = delete;
    PathStep& operator=(const PathStep&) = delete;

  private:
    bool root_;
};

[[noreturn]] void refuse_delivery(const Route& route, const std::string& why) {
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      "route " + std::to_string(route.id) + " from queue \"" + route.source +
                          "\" to queue \"" + route.destination + "\" may not deliver",
                      why,
                      "Give that role the right again, or drop the route with "
                      "fetchq.route_drop('" +
                          route.source + "', '" + route.destination + "').");
}

// The creator must still exist, read every document of the source and be
// allowed to push into the destination (ops/routes/route_rights.hpp). Returns the
// destination's owner, as whom the copy is inserted: the owner's triggers
// then run with the owner's rights, never with those of a privileged role
// that made the route. A destination without tables is left to the push,
// which says the queue does not exist.
Oid check_delivery(const Route& route) {
    // A copy of an arrival counted on the pusher's behalf is counted so too.
    if (metric_is_on_behalf(route.source)) metric_on_behalf(route.destination);
    const RouteRights rights = route_rights(route.source, route.destination, route.owner);
    if (!rights.role_exists)
        refuse_delivery(route,
                        "Its creator, role " + std::to_string(route.owner) + ", no longer exists.");
    if (!rights.destination_exists) return route.owner;
    if (may_route(rights)) return rights.destination_owner;
    const char* role = pg_call([&] { return GetUserNameFromId(route.owner, true); });
    refuse_delivery(route, route_refusal(rights, "Its creator, role \"" + std::string(role) + "\",",
                                         route.source, route.destination));
}

Datum datum_array(const std::vector<Datum>& elems, const std::vector<bool>* nulls, Oid type) {
    return pg_call([&] {
        int16 len;
        bool byval;
        char align;
        get_typlenbyvalalign(type, &len, &byval, &align);
        const int n = static_cast<int>(elems.size());
        bool* isnull = static_cast<bool*>(palloc0(sizeof(bool) * (n > 0 ? n : 1)));
        for (int i = 0; nulls != nullptr && i < n; ++i) isnull[i] = (*nulls)[i];
        int dims[1] = {n};
        int lbs[1] = {1};
        return PointerGetDatum(construct_md_array(const_cast<Datum*>(elems.data()), isnull, 1, dims,
                                                  lbs, type, len, byval, align));
    });
}

// The documents of `docs` that the route's selector matches.
std::vector<size_t> matching(const Route& route, const Arrivals& docs,
                             const std::vector<Datum>& variables) {
    std::vector<size_t> out;
    for (size_t i = 0; i < docs.subjects.size(); ++i) {
        if (route.selector.empty() ||
            selector_matches(route.selector_datum(), docs.payloads[i], docs.payload_nulls[i],
                             route.uses_variables ? variables[i] : 0))
            out.push_back(i);
    }
    return out;
}

}  // namespace

int64_t deliver(const QueueRoutes& from, const Arrival& doc) {
    if (from.routes.empty()) return 0;
    const Datum variables =
        from.any_variables ? selector_variables(to_text(doc.subject), doc.version, doc.priority)
                           : 0;
    int64_t received = 0;
    for (const Route& route : from.routes) {
        if (!route.selector.empty() &&
            !selector_matches(route.selector_datum(), doc.payload, doc.payload_null,
                              route.uses_variables ? variables : 0))
            continue;
        if (route.remote) {
            received += remote_send(
                route, {to_text(doc.subject), doc.version, doc.priority, doc.next_iteration,
                        doc.payload, doc.payload_null, doc.expires_at});
            continue;
        }
        PathStep step(route);
        as_user(check_delivery(route), [&] {
            received += push_one(route.destination, doc.subject, doc.version, doc.priority,
                                 doc.next_iteration, doc.payload, doc.payload_null,
                                 Expiry::given(doc.expires_at), doc.flow_key);
        });
    }
    return received;
}

int64_t deliver(const QueueRoutes& from, const Arrivals& docs) {
    if (from.routes.empty() || docs.subjects.empty()) return 0;
    std::vector<Datum> variables;
    if (from.any_variables)
        for (size_t i = 0; i < docs.subjects.size(); ++i)
            variables.push_back(selector_variables(docs.subjects[i], docs.version,
                                                   DatumGetInt32(docs.priorities[i])));
    int64_t received = 0;
    for (const Route& route : from.routes) {
        const std::vector<size_t> picked = matching(route, docs, variables);
        if (picked.empty()) continue;
        if (route.remote) {
            for (size_t i : picked)
                received +=
                    remote_send(route, {docs.subjects[i], docs.version,
                                        DatumGetInt32(docs.priorities[i]), docs.next_iteration,
                                        docs.payloads[i], docs.payload_nulls[i], docs.expires_at});
            continue;
        }
        std::vector<Datum> subjects, priorities, payloads;
        std::vector<bool> payload_nulls;
        for (size_t i : picked) {
            subjects.push_back(docs.subjects[i]);
            priorities.push_back(docs.priorities[i]);
            payloads.push_back(docs.payloads[i]);
            payload_nulls.push_back(docs.payload_nulls[i]);
        }
        const Datum subject_array = datum_array(subjects, nullptr, TEXTOID);
        const Datum priority_array = datum_array(priorities, nullptr, INT4OID);
        const Datum payload_array = datum_array(payloads, &payload_nulls, JSONBOID);
        PathStep step(route);
        as_user(check_delivery(route), [&] {
            received +=
                push_batch(route.destination, subject_array, priority_array, payload_array,
                           docs.version, docs.next_iteration, Expiry::given(docs.expires_at));
        });
    }
    return received;
}

}  // namespace fetchq::ops
