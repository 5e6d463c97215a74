#include "pg/fault_injection.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "pg/guard.hpp"

namespace fetchq::pg {
namespace {

char* g_fault_injection = nullptr;

}  // namespace

void define_fault_injection() {
    DefineCustomStringVariable(
        "fetchq.fault_injection", "For tests: entry points where fetchq throws on purpose.",
        "A comma-separated list of names such as scheduler_main, launcher_main, xact_callback, "
        "subxact_callback, session_exit, utility_hook; temporary_queue_name for predictable "
        "names of temporary queues. Empty: none.",
        &g_fault_injection, "", PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr,
        nullptr);
}

bool fault_injected(const char* where) {
    if (g_fault_injection == nullptr || g_fault_injection[0] == '\0') return false;
    const std::string list = std::string(",") + g_fault_injection + ",";
    return list.find(std::string(",") + where + ",") != std::string::npos;
}

void maybe_inject_fault(const char* where) {
    if (fault_injected(where)) throw std::runtime_error(std::string("fault injected at ") + where);
}

}  // namespace fetchq::pg
