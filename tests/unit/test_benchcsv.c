/* Unit tests for src/benchcsv (results.csv, retries.csv): CSV row format/parse round trips, strict
 * parsing errors, retries.csv, client KEY=value output (last occurrence wins),
 * append-only writing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "benchcsv/internal.h"
#include "benchcsv/benchcsv.h"

static const char *H = TB_BENCH_RESULTS_HEADER "\n";

static int parse(const char *body, tb_bench_results *rs, tb_err *e)
{
    char text[8192];
    snprintf(text, sizeof text, "%s%s", H, body);
    return tb_bench_results_parse(text, strlen(text), rs, e);
}

static void test_format_parse_roundtrip(void **state)
{
    (void)state;
    tb_bench_result_row r;
    memset(&r, 0, sizeof r);
    strcpy(r.mode, "tee_verify");
    r.iteration = 7;
    r.enable_tee = 1;
    r.verify = 1;
    r.exit_code = 0;
    r.has = TB_BENCH_HAS_NOTARIZATION | TB_BENCH_HAS_TDX_VERIFY |
            TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY | TB_BENCH_HAS_WALL;
    r.notarization_ms = 1091.25;
    r.tdx_verify_ms = 326;
    r.notarization_plus_verify_ms = 1417.25;
    r.wall_ms = 1500.0004;
    strcpy(r.stdout_log, "logs/a,b \"q\".log");
    strcpy(r.stderr_log, "logs/x.log");
    tb_buf b = {0};
    assert_int_equal(tb_buf_puts(&b, H), 0);
    assert_int_equal(tb_bench_results_format_row(&r, &b), 0);
    assert_non_null(strstr((char *)b.p, "tee_verify,7,1,1,0,1091.25,,326,1417.25,1500,"
                                        "\"logs/a,b \"\"q\"\".log\",logs/x.log\n"));
    tb_bench_results rs = {0};
    tb_err e;
    assert_int_equal(tb_bench_results_parse((char *)b.p, b.len, &rs, &e), 0);
    assert_int_equal(rs.n, 1);
    const tb_bench_result_row *p = &rs.rows[0];
    assert_string_equal(p->mode, "tee_verify");
    assert_int_equal(p->iteration, 7);
    assert_true(p->enable_tee && p->verify);
    assert_int_equal(p->has, r.has);
    assert_float_equal(p->notarization_ms, 1091.25, 0);
    assert_float_equal(p->tdx_verify_ms, 326, 0);
    assert_float_equal(p->wall_ms, 1500, 0);
    assert_string_equal(p->stdout_log, r.stdout_log);
    assert_true(tb_bench_result_ok(p));
    tb_bench_results_clear(&rs);
    tb_buf_clear(&b);
}

/* Text cells a spreadsheet would run (a RESULTS_DIR "=..." or "-...", a mode
   "-x" the reader accepts) are written with a leading ' and read back without it;
   numbers (an exit code -1) stay numbers. */
static void test_formula_cells(void **state)
{
    (void)state;
    tb_bench_result_row r;
    memset(&r, 0, sizeof r);
    strcpy(r.mode, "-x");
    r.iteration = 3;
    r.exit_code = -1;
    strcpy(r.stdout_log, "=HYPERLINK(\"http://x.example\",\"log\")/logs/a.log");
    strcpy(r.stderr_log, "@evil/logs/b.log");
    tb_buf b = {0};
    assert_int_equal(tb_buf_puts(&b, H), 0);
    assert_int_equal(tb_bench_results_format_row(&r, &b), 0);
    assert_non_null(strstr(
        (char *)b.p, "\n\"'-x\",3,0,0,-1,,,,,,\"'=HYPERLINK(\"\"http://x.example\"\",\"\"log\"\")"
                     "/logs/a.log\",\"'@evil/logs/b.log\"\n"));
    tb_bench_results rs = {0};
    tb_err e;
    assert_int_equal(tb_bench_results_parse((char *)b.p, b.len, &rs, &e), 0);
    assert_int_equal(rs.n, 1);
    assert_string_equal(rs.rows[0].mode, "-x");
    assert_int_equal(rs.rows[0].exit_code, -1);
    assert_string_equal(rs.rows[0].stdout_log, r.stdout_log);
    assert_string_equal(rs.rows[0].stderr_log, r.stderr_log);
    tb_bench_results_clear(&rs);
    tb_buf_clear(&b);
    /* retries.csv the same */
    tb_bench_retry_row t;
    memset(&t, 0, sizeof t);
    strcpy(t.mode, "no_tee");
    t.iteration = 1;
    t.attempt = 1;
    t.exit_code = -1;
    strcpy(t.stdout_log, "+1/logs/a.log");
    strcpy(t.stderr_log, "e");
    assert_int_equal(tb_buf_puts(&b, TB_BENCH_RETRIES_HEADER "\n"), 0);
    assert_int_equal(tb_bench_retries_format_row(&t, &b), 0);
    assert_non_null(strstr((char *)b.p, "\nno_tee,1,1,-1,0,\"'+1/logs/a.log\",e\n"));
    tb_bench_retries rt = {0};
    assert_int_equal(tb_bench_retries_parse((char *)b.p, b.len, &rt, &e), 0);
    assert_int_equal(rt.n, 1);
    assert_string_equal(rt.rows[0].stdout_log, "+1/logs/a.log");
    tb_bench_retries_clear(&rt);
    tb_buf_clear(&b);
}

