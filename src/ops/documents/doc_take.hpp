// One document named by queue and subject: doc_take makes it active for a
// consumer whatever its place in the queue, doc_peek reads it unchanged.
#pragma once

#include <cstdint>
#include <string>

#include "pg/postgres.hpp"

namespace fetchq::ops {

// Takes the document if it is planned or pending (and not expired): active,
// attempts + 1, locked for `lock`, counters moved. Waits for a transaction
// that holds its row, unless `nowait` (then a held row is no row). Returns
// 1 with its row in SPI_tuptable, in doc_pick's columns, or 0. Needs SPI.
uint64_t take(const std::string& queue, const std::string& subject, Interval* lock, bool nowait);

// The document's row in SPI_tuptable (the columns of doc_peek), or 0.
uint64_t peek(const std::string& queue, const std::string& subject);

}  // namespace fetchq::ops
