// Which failures of the scheduler's units of work reach the server log. A
// unit that fails on every try (a queue owner's trigger that raises) would
// otherwise write the same line each time: the first failure of a series is
// logged, then at most one a minute with the count of those left out, then
// the success that ends the series. A unit waits before its next try, longer
// after each failure in a row (core/backoff.hpp). Pure C++ (no PostgreSQL header), so the
// unit tests check it; times are microseconds, as TimestampTz.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <utility>

#include <boost/container/flat_map.hpp>

#include "core/backoff.hpp"

namespace fetchq::worker {

class FailureLog {
  public:
    static constexpr int64_t kRepeatUs = 60 * int64_t{1000000};

    struct Verdict {
        bool log = false;       // write this failure at LOG (else at DEBUG1)
        int64_t left_out = 0;   // failures not logged since the last line
        int64_t last_line = 0;  // when that line was written (when left_out > 0)
    };

    // A failure of unit `what` (of `queue`, empty for none) at `now`.
    Verdict failed(const std::string& queue, const std::string& what, int64_t now) {
        Series& s = series_[{queue, what}];
        s.failures++;
        s.retry_at = now + core::backoff_ms(static_cast<int>(s.failures)) * 1000;
        Verdict v;
        if (s.failures > 1 && now - s.last_line < kRepeatUs) {
            s.left_out++;
            return v;
        }
        v.log = true;
        v.left_out = s.left_out;
        v.last_line = s.last_line;
        s.left_out = 0;
        s.last_line = now;
        return v;
    }

    // A success of `what`: the failures in a row it ends (0: none).
    int64_t succeeded(const std::string& queue, const std::string& what) {
        auto it = series_.find({queue, what});
        if (it == series_.end()) return 0;
        const int64_t failures = it->second.failures;
        series_.erase(it);
        return failures;
    }

    // When `what` may be tried again (0: at once, it is not failing).
    int64_t retry_at(const std::string& queue, const std::string& what) const {
        auto it = series_.find({queue, what});
        return it == series_.end() ? 0 : it->second.retry_at;
    }

    // Nothing failing: a success needs no lookup.
    bool empty() const { return series_.empty(); }

    // Forgets the series of queues that keep(queue) rejects (dropped ones),
    // so that a queue made again under that name starts afresh.
    template <typename Keep>
    void retain(Keep keep) {
        for (auto it = series_.begin(); it != series_.end();)
            it = it->first.first.empty() || keep(it->first.first) ? std::next(it)
                                                                  : series_.erase(it);
    }

  private:
    struct Series {
        int64_t failures = 0;   // in a row
        int64_t left_out = 0;   // since last_line
        int64_t last_line = 0;  // when the last LOG line was written
        int64_t retry_at = 0;   // no try before (backoff after the last failure)
    };
    boost::container::flat_map<std::pair<std::string, std::string>, Series> series_;
};

}  // namespace fetchq::worker
