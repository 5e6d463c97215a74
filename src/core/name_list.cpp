#include "core/name_list.hpp"

#include <algorithm>
#include <cctype>

namespace fetchq::core {

std::vector<std::string> split_name_list(std::string_view text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        std::string_view item = text.substr(start, comma - start);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
        if (!item.empty()) out.emplace_back(item);
        start = comma + 1;
    }
    return out;
}

std::string lower_trimmed(std::string_view word) {
    const auto first = word.find_first_not_of(" \t\n");
    if (first == std::string_view::npos) return {};
    const auto last = word.find_last_not_of(" \t\n");
    std::string out(word.substr(first, last - first + 1));
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool name_allowed(const std::vector<std::string>& list, std::string_view name) {
    if (list.empty()) return true;
    for (const std::string& item : list)
        if (item == name) return true;
    return false;
}

}  // namespace fetchq::core