static void test_parse_source_style(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    tb_err e;
    /* CRLF, BOM-less, empty fields, blank lines, no final newline, a failed row. */
    const char *body = "no_tee,1,false,false,0,1091,1100,,1091,,/x/o.log,/x/e.log\r\n"
                       "\r\n"
                       "tee_verify,1,true,true,124,,,,,,o,e\r\n"
                       "tee_verify,2,TRUE,1,0,1400,,300,,,o,e";
    assert_int_equal(parse(body, &rs, &e), 0);
    assert_int_equal(rs.n, 3);
    assert_true(tb_bench_result_ok(&rs.rows[0]));
    assert_false(tb_bench_result_ok(&rs.rows[1]));
    assert_int_equal(rs.rows[1].exit_code, 124);
    assert_int_equal(rs.rows[1].has, 0);
    assert_true(rs.rows[2].verify);
    assert_true(tb_bench_result_ok(&rs.rows[2]));
    assert_false(tb_bench_result_unverified(&rs.rows[2]));
    tb_bench_results_clear(&rs);
    /* The script's 0/1 flags; a tee_verify run with exit 0 and no TDX_VERIFY_MS is a
       success there (flagged as unverified here); exit 0 without NOTARIZATION_MS is not. */
    const char *script =
        "no_tee,1,0,0,0,1091,,,1091,1200,benchmark-results/x/logs/no_tee-1.stdout.log,"
        "benchmark-results/x/logs/no_tee-1.stderr.log\n"
        "tee_verify,1,1,1,0,1300,,,1300,1400,o,e\n"
        "tee_no_verify,1,1,0,0,,,,,1400,o,e\n";
    assert_int_equal(parse(script, &rs, &e), 0);
    assert_int_equal(rs.n, 3);
    assert_false(rs.rows[0].enable_tee || rs.rows[0].verify);
    assert_true(rs.rows[1].enable_tee && rs.rows[1].verify);
    assert_true(tb_bench_result_ok(&rs.rows[1]));
    assert_true(tb_bench_result_unverified(&rs.rows[1]));
    assert_false(tb_bench_result_unverified(&rs.rows[0]));
    assert_false(tb_bench_result_ok(&rs.rows[2]));
    assert_false(tb_bench_result_unverified(&rs.rows[2]));
    /* Written back the same way: 0/1 and the log paths as given. */
    tb_buf b = {0};
    assert_int_equal(tb_bench_results_format_row(&rs.rows[0], &b), 0);
    assert_int_equal(tb_buf_puts(&b, ""), 0);
    assert_string_equal((char *)b.p,
                        "no_tee,1,0,0,0,1091,,,1091,1200,benchmark-results/x/logs/"
                        "no_tee-1.stdout.log,benchmark-results/x/logs/no_tee-1.stderr.log\n");
    tb_buf_clear(&b);
    tb_bench_results_clear(&rs);
}

