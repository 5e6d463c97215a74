// The version of this library and of the extension's SQL in the current
// database. Between installing a new library (a package upgrade) and ALTER
// EXTENSION fetchq UPDATE, a database still has the SQL of the old version,
// whose functions call into the new library with the old signatures.
#pragma once

#include <optional>
#include <string>

namespace fetchq::pg {

// The version this library was built as: fetchq.control's default_version.
const char* library_version();

// extversion of extension fetchq in the current database; none when it is not
// installed. Needs a transaction.
std::optional<std::string> installed_version();

// Throws (core::Error) unless the extension's SQL in this database is the
// library's version. Once it was, this backend does not look again: only an
// ALTER EXTENSION UPDATE changes it, and that needs a newer library.
// Extension scripts are not checked: ALTER EXTENSION UPDATE calls into the
// library while it runs.
void require_matching_sql();

}  // namespace fetchq::pg
