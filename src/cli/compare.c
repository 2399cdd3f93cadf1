/* cli/compare: `teebench compare RUN|LABEL|FILE ...` -- environments side by
 * side (src/compare does the statistics and the formatting), with regression
 * gates for CI (--fail-if). Every reference goes through cli_resolve_ref (cli/ref.c):
 * a result file, or a run id, label or id prefix in the results store. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <errno.h>
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli/opt.h"
#include "compare/compare.h"

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: teebench compare [options] RUN|LABEL|FILE ...\n\n"
               "Environments side by side: one row per metric, one column per environment, the\n"
               "first (or --baseline) the reference. Each cell: the median with its 95 %%\n"
               "interval (order statistics; 6 samples or more), against the baseline the ratio\n"
               "of medians with a 95 %% bootstrap interval and a Mann-Whitney U test (~ = no\n"
               "significant difference; better/worse: the side the test finds the samples\n"
               "shifted to, which equal medians of quantized metrics do not show). Noisy\n"
               "metrics (CV > 5 %%) are flagged; geometric means of the ratios per direction\n"
               "close the table. Under it, per environment, how many of the N rows tested\n"
               "differ at alpha and how many would by chance alone (N x alpha: of 46 rows at\n"
               "0.05, about 2.3 differ between two identical machines); csv writes that line\n"
               "to stderr, json has it in multiple_comparisons; --adjust corrects for it. A\n"
               "column names its environment's TEE ([TDX], [SEV-SNP]); the legend says each\n"
               "one's TEE and attestation evidence. Simulated TEEs say SIMULATED.\n\n");
    cli_flags_help(f, c);
    fprintf(f, "\n"
               "Exit status: 0; 1 when a gate fails or an input cannot be read; 2 on bad flags.\n");
}

typedef struct opts {
    const char *baseline, *db;
    enum tb_compare_format format;
    double alpha;
    int adjust; /* enum tb_stats_adjust */
    tb_compare_gate *gates;
    size_t n_gates;
} opts;

static int set_format(void *args, const char *flag, const char *v, tb_err *err)
{
    if (tb_compare_format_parse(v, &((opts *)args)->format) < 0)
        return tb_errf(err, "%s %s: unknown (text, markdown, csv, json)", flag, v);
    return 0;
}

static int add_gate(void *args, const char *flag, const char *v, tb_err *err)
{
    opts *o = args;
    tb_compare_gate *g = realloc(o->gates, (o->n_gates + 1) * sizeof *g);
    if (!g)
        return tb_errf(err, "out of memory");
    o->gates = g;
    tb_err why = {{0}};
    if (tb_compare_gate_parse(v, &o->gates[o->n_gates], &why) < 0)
        return tb_errf(err, "%s: %s", flag, why.msg);
    o->n_gates++;
    return 0;
}

static int set_alpha(void *args, const char *flag, const char *v, tb_err *err)
{
    opts *o = args;
    if (cli_opt_double(flag, v, 0, 1, &o->alpha, err) < 0)
        return -1;
    if (!(o->alpha > 0 && o->alpha < 1))
        return tb_errf(err, "%s %s: must be above 0 and below 1", flag, v);
    return 0;
}

static int set_adjust(void *args, const char *flag, const char *v, tb_err *err)
{
    if (tb_compare_adjust_parse(v, &((opts *)args)->adjust) < 0)
        return tb_errf(err, "%s %s: unknown (none, holm, bh)", flag, v);
    return 0;
}

static const cli_flag compare_flags[] = {
    CLI_STR("baseline", 0, opts, baseline, "X",
            "the reference: an argument as given, a label, or a position\n"
            "(1 = the first argument)"),
    CLI_CALL("format", 0, set_format, "F", "text (default), markdown, csv or json"),
    CLI_CALL("fail-if", 0, add_gate, "EXPR",
             "a regression gate, repeatable: '<metric> <op> <ratio>' with op\n"
             "<, <=, > or >=; fails when an environment's ratio to the\n"
             "baseline satisfies it ('http.nginx.rps < 0.9'), or has none;\n"
             "compared as printed (3.000x is not < 3)"),
    CLI_CALL("alpha", 0, set_alpha, "A", "significance level of the test (default 0.05)"),
    CLI_CALL("adjust", 0, set_adjust, "M",
             "adjust p-values for testing many rows, per environment:\n"
             "none (default), holm (family-wise error rate) or bh\n"
             "(Benjamini-Hochberg: false discovery rate, the useful one at\n"
             "a few samples per metric); verdicts then use the adjusted p"),
    CLI_STR("db", 0, opts, db, "PATH",
            "the results store that RUN ids and LABELs are looked up in"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_compare_cmd = {
    .name = "compare", .flags = compare_flags, .usage = usage, .max_operands = -1, .col = 19};

/* Parses the flags; returns -1 to go on, or an exit code. */
static int parse_flags(int argc, char **argv, opts *o)
{
    int first, rc = cli_flags_parse(&cli_compare_cmd, argc, argv, o, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (optind >= argc)
        return cli_fail_code(2, "compare",
                             "nothing to compare: give RUN ids, LABELs or result "
                             "FILEs (teebench compare --help)");
    return -1;
}

/* The baseline's index: an argument as given, else a unique label, else a
   position 1..n. Returns -1 to go on, or an exit code. */
static int find_baseline(const char *x, char **refs, tb_record **recs, size_t n, size_t *out)
{
    *out = 0;
    if (!x)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(refs[i], x)) {
            *out = i;
            return -1;
        }
    }
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (recs[i]->label && !strcmp(recs[i]->label, x)) {
            *out = i;
            hits++;
        }
    }
    if (hits > 1)
        return cli_fail_code(2, "compare",
                             "--baseline %s: %zu environments have that label (give the "
                             "argument or its position)",
                             x, hits);
    if (hits == 1)
        return -1;
    long pos;
    tb_err err;
    if (cli_opt_long("--baseline", x, 1, (long)n, &pos, &err) == 0) {
        *out = (size_t)pos - 1;
        return -1;
    }
    return cli_fail_code(2, "compare",
                         "--baseline %s: not an argument, a label or a position 1..%zu", x, n);
}

