#include "pg/result.hpp"

#include "pg/guard.hpp"

extern "C" {
#include "utils/json.h"
}

namespace fetchq::pg {

Datum make_record(FunctionCallInfo fcinfo, const Datum* values, const bool* nulls) {
    return pg_call([&] {
        TupleDesc desc;
        if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
            elog(ERROR, "fetchq: function returning record called in wrong context");
        desc = BlessTupleDesc(desc);
        HeapTuple tuple =
            heap_form_tuple(desc, const_cast<Datum*>(values), const_cast<bool*>(nulls));
        return HeapTupleGetDatum(tuple);
    });
}

void begin_rows(FunctionCallInfo fcinfo) {
    pg_call([&] {
        // In FROM, the scan passes the function's row type: taking it spares
        // building it again from the catalog at every call.
        const auto* rsinfo = reinterpret_cast<const ReturnSetInfo*>(fcinfo->resultinfo);
        const bool expected = rsinfo && IsA(rsinfo, ReturnSetInfo) && rsinfo->expectedDesc;
        InitMaterializedSRF(fcinfo, expected ? MAT_SRF_USE_EXPECTED_DESC : 0);
    });
}

void add_row(FunctionCallInfo fcinfo, const Datum* values, const bool* nulls) {
    pg_call([&] {
        auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, const_cast<Datum*>(values),
                             const_cast<bool*>(nulls));
    });
}

void add_spi_row(FunctionCallInfo fcinfo, uint64_t row) {
    pg_call([&] {
        auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
        TupleDesc src = SPI_tuptable->tupdesc;
        const int n = rsinfo->setDesc->natts;
        Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * n));
        bool* nulls = static_cast<bool*>(palloc(sizeof(bool) * n));
        for (int c = 0; c < n; ++c)
            values[c] = SPI_getbinval(SPI_tuptable->vals[row], src, c + 1, &nulls[c]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        pfree(values);
        pfree(nulls);
    });
}

std::string json_string(const char* text) {
    const char* quoted = pg_call([&] {
        StringInfoData buf;
        initStringInfo(&buf);
        escape_json(&buf, text);
        return buf.data;
    });
    return quoted;
}

Datum text_array(const std::vector<std::string>& items) {
    return pg_call([&] {
        const int n = static_cast<int>(items.size());
        if (n == 0) return PointerGetDatum(construct_empty_array(TEXTOID));
        Datum* elems = static_cast<Datum*>(palloc(sizeof(Datum) * n));
        for (int k = 0; k < n; ++k) elems[k] = CStringGetTextDatum(items[k].c_str());
        return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
    });
}

}  // namespace fetchq::pg
