#include "ops/remote_routes/remote_routes.hpp"

#include <algorithm>
#include <unordered_map>

#include "core/error.hpp"
#include "core/queue_name.hpp"
#include "ops/catalog/catalog_owner.hpp"
#include "ops/documents/doc_push.hpp"
#include "ops/queues/queue_access.hpp"
#include "ops/queues/queue_sql.hpp"
#include "ops/routes/remote_outbox.hpp"
#include "ops/routes/route_rights.hpp"
#include "ops/routes/route_selector.hpp"
#include "pg/replication.hpp"
#include "pg/result.hpp"
#include "pg/spi.hpp"

extern "C" {
#include "utils/acl.h"
}

namespace fetchq::ops {

using namespace fetchq::pg;

namespace {

std::string route_name(const std::string& source, const RemoteDestination& to) {
    return "remote route from queue \"" + source + "\" to \"" + to.link + "/" + to.queue + "\"";
}

Oid me() {
    return pg_call([] { return GetUserId(); });
}

void require_superuser(const char* what) {
    if (pg_call([] { return superuser(); })) return;
    throw core::Error(core::sqlstate::kInsufficientPrivilege,
                      std::string("must be superuser to ") + what,
                      "It creates or drops a subscription, which only a superuser may do in "
                      "PostgreSQL 15.",
                      "Ask a superuser; deliveries are checked with the rights of the role it "
                      "names (as_role), never a superuser's.");
}

std::vector<std::string> text_items(Datum array) {
    std::vector<std::string> out;
    Datum* elems = nullptr;
    bool* nulls = nullptr;
    int n = 0;
    pg_call([&] {
        deconstruct_array(DatumGetArrayTypeP(array), TEXTOID, -1, false, TYPALIGN_INT, &elems,
                          &nulls, &n);
    });
    for (int i = 0; i < n; ++i) {
        if (nulls[i]) continue;
        const Datum e = elems[i];
        out.emplace_back(pg_call([&] { return TextDatumGetCString(e); }));
    }
    return out;
}

// Counts what happened to one arrival in the link's row.
void count_arrival(const std::string& link, int delivered, int skipped, int looped, int refused,
                   const std::string& refusal) {
    SPIPlanPtr plan =
        cached_plan("", "remote_subscription_count",
                    [] {
                        return std::string(
                            "UPDATE fetchq.remote_subscriptions SET delivered = delivered + $2,"
                            " skipped = skipped + $3, looped = looped + $4, refused = refused + $5,"
                            " last_arrival = CASE WHEN $2 > 0 THEN pg_catalog.clock_timestamp()"
                            " ELSE last_arrival END, last_refusal = COALESCE($6, last_refusal)"
                            " WHERE link = $1");
                    },
                    {TEXTOID, INT4OID, INT4OID, INT4OID, INT4OID, TEXTOID});
    Datum values[6] = {to_text(link),          Int32GetDatum(delivered),
                       Int32GetDatum(skipped), Int32GetDatum(looped),
                       Int32GetDatum(refused), refusal.empty() ? 0 : to_text(refusal)};
    const char nulls[6] = {' ', ' ', ' ', ' ', ' ', refusal.empty() ? 'n' : ' '};
    as_catalog_owner([&] { spi_execute(plan, values, nulls, false); });
}

void refuse_arrival(const Incoming& doc, const std::string& why) {
    const std::string text = "document \"" + doc.subject + "\" for queue \"" + doc.queue +
                             "\" from " + doc.source_db + " refused: " + why;
    pg_call([&] {
        ereport(WARNING,
                (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                 errmsg("remote route of link \"%s\": %s", doc.link.c_str(), text.c_str())));
    });
    count_arrival(doc.link, 0, 0, 0, 1, text);
}

}  // namespace

RemoteDestination parse_remote_destination(const std::string& text) {
    const size_t slash = text.find('/');
    if (slash == std::string::npos)
        throw core::Error(core::sqlstate::kInvalidParameterValue,
                          "destination \"" + text + "\" does not name a remote queue",
                          "A remote destination reads \"link/queue\": the name the receiving "
                          "database subscribed under with fetchq.remote_subscribe(), and the "
                          "queue there.",
                          "For example 'billing/invoices'.");
    RemoteDestination to{text.substr(0, slash), text.substr(slash + 1)};
    core::check_queue_name(to.link, "destination (its link)");
    core::check_queue_name(to.queue, "destination (its queue)");
    return to;
}

std::string link_publication(const std::string& link) { return "fetchq_remote_" + link; }

int64_t create_remote_route(const std::string& source, const RemoteDestination& to,
                            const std::optional<std::string>& selector) {
    const RouteRights rights = route_rights(source, source, me());
    if (!rights.source_exists) throw_queue_missing(source);
    if (!rights.may_read || rights.filtered)
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "permission denied to create a " + route_name(source, to),
                          route_refusal(rights, "The role", source, source),
                          "A remote route sends with its creator's rights: a role may route only "
                          "all the documents of a queue it may read.");
    const Datum path = selector ? parse_selector(*selector) : 0;
    const Oid creator = me();
    SPIPlanPtr insert = cached_plan(
        "", "remote_route_insert",
        [] {
            return std::string(
                "INSERT INTO fetchq.remote_routes (source, link, queue, selector, owner)"
                " VALUES ($1, $2, $3, $4, $5::pg_catalog.regrole)"
                " ON CONFLICT (source, link, queue) DO NOTHING RETURNING id");
        },
        {TEXTOID, TEXTOID, TEXTOID, JSONPATHOID, OIDOID});
    // Whether the publication exists, and whether it carries the outbox (a
    // restored dump has the publication without it: pg_dump leaves out the
    // tables of extensions).
    SPIPlanPtr find_pub =
        cached_plan("", "remote_publication_find",
                    [] {
                        return std::string(
                            "SELECT EXISTS (SELECT FROM pg_catalog.pg_publication_tables"
                            " WHERE pubname = p.pubname AND schemaname = 'fetchq'"
                            " AND tablename = 'remote_outbox')"
                            " FROM pg_catalog.pg_publication AS p WHERE p.pubname = $1");
                    },
                    {TEXTOID});
    Datum values[5] = {to_text(source), to_text(to.link), to_text(to.queue), path,
                       ObjectIdGetDatum(creator)};
    const char nulls[5] = {' ', ' ', ' ', selector ? ' ' : 'n', ' '};
    int64_t id = 0;
    const std::string pub = link_publication(to.link);
    as_catalog_owner([&] {
        if (spi_execute(insert, values, nulls, false) > 0) id = spi_int(0, 1);
        if (id == 0) return;
        Datum name = to_text(pub);
        const std::string table =
            "fetchq.remote_outbox WHERE (link = " + quote_literal(to.link) + ")";
        if (spi_execute(find_pub, &name, nullptr, true, 1) > 0) {
            bool isnull = false;
            if (!DatumGetBool(spi_value(0, 1, &isnull)))
                spi_execute_text("ALTER PUBLICATION " + quote_ident(pub) + " ADD TABLE " + table);
            return;
        }
        // Inserts only: the outbox's rows are deleted again in the pushing
        // transaction, and that delete must not be sent.
        spi_execute_text("CREATE PUBLICATION " + quote_ident(pub) + " FOR TABLE " + table +
                         " WITH (publish = 'insert')");
    });
    if (id == 0)
        throw core::Error(core::sqlstate::kDuplicateObject,
                          "a " + route_name(source, to) + " already exists", {},
                          "Drop it first with fetchq.remote_route_drop() to change its selector.");
    return id;
}

