/* cli/report: `teebench report RUN|LABEL|FILE... [-o FILE] [--format html|markdown]
 * [--baseline LABEL|#N] [--adjust none|holm|bh] [--title T] [--db PATH]` -- reads
 * stored runs, compares them (compare; --adjust as compare's) and writes one page
 * (report/report): a self-contained HTML file, or markdown with its charts as SVG
 * files beside it. Prints the path it wrote.
 *
 * cli_resolve_ref() (cli/ref.c) is the one place that turns an argument into a record: a
 * file (read, not stored) or a run id / label / id prefix in the results store. Files are
 * written atomically (SVGs first, the page last), so a failed run leaves no half-written
 * page. The page's date is SOURCE_DATE_EPOCH's when it is set and not empty (reproducible
 * pages), now otherwise; a value that is not whole seconds since 1970 is refused before
 * anything is read, as reproducible-builds.org's specification asks of a malformed one. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/num.h"
#include "compare/compare.h"
#include "record/record.h"
#include "report/report.h"
#include "store/store.h"

#define CMD "report"

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: teebench report RUN|LABEL|FILE... [-o FILE] [--format html|markdown]\n"
               "                       [--baseline LABEL|#N] [--adjust none|holm|bh]\n"
               "                       [--title TEXT] [--db PATH]\n\n"
               "Writes one page that shows stored runs side by side: a headline per\n"
               "environment (ratios to the baseline with 95 %% intervals and plain-words\n"
               "verdicts), SVG charts (bars with intervals, HTTP latency percentiles, notary\n"
               "modes, probes on a log axis), the comparison table, each environment's facts\n"
               "and the exact commands. The HTML page has no script and loads nothing: it\n"
               "works offline, prints, and can be attached to a ticket.\n\n"
               "  RUN|LABEL|FILE    a run id (or a unique prefix of one) or a label (its\n"
               "                    latest run) in the results store, or a file: a result\n"
               "                    (teebench-result JSON), an http/syscall/probe --json\n"
               "                    output, a bench notary folder. The first is the\n"
               "                    baseline unless --baseline says otherwise\n");
    cli_flags_help(f, c);
}

/* The index of the baseline named by spec among n records, or -1. */
static long find_baseline(const char *spec, tb_record **r, size_t n)
{
    if (spec[0] == '#') {
        long k;
        if (tb_num_long(spec + 1, 1, (long)n, &k) != TB_NUM_OK)
            return -1;
        return k - 1;
    }
    for (size_t i = 0; i < n; i++)
        if (r[i]->label && !strcmp(r[i]->label, spec))
            return (long)i;
    return -1;
}

/* The latest date SOURCE_DATE_EPOCH may give: 9999-12-31T23:59:59Z, the last with a
   four-digit year. */
#define MAX_EPOCH 253402300799L

/* The page's date into out (ISO 8601 UTC): SOURCE_DATE_EPOCH's (decimal seconds since
   1970, 0 .. MAX_EPOCH) when it is set and not empty, else now. 0, or -1 when it is
   set to anything else. */
static int page_date(char *out, size_t n)
{
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    long s = (long)time(NULL);
    if (epoch && *epoch && tb_num_long(epoch, 0, MAX_EPOCH, &s) != TB_NUM_OK)
        return -1;
    tb_utc_iso8601(s, out, n);
    return 0;
}

/* argv as one shell-readable line: arguments with other than [A-Za-z0-9_./=:,@%+-]
   in single quotes. */
static int command_line(int argc, char **argv, tb_buf *out)
{
    int rc = tb_buf_puts(out, "teebench");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int plain = *a != 0;
        for (const char *p = a; *p && plain; p++)
            plain = strchr("_./=:,@%+-", *p) || (*p >= 'a' && *p <= 'z') ||
                    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
        rc |= tb_buf_puts(out, " ");
        if (plain) {
            rc |= tb_buf_puts(out, a);
            continue;
        }
        rc |= tb_buf_puts(out, "'");
        for (const char *p = a; *p; p++)
            rc |= *p == '\'' ? tb_buf_puts(out, "'\\''") : tb_buf_append(out, p, 1);
        rc |= tb_buf_puts(out, "'");
    }
    return rc ? -1 : 0;
}

