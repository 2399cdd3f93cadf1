/* Unit tests for cli/flags: every argument type into its field, the ranges, the one
 * wording of each mistake (unknown option, missing value, unexpected argument, bad
 * number, bad choice), --help and its exit code, operands (anywhere, or after the
 * first one for a command that stops there), the generated option list, and notes
 * (lines of --help that are no flag). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/flags.h"

typedef struct t_args {
    int json, threads, calls;
    long passes;
    double alpha, duration;
    const char *out, *format, *last;
} t_args;

static int on_call(void *args, const char *flag, const char *value, tb_err *err)
{
    t_args *a = args;
    if (!strcmp(value, "bad"))
        return tb_errf(err, "%s %s: not today", flag, value);
    a->calls++;
    a->last = value;
    return 0;
}

static const char *const formats[] = {"html", "markdown", NULL};

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: t\n");
    cli_flags_help(f, c);
}

static const cli_flag t_flags[] = {
    CLI_BOOL("json", 'j', t_args, json, "print JSON"),
    CLI_STR("output", 'o', t_args, out, "FILE", "write FILE\nnot stdout"),
    CLI_INT("threads", 't', t_args, threads, 1, 64, "N", "threads"),
    CLI_LONG("passes", 0, t_args, passes, 1, 1000, "N", "passes"),
    CLI_DOUBLE("alpha", 0, t_args, alpha, 0, 1, "A", "level"),
    CLI_SECONDS("duration", 'd', t_args, duration, 0.001, 60, "T", "how long"),
    CLI_CHOICE("format", 0, t_args, format, formats, "F", "html or markdown"),
    CLI_CALL("set", 's', on_call, "K=V", "a setting, repeatable"),
    {.name = "a-rather-long-name",
     .type = CLI_F_BOOL,
     .off = CLI_OFF(t_args, json, int),
     .help = "on the same line",
     .def = "off"},
    CLI_HELP(),
    {0}};

static const cli_cmd t_cmd = {.name = "t", .flags = t_flags, .usage = usage, .max_operands = 1};

/* Runs the parse of the NULL-terminated words with stdout and stderr captured into
 * out/err (NUL-terminated, truncated). Returns the parse's return value. */
static int run(const cli_cmd *c, void *a, int *first, char *out, char *err, size_t size, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, size);
    argv[argc++] = "t";
    for (char *w; argc < 31 && (w = va_arg(ap, char *));)
        argv[argc++] = w;
    va_end(ap);
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    FILE *fo = tmpfile(), *fe = tmpfile();
    assert_non_null(fo);
    assert_non_null(fe);
    int so = dup(1), se = dup(2);
    dup2(fileno(fo), 1);
    dup2(fileno(fe), 2);
    int rc = cli_flags_parse(c, argc, argv, a, first);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    FILE *fs[2] = {fo, fe};
    char *bufs[2] = {out, err};
    for (int i = 0; i < 2; i++) {
        rewind(fs[i]);
        size_t n = fread(bufs[i], 1, size - 1, fs[i]);
        bufs[i][n] = 0;
        fclose(fs[i]);
    }
    return rc;
}

#define RUN(...) run(&t_cmd, &a, &first, out, err, sizeof out, __VA_ARGS__, (char *)NULL)

static void test_types(void **state)
{
    (void)state;
    t_args a = {0};
    int first = -7;
    char out[2048], err[512];
    assert_int_equal(RUN("-j", "--output=x.html", "-t", "8", "--passes", "12", "--alpha", "0.05",
                         "-d", "500ms", "--format", "markdown", "-s", "a=1", "--set=b=2"),
                     CLI_FLAGS_GO);
    assert_int_equal(first, 16);
    assert_int_equal(a.json, 1);
    assert_string_equal(a.out, "x.html");
    assert_int_equal(a.threads, 8);
    assert_int_equal(a.passes, 12);
    assert_true(a.alpha == 0.05);
    assert_true(a.duration == 0.5);
    assert_string_equal(a.format, "markdown");
    assert_int_equal(a.calls, 2);
    assert_string_equal(a.last, "b=2");
    assert_string_equal(err, "");
    assert_string_equal(out, "");

    /* unambiguous prefixes, -x groups and operands anywhere, as getopt_long */
    t_args b = {0};
    assert_int_equal(
        run(&t_cmd, &b, &first, out, err, sizeof out, "--js", "OP", "-jt3", (char *)NULL),
        CLI_FLAGS_GO);
    assert_int_equal(b.json, 1);
    assert_int_equal(b.threads, 3);
    assert_int_equal(first, 3);
}

