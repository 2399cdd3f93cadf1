/* cli/results: `teebench results list|show|export|import|rm` -- the results
 * store from the command line.
 *
 * The store is --db FILE (anywhere on the line), else $TEEBENCH_DB, else the
 * default path (store/store.h). A RUN is a reference as tb_store_resolve reads
 * it: a result or importable file, a full id, a label (its latest run), or a
 * unique id prefix of 4 or more characters. show and export read files even
 * when the store cannot be opened. Exit codes: 0; 1 when something failed (for
 * import: any file); 2 for bad flags or arguments. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/csv.h"
#include "base/file.h"
#include "base/text.h"
#include "record/import.h"
#include "stats/summary.h"
#include "store/store.h"
#include "sys/env.h"

static const char *const CMD = "results";

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench results [--db FILE] list [--label LABEL] [--json]\n"
            "       teebench results [--db FILE] show RUN [--json]\n"
            "       teebench results [--db FILE] export RUN... [--format json|csv] [-o FILE]\n"
            "       teebench results [--db FILE] import [--label LABEL] [--target NAME] FILE...\n"
            "       teebench results [--db FILE] rm RUN\n\n"
            "The results store: every run of every environment, all samples, in one SQLite\n"
            "file (--db FILE, else $TEEBENCH_DB, else $XDG_DATA_HOME/teebench/results.db or\n"
            "~/.local/share/teebench/results.db).\n\n"
            "RUN is a result file (or any file import reads), a run id, a label (its latest\n"
            "run) or a unique prefix of an id (4 characters or more).\n\n"
            "  list            stored runs, oldest first, each with its TEE (--label: only that "
            "label)\n"
            "  show RUN        a run: its environment, its TEE and attestation evidence, and\n"
            "                  each metric's n, median, unit\n"
            "  export RUN...   json: the result document (an array for several runs);\n"
            "                  csv: run_id,label,metric,unit,better,idx,value (one row a sample)\n"
            "  import FILE...  result documents, the --json output of `teebench http`,\n"
            "                  `syscall`, `probe`, `storage`, `kv`, `memory` and\n"
            "                  `network`, `teebench bench notary` folders, results.csv\n"
            "                  files; the same\n"
            "                  input twice is stored once. --label names the environment\n"
            "                  (default: a result document's own label, else from the file's\n"
            "                  env facts); --target names the http target in metric names\n"
            "                  (default: imported)\n"
            "  rm RUN          remove a run and its samples\n\n"
            "A label is 1..63 of A-Z a-z 0-9 _ . - and space, starting with a letter or digit,\n"
            "not ending with a space (tdx-guest, \"TDX VM\"); an imported file's label must be\n"
            "one too. Text from results (commands, facts, notes) is printed with control\n"
            "characters escaped (ESC as \\x1b).\n\n");
    cli_flags_help(f, c);
}

typedef struct opts {
    const char *db, *label, *target, *format, *output;
    int json;
    char **args; /* operands after the subcommand */
    int nargs;
    const char *sub;
} opts;

/* ---------- helpers ---------- */

static int open_store(const opts *o, tb_store **s, tb_err *err)
{
    char path[PATH_MAX];
    if (tb_store_path(o->db, path, sizeof path, err) < 0)
        return -1;
    return tb_store_open(path, s, err);
}

/* Shortest %g text that reads back as exactly v. */
static void fmt_num(double v, char *out, size_t n)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(out, n, "%.*g", p, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

/* A short id width: 8 characters, more when two listed ids share them. */
static int id_width(const tb_store_runs *l)
{
    int w = 8;
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = i + 1; j < l->n; j++)
            while (w < 36 && !strncmp(l->runs[i].id, l->runs[j].id, (size_t)w))
                w++;
    return w;
}

/* A string from a result or the store, ready for %s: control and bidi characters
   escaped (base/text), cut to fit b. */
#define SAFE(str, b) tb_text_safe((str), (b), sizeof(b))

/* Resolves ref with the store when it opened, else files only (s NULL). */
static int resolve(tb_store *s, const tb_err *open_err, const char *ref, tb_record **r)
{
    tb_err e;
    if (tb_store_resolve(s, ref, r, NULL, &e) == 0)
        return 0;
    if (!s && open_err)
        return cli_fail(CMD, "%s", open_err->msg);
    return cli_fail(CMD, "%s", e.msg);
}

/* ---------- list ---------- */