static void expect_error(const char *body, const char *want)
{
    tb_bench_results rs = {0};
    tb_err e;
    assert_int_equal(parse(body, &rs, &e), -1);
    if (!strstr(e.msg, want))
        fail_msg("error '%s' lacks '%s'", e.msg, want);
    tb_bench_results_clear(&rs);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_error("no_tee,1,false,false,0,1,,,,,o\n", "line 2: 11 fields, expected 12");
    expect_error("no_tee,1,false,false,0,1,,,,,o,e,extra\n", "line 2: more than 12 fields");
    expect_error("no_tee,x,false,false,0,1,,,,,o,e\n", "line 2: iteration");
    expect_error("no_tee,1,maybe,false,0,1,,,,,o,e\n", "enable_tee: not 0/1 or true/false");
    expect_error("no_tee,1,false,false,0,-1,,,,,o,e\n", "notarization_ms");
    expect_error("no_tee,1,false,false,0,inf,,,,,o,e\n", "notarization_ms");
    expect_error("no_tee,1,false,false,0,0x10,,,,,o,e\n", "notarization_ms");
    expect_error("no_tee,1,false,false,0,1e999,,,,,o,e\n", "notarization_ms");
    /* Fuzzer regression: a 200-digit value parsed but could not be written back. */
    expect_error("no_tee,1,false,false,0,1e200,,,,,o,e\n", "notarization_ms");
    expect_error("no_tee,1,false,false,0,1000000000000001,,,,,o,e\n", "notarization_ms");
    expect_error("no_tee,1,false,false,99999999999,1,,,,,o,e\n", "exit_code");
    expect_error("\nno_tee,1,false,false,0,1,,,,,\"o\"x,e\n", "line 3: text after a closing quote");
    expect_error("no_tee,1,false,false,0,1,,,,,o\"x,e\n", "quote inside an unquoted field");
    expect_error("no_tee,1,false,false,0,1,,,,,o,e\rx\n", "carriage return without line feed");
    expect_error(",1,false,false,0,1,,,,,o,e\n", "mode: not a mode name");
    char big[3000];
    memset(big, 'a', sizeof big);
    big[sizeof big - 1] = 0;
    char body[4000];
    snprintf(body, sizeof body, "no_tee,1,false,false,0,1,,,,,%s,e\n", big);
    expect_error(body, "field longer than");
    tb_bench_results rs = {0};
    tb_err e;
    assert_int_equal(tb_bench_results_parse("", 0, &rs, &e), -1);
    assert_non_null(strstr(e.msg, "empty file"));
    assert_int_equal(tb_bench_results_parse("mode,iteration\n", 15, &rs, &e), -1);
    assert_non_null(strstr(e.msg, "not the expected header"));
    const char nul[] = "mode\0x";
    assert_int_equal(tb_bench_results_parse(nul, sizeof nul, &rs, &e), -1);
    tb_bench_results_clear(&rs);
}

static void test_retries_roundtrip(void **state)
{
    (void)state;
    tb_bench_retry_row t;
    memset(&t, 0, sizeof t);
    strcpy(t.mode, "no_tee");
    t.iteration = 3;
    t.attempt = 2;
    t.exit_code = 124;
    t.wall_ms = 300000.5;
    strcpy(t.stdout_log, "logs/no_tee-3.attempt2.stdout.log");
    strcpy(t.stderr_log, "logs/no_tee-3.attempt2.stderr.log");
    tb_buf b = {0};
    tb_buf_puts(&b, TB_BENCH_RETRIES_HEADER "\n");
    assert_int_equal(tb_bench_retries_format_row(&t, &b), 0);
    tb_bench_retries rs = {0};
    tb_err e;
    assert_int_equal(tb_bench_retries_parse((char *)b.p, b.len, &rs, &e), 0);
    assert_int_equal(rs.n, 1);
    assert_int_equal(rs.rows[0].attempt, 2);
    assert_int_equal(rs.rows[0].exit_code, 124);
    assert_float_equal(rs.rows[0].wall_ms, 300000.5, 0);
    assert_int_equal(tb_bench_retries_parse("mode\n", 5, &rs, &e), -1);
    tb_bench_retries_clear(&rs);
    tb_buf_clear(&b);
}