int64_t drop_remote_route(const std::string& source, const RemoteDestination& to) {
    SPIPlanPtr find = cached_plan("", "remote_route_find",
                                  [] {
                                      return std::string(
                                          "SELECT id, owner::oid FROM fetchq.remote_routes"
                                          " WHERE source = $1 AND link = $2 AND queue = $3");
                                  },
                                  {TEXTOID, TEXTOID, TEXTOID});
    Datum values[3] = {to_text(source), to_text(to.link), to_text(to.queue)};
    uint64_t found = 0;
    as_catalog_owner([&] { found = spi_execute(find, values, nullptr, true, 1); });
    if (found == 0)
        throw core::Error(core::sqlstate::kUndefinedObject,
                          "a " + route_name(source, to) + " does not exist", {},
                          "The remote routes are listed in fetchq.remote_route_status.");
    const int64_t id = spi_int(0, 1);
    bool isnull = false;
    const Oid creator = DatumGetObjectId(spi_value(0, 2, &isnull));
    const Oid source_owner = queue_owner_or_invalid(source);
    const bool allowed = pg_call([&] {
        const Oid self = GetUserId();
        return has_privs_of_role(self, creator) ||
               (OidIsValid(source_owner) && has_privs_of_role(self, source_owner));
    });
    if (!allowed)
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "must be the creator of the " + route_name(source, to), {},
                          "Only its creator, the owner of the source queue, or a superuser may "
                          "drop it.");
    SPIPlanPtr remove = cached_plan(
        "", "remote_route_delete",
        [] { return std::string("DELETE FROM fetchq.remote_routes WHERE id = $1"); }, {INT8OID});
    Datum arg = Int64GetDatum(id);
    as_catalog_owner([&] { spi_execute(remove, &arg, nullptr, false); });
    return id;
}