static int do_list(const opts *o)
{
    if (o->nargs)
        return cli_fail_code(2, CMD, "list takes no arguments ('%s')", o->args[0]);
    tb_store *s;
    tb_err e;
    if (open_store(o, &s, &e) < 0)
        return cli_fail(CMD, "%s", e.msg);
    tb_store_runs l;
    if (tb_store_list(s, o->label, &l, &e) < 0) {
        tb_store_runs_free(&l);
        tb_store_close(s);
        return cli_fail(CMD, "%s", e.msg);
    }
    if (o->json) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < l.n; i++) {
            const tb_store_run *x = &l.runs[i];
            json_array_append_new(
                a, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:I,s:I,s:s}", "id", x->id, "label",
                             x->label, "status", x->status, "profile", x->profile, "started",
                             x->started, "finished", x->finished, "teebench_version",
                             x->teebench_version, "simulated", x->simulated, "metrics",
                             (json_int_t)x->n_metrics, "samples", (json_int_t)x->n_samples, "tee",
                             tb_record_tee_kind_name(
                                 tb_env_platform_tee(x->platform[0] ? x->platform : NULL))));
        }
        char *t = a ? json_dumps(a, JSON_INDENT(2)) : NULL;
        if (t)
            printf("%s\n", t);
        free(t);
        json_decref(a);
    } else if (l.n == 0) {
        char lb[256];
        printf("no runs%s%s%s in %s\n", o->label ? " labelled '" : "", SAFE(o->label, lb),
               o->label ? "'" : "", tb_store_file(s));
    } else {
        int w = id_width(&l), lw = 5;
        for (size_t i = 0; i < l.n; i++)
            if ((int)strlen(l.runs[i].label) > lw)
                lw = (int)strlen(l.runs[i].label);
        if (lw > 40)
            lw = 40;
        printf("%-*s  %-20s  %-*s  %-7s  %-9s  %-11s  %7s  %7s\n", w, "ID", "STARTED (UTC)", lw,
               "LABEL", "TEE", "PROFILE", "STATUS", "METRICS", "SAMPLES");
        for (size_t i = 0; i < l.n; i++) {
            const tb_store_run *x = &l.runs[i];
            const char *tee =
                tb_record_tee_kind_name(tb_env_platform_tee(x->platform[0] ? x->platform : NULL));
            char lb[256], pb[256], sb[64];
            printf("%-*.*s  %-20s  %-*s  %-7s  %-9s  %-11s  %7zu  %7zu%s\n", w, w, x->id,
                   x->started, lw, SAFE(x->label, lb), tee, SAFE(x->profile, pb),
                   SAFE(x->status, sb), x->n_metrics, x->n_samples,
                   x->simulated ? "  SIMULATED" : "");
        }
    }
    tb_store_runs_free(&l);
    tb_store_close(s);
    return 0;
}

/* ---------- show ---------- */