static void test_client_output(void **state)
{
    (void)state;
    tb_bench_client_output o;
    const char *text = "starting\nNOTARIZATION_MS=999 ENABLE_TEE_ATTESTATION=true\n"
                       "NOTARIZATION_MS=12.5 ENABLE_TEE_ATTESTATION=false\nTOTAL_E2E_MS=20\n"
                       "TDX_VERIFY_MS=3\tOTHER=1 =5 NOEQUALS\n";
    tb_bench_client_output_parse(text, strlen(text), &o);
    assert_int_equal(o.has,
                     TB_BENCH_HAS_NOTARIZATION | TB_BENCH_HAS_TOTAL_E2E | TB_BENCH_HAS_TDX_VERIFY);
    assert_float_equal(o.notarization_ms, 12.5, 0);
    assert_float_equal(o.total_e2e_ms, 20, 0);
    assert_float_equal(o.tdx_verify_ms, 3, 0);
    assert_int_equal(o.enable_tee, 0);
    /* The last occurrence wins even when it is garbage: the key is then absent. */
    const char *bad = "NOTARIZATION_MS=5\nNOTARIZATION_MS=abc\nTDX_VERIFY_MS=-1\nTOTAL_E2E_MS=";
    tb_bench_client_output_parse(bad, strlen(bad), &o);
    assert_int_equal(o.has, 0);
    assert_int_equal(o.enable_tee, -1);
    /* Not NUL-terminated, embedded NUL, prefix keys do not match. */
    const char raw[] = {'X', 'N', 'O', 'T', 'A', 'R', 'I', 'Z', 'A', 'T', 'I', 'O',
                        'N', '_', 'M', 'S', '=', '1', 0,   'T', 'D', 'X', '_', 'V',
                        'E', 'R', 'I', 'F', 'Y', '_', 'M', 'S', '=', '2'};
    tb_bench_client_output_parse(raw, sizeof raw, &o);
    assert_int_equal(o.has, TB_BENCH_HAS_TDX_VERIFY);
    assert_float_equal(o.tdx_verify_ms, 2, 0);
}

static void test_format_ms(void **state)
{
    (void)state;
    char s[32];
    assert_int_equal(tb_bench_format_ms(1091, s, sizeof s), 0);
    assert_string_equal(s, "1091");
    tb_bench_format_ms(3.4120, s, sizeof s);
    assert_string_equal(s, "3.412");
    tb_bench_format_ms(0.0004, s, sizeof s);
    assert_string_equal(s, "0");
    tb_bench_format_ms(2.5, s, sizeof s);
    assert_string_equal(s, "2.5");
    assert_int_equal(tb_bench_format_ms(1e20, s, 4), -1);
}

static void test_csv_append_is_line_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-results-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    tb_err e;
    int fd = tb_bench_csv_create(path, TB_BENCH_RESULTS_HEADER, &e);
    assert_true(fd >= 0);
    assert_int_equal(tb_bench_csv_create(path, TB_BENCH_RESULTS_HEADER, &e),
                     -1); /* never clobbers */
    const char *line = "no_tee,1,false,false,0,5,,,5,1,o,e\n";
    assert_int_equal(tb_bench_csv_append_line(fd, line, strlen(line), &e), 0);
    close(fd);
    tb_bench_results rs = {0};
    assert_int_equal(tb_bench_results_load(path, 0, &rs, &e), 0);
    assert_int_equal(rs.n, 1);
    tb_bench_results_clear(&rs);
    unlink(path);
    rmdir(dir);
}

/* A write cut short (here by RLIMIT_FSIZE, as a disk that fills up would: the first
 * write() takes what fits, the next fails) is rolled back: the file keeps its size
 * and its last whole row, and the error names the reason. */