void remote_subscribe(const std::string& link, const std::string& conninfo, Oid as_role,
                      bool create_slot) {
    require_superuser("subscribe to a remote route's link");
    const std::string name = link_publication(link);
    if (!remote_publication_exists(conninfo, name))
        throw core::Error(
            core::sqlstate::kObjectNotInPrerequisiteState,
            "the publishing database has no publication \"" + name + "\" of fetchq.remote_outbox",
            "It is created by the first remote route to \"" + link +
                "/...\", and made whole again by the next one (a restored dump "
                "has it without the table).",
            "Create a remote route to this link there first, with "
            "fetchq.remote_route_create(source, '" +
                link + "/queue').");
    SPIPlanPtr insert =
        cached_plan("", "remote_subscription_insert",
                    [] {
                        return std::string(
                            "INSERT INTO fetchq.remote_subscriptions (link, as_role, owner)"
                            " VALUES ($1, $2::pg_catalog.regrole, $3::pg_catalog.regrole)"
                            " ON CONFLICT (link) DO NOTHING");
                    },
                    {TEXTOID, OIDOID, OIDOID});
    Datum values[3] = {to_text(link), ObjectIdGetDatum(as_role), ObjectIdGetDatum(me())};
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(insert, values, nullptr, false); });
    if (n == 0)
        throw core::Error(core::sqlstate::kDuplicateObject,
                          "this database already subscribes to link \"" + link + "\"", {},
                          "Drop it first with fetchq.remote_unsubscribe('" + link + "').");
    // As the caller (a superuser): the subscription is theirs. The slot is
    // made separately, last, as CREATE SUBSCRIPTION makes it: create_slot
    // would refuse to run inside a function.
    spi_execute_text(
        "CREATE SUBSCRIPTION " + quote_ident(name) + " CONNECTION " + quote_literal(conninfo) +
        " PUBLICATION " + quote_ident(name) +
        " WITH (create_slot = false, copy_data = false, slot_name = " + quote_literal(name) + ")");
    if (create_slot) remote_create_slot(conninfo, name);
}

void remote_unsubscribe(const std::string& link, bool drop_slot) {
    require_superuser("unsubscribe from a remote route's link");
    const std::string name = link_publication(link);
    SPIPlanPtr find = cached_plan(
        "", "remote_subscription_find",
        [] {
            return std::string(
                "SELECT subconninfo, subslotname::text FROM pg_catalog.pg_subscription"
                " WHERE subname = $1 AND subdbid = (SELECT oid FROM pg_catalog.pg_database"
                " WHERE datname = pg_catalog.current_database())");
        },
        {TEXTOID});
    Datum arg = to_text(name);
    std::string conninfo, slot;
    const bool exists = spi_execute(find, &arg, nullptr, true, 1) > 0;
    if (exists) {
        conninfo = spi_text(0, 1);
        const char* s = spi_text(0, 2);
        if (s != nullptr) slot = s;
        // DROP SUBSCRIPTION refuses to drop a slot inside a function: the
        // subscription lets go of it first, and it is dropped below.
        spi_execute_text("ALTER SUBSCRIPTION " + quote_ident(name) + " DISABLE");
        spi_execute_text("ALTER SUBSCRIPTION " + quote_ident(name) + " SET (slot_name = NONE)");
        spi_execute_text("DROP SUBSCRIPTION " + quote_ident(name));
    }
    SPIPlanPtr remove = cached_plan(
        "", "remote_subscription_delete",
        [] { return std::string("DELETE FROM fetchq.remote_subscriptions WHERE link = $1"); },
        {TEXTOID});
    Datum l = to_text(link);
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(remove, &l, nullptr, false); });
    if (!exists && n == 0)
        throw core::Error(core::sqlstate::kUndefinedObject,
                          "this database does not subscribe to link \"" + link + "\"", {},
                          "The links are listed in fetchq.remote_subscription_status.");
    if (drop_slot && !slot.empty()) remote_drop_slot(conninfo, slot);
}