static const char *fact(const json_t *env, const char *key)
{
    const json_t *v = json_object_get(json_object_get(env, key), "value");
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void print_env(const json_t *env)
{
    if (!json_is_object(env)) {
        printf("env         unknown (no environment facts)\n");
        return;
    }
    const char *platform = fact(env, "platform"), *hv = fact(env, "hypervisor");
    const char *cpu = fact(env, "cpu_model"), *kernel = fact(env, "kernel_release");
    const json_t *cpus = json_object_get(json_object_get(env, "cpus"), "value");
    const json_t *mem = json_object_get(json_object_get(env, "memory_bytes"), "value");
    char b[512];
    printf("env         %s", platform ? SAFE(platform, b) : "unknown");
    if (hv && strcmp(hv, "none") && strcmp(hv, "unknown"))
        printf(" (hypervisor %s)", SAFE(hv, b));
    if (cpu)
        printf(", %s", SAFE(cpu, b));
    if (json_is_integer(cpus))
        printf(", %lld CPUs", (long long)json_integer_value(cpus));
    if (json_is_integer(mem))
        printf(", %.1f GiB memory", (double)json_integer_value(mem) / (1024.0 * 1024 * 1024));
    if (kernel)
        printf(", kernel %s", SAFE(kernel, b));
    printf("\n");
}

static int show_text(const tb_record *r)
{
    int sim = r->simulated;
    for (size_t i = 0; i < r->n_metrics; i++)
        sim |= r->metrics[i].simulated;
    char b1[512], b2[512];
    printf("run         %s\n", r->id);
    printf("label       %s%s\n", SAFE(r->label, b1), sim ? "  SIMULATED" : "");
    printf("status      %s (profile %s)\n", SAFE(r->status, b1), SAFE(r->profile, b2));
    printf("started     %s%s%s\n", r->started, *r->finished ? "  finished " : "", r->finished);
    printf("teebench    %s\n", SAFE(r->teebench_version, b1));
    print_env(r->env);
    tb_record_tee_info tee;
    tb_record_tee(r, &tee);
    printf("tee         %s; attestation evidence %s\n", tee.kind,
           tee.evidence[0] ? tee.evidence : "none recorded");
    const json_t *src = json_object_get(r->extra, "source");
    const char *path = json_string_value(json_object_get(src, "path"));
    const char *format = json_string_value(json_object_get(src, "format"));
    if (json_is_object(src))
        printf("imported    from %s (%s)\n", path ? SAFE(path, b1) : "?",
               format ? SAFE(format, b2) : "?");
    size_t i;
    const json_t *c;
    tb_buf cmd = {0};
    json_array_foreach(r->commands, i, c)
    {
        tb_buf_reset(&cmd); /* a command in full, however long */
        if (tb_text_escape(&cmd, json_string_value(c), json_string_length(c)) < 0) {
            tb_buf_clear(&cmd);
            return cli_fail(CMD, "out of memory");
        }
        printf("%s %s\n", i ? "           " : "commands   ", cmd.p ? (const char *)cmd.p : "");
    }
    tb_buf_clear(&cmd);
    if (r->n_metrics == 0) {
        printf("\nno metrics\n");
        return 0;
    }
    int nw = 6;
    for (size_t k = 0; k < r->n_metrics; k++)
        if ((int)strlen(r->metrics[k].name) > nw)
            nw = (int)strlen(r->metrics[k].name);
    printf("\n%-*s  %5s  %14s  %-8s  %s\n", nw, "METRIC", "N", "MEDIAN", "UNIT", "BETTER");
    for (size_t k = 0; k < r->n_metrics; k++) {
        const tb_metric *m = &r->metrics[k];
        char med[40] = "-";
        double v;
        if (m->n && tb_stats_median(m->samples, m->n, &v) == 0)
            snprintf(med, sizeof med, fabs(v) >= 1e5 ? "%.0f" : "%.6g", v);
        printf("%-*s  %5zu  %14s  %-8s  %-6s%s\n", nw, m->name, m->n, med, SAFE(m->unit, b1),
               m->better > 0 ? "higher" : "lower", m->simulated ? "  SIMULATED" : "");
    }
    return 0;
}

static int do_show(const opts *o)
{
    if (o->nargs != 1)
        return cli_fail_code(2, CMD, "show takes one RUN (teebench results --help)");
    tb_store *s = NULL;
    tb_err oe, e;
    int opened = open_store(o, &s, &oe) == 0;
    tb_record *r = NULL;
    int rc = resolve(opened ? s : NULL, opened ? NULL : &oe, o->args[0], &r);
    if (rc == 0) {
        if (o->json) {
            char *t = tb_record_dumps(r, 0, NULL);
            if (!t)
                rc = cli_fail(CMD, "out of memory");
            else
                fputs(t, stdout);
            free(t);
        } else {
            rc = show_text(r);
        }
    }
    (void)e;
    tb_record_free(r);
    tb_store_close(s);
    return rc;
}

/* ---------- export ---------- */

static int export_csv(tb_record **rs, size_t n, tb_buf *out)
{
    int rc = tb_buf_puts(out, "run_id,label,metric,unit,better,idx,value\n");
    for (size_t i = 0; i < n && rc == 0; i++)
        for (size_t k = 0; k < rs[i]->n_metrics && rc == 0; k++) {
            const tb_metric *m = &rs[i]->metrics[k];
            for (size_t j = 0; j < m->n && rc == 0; j++) {
                char v[40];
                fmt_num(m->samples[j], v, sizeof v);
                tb_csv_row r;
                tb_csv_row_begin(&r, out);
                tb_csv_put_raw(&r, rs[i]->id);
                tb_csv_put_text(&r, rs[i]->label); /* '=...' as text */
                tb_csv_put_text(&r, m->name);
                tb_csv_put_text(&r, m->unit);
                tb_csv_put_raw(&r, m->better > 0 ? "higher" : "lower");
                tb_csv_put_printf(&r, "%zu", j);
                tb_csv_put_raw(&r, v);
                rc = tb_csv_row_end(&r);
            }
        }
    return rc;
}

static int export_json(tb_record **rs, size_t n, tb_buf *out)
{
    if (n == 1) {
        size_t len;
        char *t = tb_record_dumps(rs[0], 0, &len);
        int rc = t ? tb_buf_append(out, t, len) : -1;
        free(t);
        return rc;
    }
    int rc = tb_buf_puts(out, "[\n");
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t len;
        char *t = tb_record_dumps(rs[i], 0, &len);
        if (!t)
            return -1;
        rc = tb_buf_append(out, t, len - 1); /* without its newline */
        free(t);
        if (rc == 0)
            rc = tb_buf_puts(out, i + 1 < n ? ",\n" : "\n");
    }
    return rc ? rc : tb_buf_puts(out, "]\n");
}