static void test_ranges_and_numbers(void **state)
{
    (void)state;
    t_args a = {0};
    int first;
    char out[2048], err[512];
    assert_int_equal(RUN("--threads", "0"), 2);
    assert_string_equal(err, "teebench: t: --threads 0: must be between 1 and 64\n");
    assert_int_equal(RUN("-t", "65"), 2);
    assert_string_equal(err, "teebench: t: --threads 65: must be between 1 and 64\n");
    assert_int_equal(RUN("-t", "64"), CLI_FLAGS_GO);
    assert_int_equal(a.threads, 64);
    assert_int_equal(RUN("--passes", "12x"), 2);
    assert_string_equal(err, "teebench: t: --passes 12x: not an integer\n");
    /* base/num's syntax: no leading blank (strtol alone skipped it), no hex float */
    assert_int_equal(RUN("--passes", " 5"), 2);
    assert_string_equal(err, "teebench: t: --passes  5: not an integer\n");
    assert_int_equal(RUN("--alpha", "0x1p-2"), 2);
    assert_string_equal(err, "teebench: t: --alpha 0x1p-2: not a number\n");
    /* more digits than a long holds: out of range, as for the unsigned flags below */
    assert_int_equal(RUN("--threads", "99999999999999999999"), 2);
    assert_string_equal(err,
                        "teebench: t: --threads 99999999999999999999: must be between 1 and 64\n");
    assert_int_equal(RUN("--alpha", "nan"), 2);
    assert_string_equal(err, "teebench: t: --alpha nan: not a number\n");
    assert_int_equal(RUN("--alpha", "1.5"), 2);
    assert_string_equal(err, "teebench: t: --alpha 1.5: must be between 0 and 1\n");
    assert_int_equal(RUN("-d", "2h"), 2);
    assert_string_equal(err, "teebench: t: --duration 2h: must be between 0.001s and 60s\n");
    assert_int_equal(RUN("-d", "2 s"), 2);
    assert_string_equal(err, "teebench: t: --duration 2 s: not a duration (e.g. 2s, 500ms, 1.5m; "
                             "no unit: seconds)\n");
    assert_int_equal(RUN("--format", "pdf"), 2);
    assert_string_equal(err, "teebench: t: --format pdf: unknown (html, markdown)\n");
    assert_int_equal(RUN("--set", "bad"), 2);
    assert_string_equal(err, "teebench: t: --set bad: not today\n");
}

static void test_mistakes(void **state)
{
    (void)state;
    t_args a = {0};
    int first;
    char out[2048], err[512];
    assert_int_equal(RUN("--nope"), 2);
    assert_string_equal(err, "teebench: t: --nope: unknown option (teebench t --help)\n");
    assert_int_equal(RUN("--nope=3"), 2);
    assert_string_equal(err, "teebench: t: --nope: unknown option (teebench t --help)\n");
    assert_int_equal(RUN("-jx"), 2);
    assert_string_equal(err, "teebench: t: -x: unknown option (teebench t --help)\n");
    assert_int_equal(RUN("--json=1"), 2);
    assert_string_equal(err, "teebench: t: --json: unknown option (teebench t --help)\n");
    assert_int_equal(RUN("--output"), 2);
    assert_string_equal(err, "teebench: t: --output: needs a value\n");
    assert_int_equal(RUN("--passes"), 2);
    assert_string_equal(err, "teebench: t: --passes: needs a value\n");
    assert_int_equal(RUN("-t"), 2);
    assert_string_equal(err, "teebench: t: -t: needs a value\n");
    assert_int_equal(RUN("one", "two"), 2);
    assert_string_equal(err, "teebench: t: two: unexpected argument\n");
    assert_int_equal(RUN("one", "-j"), CLI_FLAGS_GO);
    assert_int_equal(first, 2);
    assert_string_equal(out, "");
}

static void test_stop_at_operand(void **state)
{
    (void)state;
    static const cli_cmd stop = {
        .name = "s", .flags = t_flags, .usage = usage, .max_operands = -1, .stop_at_operand = 1};
    t_args a = {0};
    int first;
    char out[2048], err[512];
    assert_int_equal(run(&stop, &a, &first, out, err, sizeof out, "-j", "URL", "--threads", "x",
                         "more", (char *)NULL),
                     CLI_FLAGS_GO);
    assert_int_equal(first, 2);
    assert_int_equal(a.threads, 0);
    assert_int_equal(a.json, 1);
    assert_int_equal(run(&stop, &a, &first, out, err, sizeof out, "--bad", (char *)NULL), 2);
    assert_string_equal(err, "teebench: s: --bad: unknown option (teebench s --help)\n");
}