/* "dir/name.md" -> dir "dir/" and stem "name". */
static void split_path(const char *path, char *dir, size_t dlen, char *stem, size_t slen)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dl = (size_t)(base - path);
    snprintf(dir, dlen, "%.*s", (int)(dl < dlen ? dl : dlen - 1), path);
    const char *dot = strrchr(base, '.');
    size_t sl = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    snprintf(stem, slen, "%.*s", (int)(sl < slen ? sl : slen - 1), base);
    if (!stem[0])
        snprintf(stem, slen, "report");
}

typedef struct report_args {
    const char *db;
    const char *output;
    const char *baseline;
    const char *title;
    enum tb_page_format fmt;
    int adjust; /* enum tb_stats_adjust */
} report_args;

static int set_format(void *args, const char *flag, const char *v, tb_err *err)
{
    if (tb_page_format_parse(v, &((report_args *)args)->fmt) < 0)
        return tb_errf(err, "%s %s: expected html or markdown", flag, v);
    return 0;
}

static int set_adjust(void *args, const char *flag, const char *v, tb_err *err)
{
    if (tb_compare_adjust_parse(v, &((report_args *)args)->adjust) < 0)
        return tb_errf(err, "%s %s: unknown (none, holm, bh)", flag, v);
    return 0;
}