static int do_export(const opts *o)
{
    const char *fmt = o->format ? o->format : "json";
    int csv = !strcmp(fmt, "csv");
    if (!csv && strcmp(fmt, "json"))
        return cli_fail_code(2, CMD, "--format %s: json or csv", fmt);
    if (o->nargs < 1)
        return cli_fail_code(2, CMD, "export takes one or more RUNs (teebench results --help)");
    tb_store *s = NULL;
    tb_err oe, e;
    int opened = open_store(o, &s, &oe) == 0;
    tb_record **rs = calloc((size_t)o->nargs, sizeof *rs);
    int rc = rs ? 0 : cli_fail(CMD, "out of memory");
    for (int i = 0; i < o->nargs && rc == 0; i++)
        rc = resolve(opened ? s : NULL, opened ? NULL : &oe, o->args[i], &rs[i]);
    tb_buf out = {0};
    if (rc == 0 && (csv ? export_csv(rs, (size_t)o->nargs, &out)
                        : export_json(rs, (size_t)o->nargs, &out)) < 0)
        rc = cli_fail(CMD, "out of memory");
    if (rc == 0) {
        if (o->output && strcmp(o->output, "-")) {
            if (tb_file_write_atomic(o->output, out.p ? (const char *)out.p : "", out.len, &e) < 0)
                rc = cli_fail(CMD, "export: %s", e.msg);
        } else if (out.len && (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout))) {
            rc = cli_fail(CMD, "export: writing standard output failed");
        }
    }
    tb_buf_clear(&out);
    for (int i = 0; rs && i < o->nargs; i++)
        tb_record_free(rs[i]);
    free(rs);
    tb_store_close(s);
    return rc;
}

/* ---------- import ---------- */

/* One file: 0 imported or already stored, 1 failed (reported). */
static int import_one(tb_store *s, const char *path, const tb_import_opts *io)
{
    tb_record *r = NULL;
    enum tb_import_format fmt;
    tb_err e;
    if (tb_record_import_file(path, io, &r, &fmt, &e) < 0) {
        cli_fail(CMD, "%s", e.msg);
        return 1;
    }
    /* what is stored follows the label rule, whoever wrote the file (a result
       document keeps its label unless --label gives one) */
    if (!tb_record_label_valid(r->label)) {
        cli_fail(CMD,
                 "%s: its label '%s' is not valid (" TB_RECORD_LABEL_RULE "): give one with "
                 "--label",
                 path, r->label);
        tb_record_free(r);
        return 1;
    }
    int rc;
    tb_record *have = NULL;
    /* An id derived from the input is the same input: stored once, whatever path. */
    if (fmt != TB_IMPORT_RESULT && tb_store_get(s, r->id, &have, &e) == 0)
        rc = 1;
    else
        rc = tb_store_put(s, r, &e);
    tb_record_free(have);
    char lb[256], pb[512];
    if (rc == 0)
        printf("imported %s %s (%zu metric%s)%s\n", r->id, SAFE(r->label, lb), r->n_metrics,
               r->n_metrics == 1 ? "" : "s", r->simulated ? " SIMULATED" : "");
    else if (rc == 1)
        printf("already stored %s %s (%s)\n", r->id, SAFE(r->label, lb), SAFE(path, pb));
    else
        cli_fail(CMD, "%s: %s", path, e.msg);
    tb_record_free(r);
    return rc < 0;
}