typedef struct u_args {
    unsigned reps;
    const char *probes;
} u_args;

static const cli_flag u_flags[] = {CLI_UINT("reps", 'r', u_args, reps, 1, 100, "N", "samples"),
                                   CLI_STR("probes", 'p', u_args, probes, "LIST", "names"),
                                   CLI_ALIAS("probe", "probes"),
                                   CLI_HELP(),
                                   {0}};

static const cli_cmd u_cmd = {
    .name = "u", .flags = u_flags, .usage = usage, .max_operands = 0, .hide_shorts = 1};

/* unsigned fields, an old spelling (parsed, not in --help) and a help without the
   short letters */
static void test_uint_alias_hidden(void **state)
{
    (void)state;
    u_args a = {0};
    int first;
    char out[1024], err[512];
    assert_int_equal(
        run(&u_cmd, &a, &first, out, err, sizeof out, "-r", "7", "--probe", "x", (char *)NULL),
        CLI_FLAGS_GO);
    assert_int_equal(a.reps, 7);
    assert_string_equal(a.probes, "x");
    assert_int_equal(run(&u_cmd, &a, &first, out, err, sizeof out, "--reps", "-1", (char *)NULL),
                     2);
    assert_string_equal(err, "teebench: u: --reps -1: must be between 1 and 100\n");
    assert_int_equal(run(&u_cmd, &a, &first, out, err, sizeof out, "--probe", (char *)NULL), 2);
    assert_string_equal(err, "teebench: u: --probe: needs a value\n");
    assert_int_equal(run(&u_cmd, &a, &first, out, err, sizeof out, "x", (char *)NULL), 2);
    assert_string_equal(err, "teebench: u: x: unexpected argument\n");
    assert_int_equal(run(&u_cmd, &a, &first, out, err, sizeof out, "--help", (char *)NULL), 0);
    assert_string_equal(out, "usage: t\n"
                             "  --reps N       samples\n"
                             "  --probes LIST  names\n"
                             "  -h, --help     this text\n");
}

typedef struct w_args {
    uint64_t bytes;
    int64_t now;
    long big;
    char name[8];
    cli_settings set;
} w_args;

static const cli_flag w_flags[] = {
    CLI_U64("bytes-cap", 0, w_args, bytes, 1, 1e20, "N", "bytes"),
    CLI_I64("now", 0, w_args, now, 0, 1e19, "T", "\non the next line"),
    CLI_LONG("big", 0, w_args, big, -1e19, 1e19, "N", "any long"),
    CLI_BUF("name", w_args, name, "S", "cut at 7"),
    {.name = "iperf3",
     .type = CLI_F_SETTING,
     .arg = "P",
     .off = CLI_OFF(w_args, set, cli_settings),
     .key = "iperf3_bin",
     .label = "--iperf3 PATH",
     .before = "settings:\n",
     .help = "a setting"},
    CLI_SETTING("udp-sizes", w_args, set, "L", "another"),
    {0}};

static const cli_cmd w_cmd = {
    .name = "w", .flags = w_flags, .usage = usage, .max_operands = 0, .col = 16, .indent = 4};

/* 64-bit numbers, a copy into an array, workload settings (in order, their keys, at
   most CLI_SETTINGS_MAX), and the help's headings, own name columns and indent */