void receive(const Incoming& doc) {
    set_arrival_origin(nullptr);
    std::string subscription;
    if (!in_apply_worker(&subscription))
        throw core::Error(core::sqlstate::kInsufficientPrivilege,
                          "rows of fetchq.remote_outbox are written by fetchq alone", {},
                          "Push into a queue with a remote route (fetchq.remote_route_create).");
    if (subscription != link_publication(doc.link)) {
        refuse_arrival(doc, "it came through subscription \"" + subscription +
                                "\", not the link's own (fetchq.remote_subscribe)");
        return;
    }
    SPIPlanPtr find =
        cached_plan("", "remote_subscription_role",
                    [] {
                        return std::string(
                            "SELECT as_role::oid FROM fetchq.remote_subscriptions WHERE link = $1");
                    },
                    {TEXTOID});
    Datum l = to_text(doc.link);
    uint64_t found = 0;
    as_catalog_owner([&] { found = spi_execute(find, &l, nullptr, true, 1); });
    if (found == 0) {
        refuse_arrival(doc, "the link is not in fetchq.remote_subscriptions");
        return;
    }
    bool isnull = false;
    const Oid as_role = DatumGetObjectId(spi_value(0, 1, &isnull));
    const std::string here = this_database();
    // Back in a database it passed through: a cycle of routes ends here.
    if (std::find(doc.seenby.begin(), doc.seenby.end(), here) != doc.seenby.end()) {
        count_arrival(doc.link, 0, 0, 1, 0, {});
        return;
    }
    // Checked as a local route's creator is at each delivery
    // (ops/routes/route_rights.hpp), for the destination's half.
    const RouteRights rights = route_rights(doc.queue, doc.queue, as_role);
    std::string why;
    if (!rights.role_exists)
        why = "its role (as_role, " + std::to_string(as_role) + ") no longer exists";
    else if (!rights.destination_exists)
        why = "queue \"" + doc.queue + "\" does not exist";
    else if (!rights.may_push || rights.push_filtered) {
        const char* role = pg_call([&] { return GetUserNameFromId(as_role, true); });
        why = "role \"" + std::string(role ? role : "?") + "\" may not push into queue \"" +
              doc.queue + "\"" +
              (rights.may_push ? " but through row security, and a copy is inserted as the "
                                 "queue's owner"
                               : "");
    }
    if (!why.empty()) {
        refuse_arrival(doc, why);
        return;
    }
    Origin origin{doc.source_db, doc.seenby};
    origin.seenby.push_back(here);
    int64_t n = 0;
    set_arrival_origin(&origin);
    // As the destination's owner, restricted, as a local route's copy: its
    // triggers never run as the subscription's owner (a superuser). They
    // fire as for any push: the apply worker's replica role is set back to
    // origin for the push.
    as_user(rights.destination_owner, [&] {
        with_origin_role([&] {
            n = push_one(doc.queue, doc.subject, doc.version, doc.priority, doc.next_iteration,
                         doc.payload, doc.payload_null, Expiry::given(doc.expires_at));
        });
    });
    set_arrival_origin(nullptr);
    if (n == 0) {
        count_arrival(doc.link, 0, 1, 0, 0, {});
        return;
    }
    // doc_created_at is the document's created_at: push_one inserted it with
    // now(), in this transaction. A row left by an earlier document of the
    // subject (gone before the sweep came) is replaced.
    SPIPlanPtr record = cached_plan(
        "", "doc_origin_insert",
        [] {
            return std::string(
                "INSERT INTO fetchq.doc_origins AS o (queue, subject, source_db, seenby, link,"
                " sent_at, arrived_at, doc_created_at) VALUES ($1, $2, $3, $4, $5, $6,"
                " pg_catalog.clock_timestamp(), pg_catalog.now()) ON CONFLICT (queue, subject)"
                " DO UPDATE SET source_db = EXCLUDED.source_db, seenby = EXCLUDED.seenby,"
                " link = EXCLUDED.link, sent_at = EXCLUDED.sent_at,"
                " arrived_at = EXCLUDED.arrived_at, doc_created_at = EXCLUDED.doc_created_at");
        },
        {TEXTOID, TEXTOID, TEXTOID, TEXTARRAYOID, TEXTOID, TIMESTAMPTZOID});
    const TimestampTz sent = doc.sent_at;
    Datum values[6] = {to_text(doc.queue),        to_text(doc.subject), to_text(doc.source_db),
                       text_array(origin.seenby), to_text(doc.link),    TimestampTzGetDatum(sent)};
    const char nulls[6] = {' ', ' ', ' ', ' ', ' ', sent != 0 ? ' ' : 'n'};
    as_catalog_owner([&] { spi_execute(record, values, nulls, false); });
    count_arrival(doc.link, 1, 0, 0, 0, {});
}

