// A comma-separated list of names, as in the fetchq.databases setting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fetchq::core {

// Splits on commas, trims spaces, drops empty items.
std::vector<std::string> split_name_list(std::string_view text);

// The word without surrounding spaces, tabs or newlines, in lower case
// (ASCII): how a privilege's name is read.
std::string lower_trimmed(std::string_view word);

// True when `name` is listed, or when the list is empty (no restriction).
bool name_allowed(const std::vector<std::string>& list, std::string_view name);

}  // namespace fetchq::core
