#include "worker/database_guard.hpp"

#include "ops/shared_memory/pick_start.hpp"
#include "ops/shared_memory/shared_state.hpp"
#include "pg/guard.hpp"

extern "C" {
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "tcop/utility.h"
}

#include <signal.h>

namespace fetchq::worker {

using namespace fetchq::ops;
namespace {

ProcessUtility_hook_type prev_utility = nullptr;

constexpr int kPauseMs = 10000;    // the launcher keeps the scheduler away this long
constexpr int kWaitExitMs = 5000;  // how long we wait for it to leave

// The database a utility statement needs exclusive use of, or nullptr.
const char* database_needing_exclusive_use(Node* stmt) {
    switch (nodeTag(stmt)) {
        case T_DropdbStmt:
            return reinterpret_cast<DropdbStmt*>(stmt)->dbname;
        case T_RenameStmt: {
            auto* rename = reinterpret_cast<RenameStmt*>(stmt);
            return rename->renameType == OBJECT_DATABASE ? rename->subname : nullptr;
        }
        case T_CreatedbStmt: {
            ListCell* lc;
            foreach (lc, reinterpret_cast<CreatedbStmt*>(stmt)->options) {
                auto* opt = reinterpret_cast<DefElem*>(lfirst(lc));
                if (strcmp(opt->defname, "template") == 0 && opt->arg != nullptr)
                    return defGetString(opt);
            }
            return nullptr;
        }
        case T_AlterDatabaseStmt: {
            // ALTER DATABASE ... SET TABLESPACE moves files: no connections allowed.
            ListCell* lc;
            foreach (lc, reinterpret_cast<AlterDatabaseStmt*>(stmt)->options) {
                auto* opt = reinterpret_cast<DefElem*>(lfirst(lc));
                if (strcmp(opt->defname, "tablespace") == 0)
                    return reinterpret_cast<AlterDatabaseStmt*>(stmt)->dbname;
            }
            return nullptr;
        }
        default:
            return nullptr;
    }
}

// `command` is named by the scheduler's last line in the server log.
void ask_scheduler_to_leave(Oid dboid, const char* command) {
    SharedState* s = shared();
    pid_t pid = 0;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    if (DbSlot* slot = find_slot(dboid)) {
        slot->retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kPauseMs);
        if (slot->state != kSlotNoExtension) slot->state = kSlotPaused;
        strlcpy(slot->paused_for, command, sizeof(slot->paused_for));
        pid = slot->pid;
    }
    LWLockRelease(s->lock);
    if (pid == 0) return;
    kill(pid, SIGTERM);
    for (int waited = 0; waited < kWaitExitMs; waited += 10) {
        bool gone = true;
        LWLockAcquire(s->lock, LW_SHARED);
        if (DbSlot* slot = find_slot(dboid)) gone = slot->pid != pid;
        LWLockRelease(s->lock);
        if (gone) return;
        CHECK_FOR_INTERRUPTS();
        pg_usleep(10000L);
    }
}

void on_utility(PlannedStmt* pstmt, const char* query, bool read_only_tree,
                ProcessUtilityContext context, ParamListInfo params, QueryEnvironment* env,
                DestReceiver* dest, QueryCompletion* qc) {
    // Only our part is guarded: the statement itself reports its own errors.
    pg::callback_entry(ERROR, "utility_hook", [pstmt] {
        if (shared() == nullptr) return;
        if (IsA(pstmt->utilityStmt, TruncateStmt))
            ops::note_truncate(castNode(TruncateStmt, pstmt->utilityStmt));
        if (const char* dbname = database_needing_exclusive_use(pstmt->utilityStmt)) {
            Oid dboid = get_database_oid(dbname, true);
            if (OidIsValid(dboid))
                ask_scheduler_to_leave(dboid, CreateCommandName(pstmt->utilityStmt));
        }
    });
    if (prev_utility)
        prev_utility(pstmt, query, read_only_tree, context, params, env, dest, qc);
    else
        standard_ProcessUtility(pstmt, query, read_only_tree, context, params, env, dest, qc);
}

}  // namespace

void install_database_guard() {
    prev_utility = ProcessUtility_hook;
    ProcessUtility_hook = on_utility;
}

}  // namespace fetchq::worker