static void test_wide_types_settings(void **state)
{
    (void)state;
    w_args a = {0};
    int first;
    char out[1024], err[512];
    assert_int_equal(run(&w_cmd, &a, &first, out, err, sizeof out, "--bytes-cap",
                         "18446744073709551615", "--now", "9223372036854775807", "--big",
                         "-9223372036854775808", "--name", "a-long-name", "--iperf3", "/x",
                         "--udp-sizes", "64", "--iperf3", "/y", (char *)NULL),
                     CLI_FLAGS_GO);
    assert_true(a.bytes == UINT64_MAX);
    assert_true(a.now == INT64_MAX);
    assert_true(a.big == LONG_MIN);
    assert_string_equal(a.name, "a-long-");
    assert_int_equal(a.set.n, 3);
    assert_string_equal(a.set.set[0].key, "iperf3_bin");
    assert_string_equal(a.set.set[0].flag, "--iperf3");
    assert_string_equal(a.set.set[0].value, "/x");
    assert_string_equal(a.set.set[1].key, "udp_sizes");
    assert_string_equal(a.set.set[2].value, "/y");
    assert_int_equal(
        run(&w_cmd, &a, &first, out, err, sizeof out, "--bytes-cap", "0", (char *)NULL), 2);
    assert_string_equal(err,
                        "teebench: w: --bytes-cap 0: must be between 1 and 18446744073709551615\n");
    assert_int_equal(
        run(&w_cmd, &a, &first, out, err, sizeof out, "--bytes-cap", "-1", (char *)NULL), 2);
    assert_string_equal(err, "teebench: w: --bytes-cap -1: not an integer\n");
    assert_int_equal(run(&w_cmd, &a, &first, out, err, sizeof out, "--bytes-cap",
                         "18446744073709551616", (char *)NULL),
                     2);
    assert_string_equal(err, "teebench: w: --bytes-cap 18446744073709551616: must be between 1 and "
                             "18446744073709551615\n");
    assert_int_equal(run(&w_cmd, &a, &first, out, err, sizeof out, "--now", "-1", (char *)NULL), 2);
    assert_string_equal(err, "teebench: w: --now -1: must be between 0 and 9223372036854775807\n");

    w_args b = {0};
    char *argv[2 * CLI_SETTINGS_MAX + 4] = {"w"};
    int argc = 1;
    for (int i = 0; i <= CLI_SETTINGS_MAX; i++) {
        argv[argc++] = "--udp-sizes";
        argv[argc++] = "1";
    }
    fflush(stderr);
    int se = dup(2), dn = open("/dev/null", O_WRONLY);
    dup2(dn, 2);
    int rc = cli_flags_parse(&w_cmd, argc, argv, &b, &first);
    dup2(se, 2);
    close(se);
    close(dn);
    assert_int_equal(rc, 2);
    assert_int_equal(b.set.n, CLI_SETTINGS_MAX);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cli_flags_help(f, &w_cmd);
    fclose(f);
    assert_string_equal(text, "    --bytes-cap N  bytes\n"
                              "    --now T\n"
                              "                on the next line\n"
                              "    --big N     any long\n"
                              "    --name S    cut at 7\n"
                              "settings:\n"
                              "    --iperf3 PATH  a setting\n"
                              "    --udp-sizes L  another\n");
    free(text);
}

static void test_help(void **state)
{
    (void)state;
    t_args a = {0};
    int first;
    char out[2048], err[512];
    assert_int_equal(RUN("--json", "--help", "--nope"), 0);
    assert_string_equal(err, "");
    assert_string_equal(out, "usage: t\n"
                             "  -j, --json     print JSON\n"
                             "  -o, --output FILE  write FILE\n"
                             "                 not stdout\n"
                             "  -t, --threads N  threads\n"
                             "  --passes N     passes\n"
                             "  --alpha A      level\n"
                             "  -d, --duration T  how long\n"
                             "  --format F     html or markdown\n"
                             "  -s, --set K=V  a setting, repeatable\n"
                             "  --a-rather-long-name  on the same line (default off)\n"
                             "  -h, --help     this text\n");
    assert_int_equal(RUN("-h"), 0);
    assert_memory_equal(out, "usage: t\n", 9);

    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    assert_non_null(f);
    cli_flags_list(f, &t_cmd);
    fclose(f);
    assert_string_equal(list,
                        "t\t--json -j --output -o --threads -t --passes --alpha --duration -d "
                        "--format --set -s --a-rather-long-name --help -h\n");
    free(list);
}

/* CLI_CALL_AT: the callback gets its field, not the args struct; seen() is called
 * after each flag is stored, with the entry (its group). */
typedef struct inner {
    int n;
    const char *v;
} inner;
typedef struct at_args {
    long pad[3];
    inner in;
    const cli_flag *first_tagged;
    int seen;
} at_args;

static int on_inner(void *field, const char *flag, const char *value, tb_err *err)
{
    inner *in = field;
    if (!strcmp(value, "bad"))
        return tb_errf(err, "%s %s: not for inner", flag, value);
    in->n++;
    in->v = value;
    return 0;
}

static void on_seen(void *args, const cli_flag *f)
{
    at_args *a = args;
    a->seen++;
    if (f->group == 5 && !a->first_tagged)
        a->first_tagged = f;
}