static int do_import(const opts *o)
{
    if (o->nargs < 1)
        return cli_fail_code(2, CMD, "import takes one or more FILEs (teebench results --help)");
    if (o->label && !tb_record_label_valid(o->label))
        return cli_fail_code(2, CMD, "--label %s: want " TB_RECORD_LABEL_RULE, o->label);
    tb_store *s;
    tb_err e;
    if (open_store(o, &s, &e) < 0)
        return cli_fail(CMD, "%s", e.msg);
    tb_import_opts io = {.label = o->label, .target = o->target};
    int failed = 0;
    for (int i = 0; i < o->nargs; i++)
        failed += import_one(s, o->args[i], &io);
    tb_store_close(s);
    if (failed && o->nargs > 1)
        fprintf(stderr, "teebench: results: %d of %d inputs not imported\n", failed, o->nargs);
    return failed ? 1 : 0;
}

/* ---------- rm ---------- */

static int do_rm(const opts *o)
{
    if (o->nargs != 1)
        return cli_fail_code(2, CMD, "rm takes one RUN (teebench results --help)");
    tb_store *s;
    tb_err e;
    if (open_store(o, &s, &e) < 0)
        return cli_fail(CMD, "%s", e.msg);
    tb_record *r = NULL;
    enum tb_store_ref how;
    int rc = 0;
    char lb[256];
    if (tb_store_resolve(s, o->args[0], &r, &how, &e) < 0)
        rc = cli_fail(CMD, "%s", e.msg);
    else if (how == TB_STORE_REF_FILE)
        rc = cli_fail(CMD, "rm: '%s' is a file, not a stored run (give its id)", o->args[0]);
    else if (tb_store_rm(s, r->id, &e) < 0)
        rc = cli_fail(CMD, "%s", e.msg);
    else
        printf("removed %s %s\n", r->id, SAFE(r->label, lb));
    tb_record_free(r);
    tb_store_close(s);
    return rc;
}

/* ---------- flags ---------- */

/* --label and --target are told of in the subcommands' lines above the list. */
static const cli_flag results_flags[] = {
    CLI_STR("db", 0, opts, db, "FILE", "the store to use"),
    CLI_BOOL("json", 0, opts, json, "machine-readable output (list, show)"),
    {.name = "label",
     .type = CLI_F_STR,
     .arg = "LABEL",
     .off = CLI_OFF(opts, label, const char *),
     .hidden = 1},
    {.name = "target",
     .type = CLI_F_STR,
     .arg = "NAME",
     .off = CLI_OFF(opts, target, const char *),
     .hidden = 1},
    CLI_STR("format", 0, opts, format, "F", "json (default) or csv (export)"),
    CLI_STR("output", 'o', opts, output, "F",
            "write the export to F (atomically) instead of stdout"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_results_cmd = {
    .name = "results", .flags = results_flags, .usage = usage, .max_operands = -1, .col = 18};

/* The flags given that sub does not take: the first one's name, or NULL. */
static const char *foreign_flag(const opts *o, const char *sub)
{
    int list = !strcmp(sub, "list"), show = !strcmp(sub, "show");
    int export = !strcmp(sub, "export"), import = !strcmp(sub, "import");
    if (o->json && !list && !show)
        return "--json";
    if (o->label && !list && !import)
        return "--label";
    if (o->target && !import)
        return "--target";
    if (o->format && !export)
        return "--format";
    if (o->output && !export)
        return "--output";
    return NULL;
}

int cmd_results(int argc, char **argv)
{
    opts o = {0};
    int first, rc = cli_flags_parse(&cli_results_cmd, argc, argv, &o, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (first >= argc) {
        usage(stderr, &cli_results_cmd);
        return 2;
    }
    o.sub = argv[first];
    o.args = argv + first + 1;
    o.nargs = argc - first - 1;
    static const struct {
        const char *name;
        int (*run)(const opts *);
    } subs[] = {{"list", do_list},
                {"show", do_show},
                {"export", do_export},
                {"import", do_import},
                {"rm", do_rm}};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        if (strcmp(o.sub, subs[i].name))
            continue;
        const char *foreign = foreign_flag(&o, o.sub);
        if (foreign)
            return cli_fail_code(2, CMD, "%s: not an option of results %s", foreign, o.sub);
        return subs[i].run(&o);
    }
    return cli_unknown_subcommand(
        CMD, o.sub, (const char *const[]){"list", "show", "export", "import", "rm", NULL});
}
