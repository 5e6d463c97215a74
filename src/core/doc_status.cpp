#include "core/doc_status.hpp"

namespace fetchq::core {

std::string sql_status(DocStatus status) { return std::to_string(status_code(status)); }

std::string sql_status_list(std::initializer_list<DocStatus> statuses) {
    if (statuses.size() == 0)
        throw Error(sqlstate::kInternalError, "sql_status_list needs at least one status");
    std::string out = "(";
    for (DocStatus status : statuses) {
        if (out.size() > 1) out += ", ";
        out += sql_status(status);
    }
    out += ')';
    return out;
}

std::string version_counter(int32_t version) { return "v" + std::to_string(version); }

}  // namespace fetchq::core
