#include "pg/replication.hpp"

#include "pg/guard.hpp"

extern "C" {
#include "access/xlog.h"
#include "replication/logicalworker.h"
#include "replication/walreceiver.h"
#include "replication/worker_internal.h"
}

namespace fetchq::pg {

namespace {

// Plain C below: PG_TRY frames with nothing that has a destructor.
struct Command {
    const char* conninfo;
    const char* text;  // SQL or a replication command
    const char* slot;  // for CREATE_REPLICATION_SLOT
    bool rows;         // filled with whether the query returned a row
};

WalReceiverConn* connect_to(const char* conninfo) {
    load_file("libpqwalreceiver", false);
    char* err = nullptr;
    WalReceiverConn* conn = walrcv_connect(conninfo, true, "fetchq", &err);
    if (conn == nullptr)
        ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE),
                        errmsg("could not connect to the publishing server: %s", err),
                        errhint("Check the conninfo given to fetchq.remote_subscribe().")));
    return conn;
}

void run_command(void* c) {
    auto* cmd = static_cast<Command*>(c);
    WalReceiverConn* conn = connect_to(cmd->conninfo);
    PG_TRY();
    {
        if (cmd->slot != nullptr) {
            XLogRecPtr lsn = InvalidXLogRecPtr;
            walrcv_create_slot(conn, cmd->slot, false, false, CRS_NOEXPORT_SNAPSHOT, &lsn);
        } else {
            Oid types[1] = {INT4OID};
            WalRcvExecResult* res = walrcv_exec(conn, cmd->text, 1, types);
            if (res->status != WALRCV_OK_COMMAND && res->status != WALRCV_OK_TUPLES)
                ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE),
                                errmsg("the publishing server refused \"%s\": %s", cmd->text,
                                       res->err ? res->err : "?")));
            cmd->rows = res->status == WALRCV_OK_TUPLES && res->tuplestore != nullptr &&
                        tuplestore_tuple_count(res->tuplestore) > 0;
            walrcv_clear_result(res);
        }
    }
    PG_FINALLY();
    { walrcv_disconnect(conn); }
    PG_END_TRY();
}

void run(Command* cmd) {
    if (ErrorData* failed = run_catching(run_command, cmd)) throw PgError(failed);
}

}  // namespace

uint64_t system_identifier() { return GetSystemIdentifier(); }

bool in_apply_worker(std::string* subscription) {
    if (!IsLogicalWorker() || MySubscription == nullptr) return false;
    if (subscription != nullptr) *subscription = MySubscription->name;
    return true;
}

bool remote_publication_exists(const std::string& conninfo, const std::string& name) {
    const std::string sql =
        "SELECT 1 FROM pg_catalog.pg_publication_tables WHERE schemaname = 'fetchq'"
        " AND tablename = 'remote_outbox' AND pubname = " +
        std::string(pg_call([&] { return quote_literal_cstr(name.c_str()); }));
    Command cmd{conninfo.c_str(), sql.c_str(), nullptr, false};
    run(&cmd);
    return cmd.rows;
}

void remote_create_slot(const std::string& conninfo, const std::string& slot) {
    Command cmd{conninfo.c_str(), nullptr, slot.c_str(), false};
    run(&cmd);
}

void remote_drop_slot(const std::string& conninfo, const std::string& slot) {
    const std::string sql = "DROP_REPLICATION_SLOT " +
                            std::string(pg_call([&] { return quote_identifier(slot.c_str()); })) +
                            " WAIT";
    Command cmd{conninfo.c_str(), sql.c_str(), nullptr, false};
    run(&cmd);
}

}  // namespace fetchq::pg
