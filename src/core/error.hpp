// An error raised by pure C++ code, carried to the SQL boundary where it
// becomes an ereport(ERROR) with the same SQLSTATE, message, detail and hint.
#pragma once

#include <stdexcept>
#include <string>

namespace fetchq::core {

// SQLSTATE codes used by fetchq, as their five-character text.
namespace sqlstate {
inline constexpr const char* kInvalidParameterValue = "22023";
inline constexpr const char* kInvalidName = "42602";
inline constexpr const char* kUndefinedObject = "42704";
inline constexpr const char* kDuplicateObject = "42710";
inline constexpr const char* kDuplicateTable = "42P07";
inline constexpr const char* kStringDataRightTruncation = "22001";
inline constexpr const char* kInvalidTextRepresentation = "22P02";
inline constexpr const char* kInvalidDatetimeFormat = "22007";
inline constexpr const char* kNullValueNotAllowed = "22004";
inline constexpr const char* kFeatureNotSupported = "0A000";
inline constexpr const char* kInternalError = "XX000";
inline constexpr const char* kInsufficientPrivilege = "42501";
inline constexpr const char* kNumericValueOutOfRange = "22003";
inline constexpr const char* kWrongObjectType = "42809";
inline constexpr const char* kObjectNotInPrerequisiteState = "55000";
}  // namespace sqlstate

class Error : public std::runtime_error {
  public:
    Error(std::string sqlstate, std::string message, std::string detail = {}, std::string hint = {})
        : std::runtime_error(message),
          sqlstate_(std::move(sqlstate)),
          detail_(std::move(detail)),
          hint_(std::move(hint)) {}

    const std::string& sqlstate() const { return sqlstate_; }
    const std::string& detail() const { return detail_; }
    const std::string& hint() const { return hint_; }

  private:
    std::string sqlstate_;
    std::string detail_;
    std::string hint_;
};

}  // namespace fetchq::core