static const cli_flag at_flags[] = {
    CLI_CALL_AT("in", 0, at_args, in, inner, on_inner, "V", "into inner"),
    {.name = "tagged",
     .type = CLI_F_CALL,
     .arg = "V",
     .off = CLI_OFF(at_args, in, inner),
     .call = on_inner,
     .group = 5},
    CLI_HELP(),
    {0}};

static const cli_cmd at_cmd = {
    .name = "t", .flags = at_flags, .usage = usage, .max_operands = 0, .seen = on_seen};

static void test_call_at_seen(void **state)
{
    (void)state;
    at_args a = {.seen = 0};
    int first;
    char out[1024], err[512];
    assert_int_equal(run(&at_cmd, &a, &first, out, err, sizeof out, "--in", "x", "--tagged", "y",
                         "--in=z", (char *)NULL),
                     CLI_FLAGS_GO);
    assert_int_equal(a.in.n, 3);
    assert_string_equal(a.in.v, "z");
    assert_int_equal(a.pad[0] | a.pad[1] | a.pad[2], 0);
    assert_int_equal(a.seen, 3);
    assert_ptr_equal(a.first_tagged, &at_flags[1]);
    at_args b = {.seen = 0};
    assert_int_equal(
        run(&at_cmd, &b, &first, out, err, sizeof out, "--tagged", "bad", (char *)NULL), 2);
    assert_string_equal(err, "teebench: t: --tagged bad: not for inner\n");
    assert_int_equal(b.seen, 0); /* not after a mistake */
}

/* CLI_F_NOTE: a line of --help alone -- not parsed (the flags after it still answer
 * to their names, an old spelling past it still finds its flag), not in the list; a
 * label as written, one ending in a space (three before the help) or running over
 * lines; an entry without help is its name alone. */
typedef struct n_args {
    const char *target, *dir;
    int quiet;
} n_args;

static const cli_flag n_flags[] = {
    {.name = "target",
     .type = CLI_F_STR,
     .arg = "URL",
     .off = CLI_OFF(n_args, target, const char *),
     .label = "--target ssh://HOST ",
     .help = "run there"},
    CLI_NOTE("--target local", "here"),
    CLI_NOTE("with targets, one result each", NULL),
    {.name = "dir",
     .type = CLI_F_STR,
     .arg = "D",
     .off = CLI_OFF(n_args, dir, const char *),
     .label = "--dir D, --quiet,\n  --old-dir D",
     .help = "as elsewhere"},
    {.name = "quiet", .type = CLI_F_BOOL, .off = CLI_OFF(n_args, quiet, int), .hidden = 1},
    CLI_ALIAS("old-dir", "dir"),
    CLI_HELP(),
    {0}};

static const cli_cmd n_cmd = {
    .name = "n", .flags = n_flags, .usage = usage, .max_operands = 0, .col = 12};

static void test_notes(void **state)
{
    (void)state;
    n_args a = {0};
    int first;
    char out[1024], err[512];
    assert_int_equal(run(&n_cmd, &a, &first, out, err, sizeof out, "--target", "t", "--quiet",
                         "--old-dir", "x", (char *)NULL),
                     CLI_FLAGS_GO);
    assert_string_equal(a.target, "t");
    assert_string_equal(a.dir, "x");
    assert_int_equal(a.quiet, 1);
    assert_int_equal(run(&n_cmd, &a, &first, out, err, sizeof out, "--dir", "y", (char *)NULL),
                     CLI_FLAGS_GO);
    assert_string_equal(a.dir, "y");
    assert_int_equal(run(&n_cmd, &a, &first, out, err, sizeof out, "--help", (char *)NULL), 0);
    assert_string_equal(out, "usage: t\n"
                             "  --target ssh://HOST   run there\n"
                             "  --target local  here\n"
                             "  with targets, one result each\n"
                             "  --dir D, --quiet,\n"
                             "  --old-dir D  as elsewhere\n"
                             "  -h, --help  this text\n");
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    assert_non_null(f);
    cli_flags_list(f, &n_cmd);
    fclose(f);
    assert_string_equal(list, "n\t--target --dir --quiet --help -h\n");
    free(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_ranges_and_numbers),
        cmocka_unit_test(test_mistakes),
        cmocka_unit_test(test_stop_at_operand),
        cmocka_unit_test(test_uint_alias_hidden),
        cmocka_unit_test(test_wide_types_settings),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_call_at_seen),
        cmocka_unit_test(test_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
