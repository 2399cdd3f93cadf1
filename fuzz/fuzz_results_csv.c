/* libFuzzer target: the results.csv and retries.csv parsers (strict and lenient)
 * and the client output (KEY=value) scanner, on arbitrary bytes. The input also
 * runs through the summary report (text and JSON) when it parses, so the
 * statistics see hostile values. The lenient parse keeps exactly the rows the
 * strict one accepts when the strict one succeeds. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bench/internal.h"
#include "benchcsv/internal.h"
#include "bench/report.h"
#include "benchcsv/benchcsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tb_bench_results rs = {0};
    tb_err err;
    int strict_ok = tb_bench_results_parse((const char *)data, size, &rs, &err) == 0;
    size_t strict_n = rs.n;
    if (strict_ok && rs.n <= 200) {
        tb_buf out = {0};
        tb_bench_report_opts o = {.resamples = 50};
        json_t *j = NULL;
        tb_bench_report_summary(&rs, &o, &out, NULL, &j, &err);
        json_decref(j);
        tb_buf_clear(&out);
        /* Round trip: formatting the parsed rows and parsing again gives the same rows. */
        tb_buf again = {0};
        tb_buf_puts(&again, TB_BENCH_RESULTS_HEADER "\n");
        for (size_t i = 0; i < rs.n; i++)
            tb_bench_results_format_row(&rs.rows[i], &again);
        tb_bench_results rs2 = {0};
        if (tb_bench_results_parse((const char *)again.p, again.len, &rs2, &err) != 0 ||
            rs2.n != rs.n)
            __builtin_trap();
        for (size_t i = 0; i < rs.n; i++)
            if (strcmp(rs.rows[i].mode, rs2.rows[i].mode) ||
                strcmp(rs.rows[i].stdout_log, rs2.rows[i].stdout_log) ||
                rs.rows[i].has != rs2.rows[i].has || rs.rows[i].exit_code != rs2.rows[i].exit_code)
                __builtin_trap();
        tb_bench_results_clear(&rs2);
        tb_buf_clear(&again);
    }
    tb_bench_results_clear(&rs);
    if (tb_bench_results_parse_lenient((const char *)data, size, &rs, &err) == 0 && strict_ok &&
        (rs.n != strict_n || rs.n_damaged != 0))
        __builtin_trap();
    if (rs.n <= 200 && rs.n_damaged) {
        tb_buf out = {0};
        tb_bench_report_opts o = {.resamples = 50};
        tb_bench_report_summary(&rs, &o, &out, NULL, NULL, &err);
        tb_buf_clear(&out);
    }
    tb_bench_results_clear(&rs);
    tb_bench_retries rt = {0};
    tb_bench_retries_parse((const char *)data, size, &rt, &err);
    tb_bench_retries_clear(&rt);
    tb_bench_client_output co;
    tb_bench_client_output_parse((const char *)data, size, &co);
    return 0;
}