DocOrigin doc_origin(const std::string& queue, const std::string& subject) {
    require_queue_privilege(queue, core::QueuePrivilege::kRead);
    SPIPlanPtr plan = cached_plan(
        "", "doc_origin_read",
        [] {
            return std::string(
                "SELECT source_db, seenby, link::text, sent_at, arrived_at, doc_created_at"
                " FROM fetchq.doc_origins WHERE queue = $1 AND subject = $2");
        },
        {TEXTOID, TEXTOID});
    Datum values[2] = {to_text(queue), to_text(subject)};
    DocOrigin out;
    uint64_t n = 0;
    as_catalog_owner([&] { n = spi_execute(plan, values, nullptr, true, 1); });
    if (n == 0) return out;
    bool isnull = false;
    const TimestampTz created = DatumGetTimestampTz(spi_value(0, 6, &isnull));
    DocOrigin found;
    found.found = true;
    found.source_db = spi_text(0, 1);
    found.seenby = text_items(spi_value(0, 2, &isnull));
    found.link = spi_text(0, 3);
    const Datum sent = spi_value(0, 4, &isnull);
    if (!isnull) found.sent_at = DatumGetTimestampTz(sent);
    found.arrived_at = DatumGetTimestampTz(spi_value(0, 5, &isnull));
    // The row describes the document in the queue only if that is the one
    // delivered: not when it went (the sweep has not come yet) or was pushed
    // again here under its subject. Read as the queue's owner: the caller
    // may read the queue through a grant.
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) throw_queue_missing(queue);
    bool same = false;
    pg::as_user(owner, [&] {
        SPIPlanPtr doc = queue_plan(
            queue, "origin_doc",
            [&] { return "SELECT created_at FROM " + docs_rel(queue) + " WHERE subject = $1"; },
            {TEXTOID});
        Datum arg = to_text(subject);
        if (queue_execute(queue, doc, &arg, nullptr, true, 1) == 0) return;
        bool null = false;
        const Datum c = spi_value(0, 1, &null);
        same = !null && DatumGetTimestampTz(c) == created;
    });
    return same ? found : out;
}

void forget_queue_origins(const std::string& queue) {
    SPIPlanPtr plan = cached_plan(
        "", "doc_origins_forget_queue",
        [] { return std::string("DELETE FROM fetchq.doc_origins WHERE queue = $1"); }, {TEXTOID});
    Datum arg = to_text(queue);
    as_catalog_owner([&] { spi_execute(plan, &arg, nullptr, false); });
}

std::vector<std::string> queues_with_origins() {
    // One probe of the primary key per queue.
    SPIPlanPtr plan =
        cached_plan("", "doc_origins_queues",
                    [] {
                        return std::string(
                            "SELECT q.name::text FROM fetchq.queues AS q WHERE EXISTS (SELECT FROM"
                            " fetchq.doc_origins AS o WHERE o.queue = q.name) ORDER BY q.name");
                    },
                    {});
    std::vector<std::string> out;
    as_catalog_owner([&] {
        const uint64_t n = spi_execute(plan, nullptr, nullptr, true);
        for (uint64_t row = 0; row < n; ++row) out.emplace_back(spi_text(row, 1));
    });
    return out;
}

