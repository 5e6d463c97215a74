// Building the results of SQL-callable functions: one composite row (OUT
// parameters) or a set of rows (RETURNS TABLE, materialized).
#pragma once

#include <string>
#include <vector>

#include "pg/postgres.hpp"

namespace fetchq::pg {

// One row of the function's OUT parameters.
Datum make_record(FunctionCallInfo fcinfo, const Datum* values, const bool* nulls);

// Set-returning functions: call begin_rows before SPI_connect, then add rows.
void begin_rows(FunctionCallInfo fcinfo);
void add_row(FunctionCallInfo fcinfo, const Datum* values, const bool* nulls);
// Adds row `row` of SPI_tuptable; its columns must match the result type.
void add_spi_row(FunctionCallInfo fcinfo, uint64_t row);

// A text[] of `items` (an empty array when there is none).
Datum text_array(const std::vector<std::string>& items);

// `text` as a JSON string, quoted and escaped, for JSON built as text.
std::string json_string(const char* text);

}  // namespace fetchq::pg