static void test_csv_append_rolls_back_short_write(void **state)
{
    (void)state;
    char path[] = "/tmp/tb-results-XXXXXX";
    int tfd = mkstemp(path);
    assert_true(tfd >= 0);
    close(tfd);
    unlink(path);
    tb_err e;
    int fd = tb_bench_csv_create(path, TB_BENCH_RETRIES_HEADER, &e);
    assert_true(fd >= 0);
    off_t size = lseek(fd, 0, SEEK_END);
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)size + 10; /* room for 10 bytes of the 40 */
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    const char row[] = "no_tee,1,1,0,12.5,logs/a.log,logs/b.log\n";
    int rc = tb_bench_csv_append_line(fd, row, sizeof row - 1, &e);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(e.msg, "File too large"));
    assert_null(strstr(e.msg, "could not be removed"));
    assert_int_equal(lseek(fd, 0, SEEK_END), size);
    /* The next row goes after the header, not after a fragment. */
    assert_int_equal(tb_bench_csv_append_line(fd, row, sizeof row - 1, &e), 0);
    close(fd);
    tb_buf b = {0};
    assert_int_equal(tb_file_read(path, 1 << 20, &b, &e), 0);
    assert_string_equal((char *)b.p,
                        TB_BENCH_RETRIES_HEADER "\n"
                                                "no_tee,1,1,0,12.5,logs/a.log,logs/b.log\n");
    tb_buf_clear(&b);
    unlink(path);
}

/* Duplicates: strict parsing refuses the second row of a (mode, iteration); the
 * lenient one keeps the first and lists the second, and also lists rows that do
 * not parse (a bad field, a row cut short) while keeping the rows after them. */
static void test_duplicates_and_damaged_rows(void **state)
{
    (void)state;
    const char *body = "no_tee,1,false,false,0,100,,,,,a,b\n"
                       "no_tee,2,false,false,0,102,,,,,a,b\n"
                       "no_tee,1,false,false,0,999,,,,,a,b\n"
                       "no_tee,3,false,false,0,abc,,,,,a,b\n"
                       "no_tee,4,false,\"fal\n"
                       "no_tee,5,false,false,0,105,,,,,a,b\n"
                       "no_tee,6,false,fa";
    char text[2048];
    snprintf(text, sizeof text, "%s%s", H, body);
    tb_bench_results rs = {0};
    tb_err e;
    assert_int_equal(tb_bench_results_parse(text, strlen(text), &rs, &e), -1);
    assert_non_null(strstr(e.msg, "line 5: notarization_ms")); /* first error in file order */
    tb_bench_results_clear(&rs);
    char dup[512];
    snprintf(dup, sizeof dup, "%s%s", H,
             "no_tee,1,false,false,0,100,,,,,a,b\nno_tee,2,false,false,0,102,,,,,a,b\n"
             "no_tee,1,false,false,0,999,,,,,a,b\n");
    assert_int_equal(tb_bench_results_parse(dup, strlen(dup), &rs, &e), -1);
    assert_string_equal(e.msg, "line 4: a second row for no_tee iteration 1 (the first is line 2)");
    tb_bench_results_clear(&rs);

    assert_int_equal(tb_bench_results_parse_lenient(text, strlen(text), &rs, &e), 0);
    assert_int_equal(rs.n, 3); /* iterations 1 (the first row), 2 and 5 */
    assert_int_equal(rs.rows[0].iteration, 1);
    assert_true(rs.rows[0].notarization_ms == 100);
    assert_int_equal(rs.rows[1].iteration, 2);
    assert_int_equal(rs.rows[2].iteration, 5);
    assert_int_equal(rs.n_damaged, 4);
    assert_int_equal(rs.damaged[0].line, 4);
    assert_string_equal(rs.damaged[0].why,
                        "a second row for no_tee iteration 1 (the first is line 2)");
    assert_int_equal(rs.damaged[1].line, 5);
    assert_non_null(strstr(rs.damaged[1].why, "notarization_ms"));
    assert_int_equal(rs.damaged[2].line, 6); /* an unterminated quote: resynced at the next line */
    assert_int_equal(rs.damaged[3].line, 8);
    assert_string_equal(rs.damaged[3].why,
                        "4 fields, expected 12 (cut short: the file ends inside the row)");
    tb_bench_results_clear(&rs);
    /* A wrong header still fails the lenient parse. */
    assert_int_equal(tb_bench_results_parse_lenient("a,b\n1,2\n", 8, &rs, &e), -1);
    tb_bench_results_clear(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_parse_roundtrip),
        cmocka_unit_test(test_parse_source_style),
        cmocka_unit_test(test_formula_cells),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_retries_roundtrip),
        cmocka_unit_test(test_client_output),
        cmocka_unit_test(test_format_ms),
        cmocka_unit_test(test_csv_append_is_line_atomic),
        cmocka_unit_test(test_csv_append_rolls_back_short_write),
        cmocka_unit_test(test_duplicates_and_damaged_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