static const cli_flag report_flags[] = {
    CLI_STR("output", 'o', report_args, output, "FILE",
            "where to write (default report.html, or report.md for\n"
            "markdown; '-' writes HTML to stdout)"),
    CLI_CALL("format", 'f', set_format, "FMT",
             "html (default) or markdown: tables and links to SVG files\n"
             "written beside it (<name>-throughput.svg, ...)"),
    CLI_STR("baseline", 'b', report_args, baseline, "X",
            "the baseline: a label, or #N for the N-th argument"),
    CLI_CALL("adjust", 0, set_adjust, "M",
             "p-values adjusted for testing many metrics, per\n"
             "environment: none (default), holm or bh (Benjamini-\n"
             "Hochberg), as teebench compare --adjust"),
    CLI_STR("title", 't', report_args, title, "TEXT",
            "the page title (default \"teebench report\")"),
    CLI_STR("db", 0, report_args, db, "PATH",
            "the results store (default $TEEBENCH_DB, else\n"
            "~/.local/share/teebench/results.db)"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_report_cmd = {.name = CMD,
                                .flags = report_flags,
                                .usage = usage,
                                .max_operands = -1,
                                .col = 20,
                                .align_long = 1};

/* Parses flags into a; the operands start at optind. 0, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, report_args *a)
{
    int first, rc = cli_flags_parse(&cli_report_cmd, argc, argv, a, &first);
    if (rc != CLI_FLAGS_GO)
        return rc == 0 ? -1 : rc;
    if (optind >= argc)
        return cli_fail_code(2, CMD, "no RESULT given (teebench report --help)");
    if (!a->output)
        a->output = a->fmt == TB_PAGE_MARKDOWN ? "report.md" : "report.html";
    if (!a->output[0])
        return cli_fail_code(2, CMD, "--output: empty file name");
    if (!strcmp(a->output, "-") && a->fmt == TB_PAGE_MARKDOWN)
        return cli_fail_code(2, CMD, "--output -: markdown needs a file (its SVGs go beside it)");
    /* A device or FIFO (-o /dev/null) takes the page but has no directory of its own
       for the SVGs: they would land in /dev. */
    struct stat st;
    if (a->fmt == TB_PAGE_MARKDOWN && stat(a->output, &st) == 0 && !S_ISREG(st.st_mode))
        return cli_fail_code(2, CMD,
                             "--output %s: not a regular file: markdown needs a file (its SVGs "
                             "go beside it)",
                             a->output);
    return 0;
}

/* Writes the page's files: the SVGs beside the page, then the page. */
static int write_page(const report_args *a, const tb_page *p, const char *dir, tb_err *err)
{
    for (size_t i = 0; i < p->n_files; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", dir, p->files[i].name);
        if (tb_file_write_atomic(path, p->files[i].data.p, p->files[i].data.len, err) < 0)
            return tb_err_wrap(err, "writing %s", path);
    }
    if (!strcmp(a->output, "-")) {
        if (fwrite(p->doc.p, 1, p->doc.len, stdout) != p->doc.len || fflush(stdout) != 0)
            return tb_errno(err, "writing to stdout");
        return 0;
    }
    if (tb_file_write_atomic(a->output, p->doc.p, p->doc.len, err) < 0)
        return tb_err_wrap(err, "writing %s", a->output);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    report_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    char when[32];
    if (page_date(when, sizeof when) < 0)
        return cli_fail_code(2, CMD,
                             "SOURCE_DATE_EPOCH '%.40s' is not whole seconds since 1970 "
                             "(0 .. %ld)",
                             getenv("SOURCE_DATE_EPOCH"), MAX_EPOCH);
    size_t n = (size_t)(argc - optind);
    tb_record **recs = calloc(n, sizeof *recs);
    tb_buf cmdline = {0};
    tb_compare cmp = {0};
    tb_page page = {0};
    tb_store *store = NULL;
    tb_err err = {{0}};
    if (!recs)
        return cli_fail(CMD, "out of memory");
    rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        if (cli_resolve_ref(a.db, &store, argv[optind + (int)i], &recs[i], &err) < 0)
            rc = cli_fail(CMD, "%s", err.msg);
    long base = 0;
    if (!rc && a.baseline && (base = find_baseline(a.baseline, recs, n)) < 0)
        rc = cli_fail_code(2, CMD, "--baseline %s: no such label or position among the results",
                           a.baseline);
    if (!rc && tb_compare_build((const tb_record *const *)recs, n, (size_t)base, TB_COMPARE_ALPHA,
                                &cmp, &err) < 0)
        rc = cli_fail(CMD, "comparing: %s", err.msg);
    if (!rc && tb_compare_set_adjust(&cmp, a.adjust, &err) < 0)
        rc = cli_fail(CMD, "%s", err.msg);
    if (!rc && command_line(argc, argv, &cmdline) < 0)
        rc = cli_fail(CMD, "out of memory");
    if (!rc) {
        char dir[4096], stem[512];
        split_path(a.output, dir, sizeof dir, stem, sizeof stem);
        tb_page_opts o = {a.title, when, (const char *)cmdline.p, stem};
        if (tb_page_build(&cmp, a.fmt, &o, &page, &err) < 0)
            rc = cli_fail(CMD, "%s", err.msg);
        else if (write_page(&a, &page, dir, &err) < 0)
            rc = cli_fail(CMD, "%s", err.msg);
        else if (strcmp(a.output, "-")) {
            printf("wrote %s (%.1f KiB; %zu environment%s, %zu metric%s", a.output,
                   (double)page.doc.len / 1024, n, n == 1 ? "" : "s", cmp.n_rows,
                   cmp.n_rows == 1 ? "" : "s");
            if (page.n_files)
                printf("; %zu SVG file%s beside it", page.n_files, page.n_files == 1 ? "" : "s");
            printf(")\n");
        }
    }
    tb_page_free(&page);
    tb_store_close(store);
    tb_compare_clear(&cmp);
    tb_buf_clear(&cmdline);
    for (size_t i = 0; i < n; i++)
        tb_record_free(recs[i]);
    free(recs);
    return rc;
}