/* Evaluates every gate; failures go to stderr. Returns 0 (all pass), 1 (some
   failed) or 2 (a gate cannot be evaluated: printed, nothing else is). */
static int check_gates(const tb_compare *c, const opts *o, tb_buf *why)
{
    tb_err err = {{0}};
    int failed = 0;
    for (size_t i = 0; i < o->n_gates; i++) {
        int n = tb_compare_gate_eval(c, &o->gates[i], why, &err);
        if (n < 0)
            return cli_fail_code(2, "compare", "--fail-if: %s", err.msg);
        failed |= n > 0;
    }
    return failed;
}

static void print_gate_failures(const tb_buf *why)
{
    const char *s = (const char *)why->p;
    for (size_t i = 0; i < why->len;) {
        const char *nl = memchr(s + i, '\n', why->len - i);
        size_t len = nl ? (size_t)(nl - (s + i)) : why->len - i;
        cli_fail("compare", "gate failed: %.*s", (int)len, s + i);
        i += len + 1;
    }
}

/* CSV has no place for a sentence: the multiple-comparison lines go to stderr, where
   a terminal shows them and a CSV reader does not see them. */
static void print_summary_lines(const tb_compare *c)
{
    char line[1024], esc[2048];
    for (size_t i = 0; i < c->n_records; i++) {
        tb_compare_summary(c, i, line, sizeof line);
        if (line[0])
            fprintf(stderr, "%s\n", tb_text_safe(line, esc, sizeof esc));
    }
}

static int run(char **refs, size_t n, const opts *o, tb_record **recs)
{
    tb_err err = {{0}};
    tb_store *store = NULL;
    for (size_t i = 0; i < n; i++)
        if (cli_resolve_ref(o->db, &store, refs[i], &recs[i], &err) < 0) {
            tb_store_close(store);
            return cli_fail("compare", "%s", err.msg);
        }
    tb_store_close(store);
    size_t baseline;
    int rc = find_baseline(o->baseline, refs, recs, n, &baseline);
    if (rc >= 0)
        return rc;
    tb_compare c;
    if (tb_compare_build((const tb_record *const *)recs, n, baseline, o->alpha, &c, &err) < 0)
        return cli_fail("compare", "%s", err.msg);
    if (tb_compare_set_adjust(&c, o->adjust, &err) < 0) {
        tb_compare_clear(&c);
        return cli_fail("compare", "%s", err.msg);
    }
    tb_buf why = {0}, out = {0};
    int gates = check_gates(&c, o, &why);
    if (gates < 2) {
        if (tb_compare_format(&c, o->format, &out, &err) < 0) {
            gates = cli_fail("compare", "%s", err.msg);
        } else if (out.len && (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout))) {
            gates = cli_fail("compare", "writing the table: %s", strerror(errno));
        } else {
            if (o->format == TB_COMPARE_CSV)
                print_summary_lines(&c);
            if (gates == 1)
                print_gate_failures(&why);
        }
    }
    tb_buf_clear(&why);
    tb_buf_clear(&out);
    tb_compare_clear(&c);
    return gates;
}

int cmd_compare(int argc, char **argv)
{
    opts o = {.format = TB_COMPARE_TEXT, .alpha = TB_COMPARE_ALPHA};
    int rc = parse_flags(argc, argv, &o);
    if (rc < 0) {
        size_t n = (size_t)(argc - optind);
        tb_record **recs = calloc(n, sizeof *recs);
        rc = recs ? run(argv + optind, n, &o, recs) : cli_fail("compare", "out of memory");
        for (size_t i = 0; recs && i < n; i++)
            tb_record_free(recs[i]);
        free(recs);
    }
    free(o.gates);
    return rc;
}