OriginSweep sweep_origins(const std::string& queue, const std::string& after, int32_t batch) {
    OriginSweep out;
    const Oid owner = queue_owner_or_invalid(queue);
    if (!OidIsValid(owner)) return out;  // dropped, or being restored
    // The next rows of the queue after `after`, read without a lock: a
    // pass writes nothing to the rows it keeps.
    SPIPlanPtr next = cached_plan(
        "", "doc_origins_next",
        [] {
            return std::string(
                "SELECT subject, doc_created_at FROM fetchq.doc_origins WHERE queue = $1"
                " AND subject > $2 ORDER BY subject LIMIT $3");
        },
        {TEXTOID, TEXTOID, INT4OID});
    Datum values[3] = {to_text(queue), to_text(after), Int32GetDatum(batch)};
    std::vector<std::string> subjects;
    std::vector<TimestampTz> created;
    as_catalog_owner([&] {
        const uint64_t n = spi_execute(next, values, nullptr, true);
        for (uint64_t row = 0; row < n; ++row) {
            subjects.emplace_back(spi_text(row, 1));
            bool isnull = false;
            created.push_back(DatumGetTimestampTz(spi_value(row, 2, &isnull)));
        }
    });
    out.checked = static_cast<int64_t>(subjects.size());
    out.at_end = subjects.size() < static_cast<std::size_t>(batch);
    if (subjects.empty()) return out;
    out.last = subjects.back();
    // Which of their documents are still the delivered ones (same
    // created_at), as the queue's owner; in a statement with a snapshot of
    // its own (not read-only), so that it sees the document of every row
    // read above: a delivery writes both in one transaction.
    std::unordered_map<std::string, TimestampTz> present;
    const auto text = [&] {
        return "SELECT subject::text, created_at FROM " + docs_rel(queue) +
               " WHERE subject = ANY ($1::text[])";
    };
    Datum arg = text_array(subjects);
    pg::as_user(owner, [&] {
        const uint64_t n =
            pg::has_plans(queue)
                ? queue_execute(queue, queue_plan(queue, "origin_docs", text, {TEXTARRAYOID}), &arg,
                                nullptr)
                : queue_execute_once(queue, text(), {TEXTARRAYOID}, &arg, nullptr);
        for (uint64_t row = 0; row < n; ++row) {
            bool isnull = false;
            const Datum c = spi_value(row, 2, &isnull);
            present.emplace(spi_text(row, 1), isnull ? TimestampTz(0) : DatumGetTimestampTz(c));
        }
    });
    if (!pg::has_plans(queue)) release_queue_relcache(queue);
    std::vector<std::string> stale;
    std::vector<Datum> stale_created;
    for (std::size_t i = 0; i < subjects.size(); ++i) {
        const auto doc = present.find(subjects[i]);
        if (doc != present.end() && doc->second == created[i]) continue;
        stale.push_back(subjects[i]);
        stale_created.push_back(TimestampTzGetDatum(created[i]));
    }
    if (stale.empty()) return out;
    // Each row as it was read: one a delivery replaced meanwhile (another
    // doc_created_at) stays. One it replaces after this delete waits for
    // this transaction, then inserts its row anew.
    SPIPlanPtr remove =
        cached_plan("", "doc_origins_remove",
                    [] {
                        return std::string(
                            "DELETE FROM fetchq.doc_origins AS o USING ROWS FROM"
                            " (pg_catalog.unnest($2::text[]), pg_catalog.unnest($3::timestamptz[]))"
                            " AS s(subject, created) WHERE o.queue = $1 AND o.subject = s.subject"
                            " AND o.doc_created_at = s.created");
                    },
                    {TEXTOID, TEXTARRAYOID, TIMESTAMPTZARRAYOID});
    const Datum when = pg_call([&] {
        return PointerGetDatum(
            construct_array(stale_created.data(), static_cast<int>(stale_created.size()),
                            TIMESTAMPTZOID, sizeof(TimestampTz), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
    });
    Datum del[3] = {to_text(queue), text_array(stale), when};
    as_catalog_owner(
        [&] { out.removed = static_cast<int64_t>(spi_execute(remove, del, nullptr, false)); });
    return out;
}

}  // namespace fetchq::ops
