/* cli/probe: `teebench probe` -- runs the TEE-sensitive microbenchmarks of sys/probe
 * and prints a table (median and p99 per operation, in ns) or one JSON document (the
 * probe workload's, workloads/probe). */
#include "cli/cli.h"
#include "cli/flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/json.h"
#include "cli/opt.h"
#include "sys/env.h"
#include "sys/probe.h"
#include "workloads/probe.h"

#define MAX_PICK 64

typedef struct probe_args {
    const tb_probe_info *pick[MAX_PICK];
    size_t npick;
    tb_probe_opts opts;
    int json;
} probe_args;

static void usage(FILE *f, const cli_cmd *c)
{
    size_t n;
    const tb_probe_info *all = tb_probe_all(&n);
    fprintf(f, "usage: teebench probe [--probes NAME,...] [--reps N] [--warmup N] [--cpu N] "
               "[--json]\n\n"
               "Microbenchmarks of what a confidential VM handles differently from a VM. Each\n"
               "probe runs pinned to one CPU after a warm-up and reports the median and p99\n"
               "time of one operation in ns.\n\nprobes:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-14s %s\n", all[i].name, all[i].what);
    fputc('\n', f);
    cli_flags_help(f, c);
}

/* --probes LIST: the named probes, appended to a->pick. */
static int add_picks(void *args, const char *flag, const char *list, tb_err *err)
{
    probe_args *a = args;
    char *copy = strdup(list);
    if (!copy)
        return tb_errf(err, "out of memory");
    int rc = 0;
    size_t before = a->npick;
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const tb_probe_info *p = tb_probe_find(t);
        if (!p) {
            rc = tb_errf(err, "%s %s: unknown probe (teebench probe --help)", flag, t);
            break;
        }
        if (a->npick == MAX_PICK) {
            rc = tb_errf(err, "%s: more than %d names", flag, MAX_PICK);
            break;
        }
        a->pick[a->npick++] = p;
    }
    if (rc == 0 && a->npick == before)
        rc = tb_errf(err, "%s '%s': no probe named", flag, list);
    free(copy);
    return rc;
}

static const cli_flag probe_flags[] = {
    CLI_CALL("probes", 0, add_picks, "LIST", "comma-separated probe names (default: all)"),
    CLI_ALIAS("probe", "probes"),
    CLI_UINT("reps", 0, probe_args, opts.reps, 1, 1000000, "N",
             "samples per probe (default: per probe, 64..10000)"),
    CLI_UINT("warmup", 0, probe_args, opts.warmup, 1, 1000000, "N",
             "warm-up operations (default: reps / 10, at least 10)"),
    CLI_INT("cpu", 0, probe_args, opts.cpu, 0, 65535, "N",
            "CPU to pin to (default: the first allowed one)"),
    CLI_BOOL("json", 0, probe_args, json,
             "print one JSON document (includes `teebench env --json`)"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_probe_cmd = {
    .name = "probe", .flags = probe_flags, .usage = usage, .max_operands = 0};

/* Parses flags into a (all probes when --probes is not given); returns -1 when done
 * (continue), or an exit code. */
static int parse_args(int argc, char **argv, probe_args *a)
{
    int first, rc = cli_flags_parse(&cli_probe_cmd, argc, argv, a, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (a->npick == 0) {
        size_t n;
        const tb_probe_info *all = tb_probe_all(&n);
        for (size_t i = 0; i < n && i < MAX_PICK; i++)
            a->pick[a->npick++] = &all[i];
    }
    return -1;
}

static void print_row(const tb_probe_info *p, const tb_probe_result *r)
{
    if (!r->available) {
        printf("%-14s %12s %12s %14s  %s\n", p->name, "n/a", "n/a", "-", r->note);
        return;
    }
    char sb[32];
    snprintf(sb, sizeof sb, "%zu x %u", r->samples, r->batch);
    printf("%-14s %12.1f %12.1f %14s  %s\n", p->name, r->median_ns, r->p99_ns, sb, p->what);
}

int cmd_probe(int argc, char **argv)
{
    probe_args a;
    memset(&a, 0, sizeof a);
    a.opts.cpu = -1;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    json_t *arr = a.json ? json_array() : NULL;
    int notes = 0;
    tb_probe_result *res = calloc(a.npick, sizeof *res);
    if (!res) {
        json_decref(arr);
        return cli_fail("probe", "out of memory");
    }
    for (size_t i = 0; i < a.npick; i++) {
        tb_err err = {{0}};
        if (tb_probe_run(a.pick[i], &a.opts, &res[i], &err) < 0) {
            json_decref(arr);
            free(res);
            return cli_fail("probe", "%s", err.msg);
        }
        if (a.json) {
            json_array_append_new(arr, tb_wl_probe_result_json(a.pick[i], &res[i]));
        } else {
            if (i == 0)
                printf("%-14s %12s %12s %14s  %s\n", "probe", "median ns", "p99 ns",
                       "samples x ops", "what one operation is");
            print_row(a.pick[i], &res[i]);
            fflush(stdout);
            notes += res[i].available && res[i].note[0];
        }
    }
    if (!a.json) {
        if (notes)
            printf("\nnotes:\n");
        for (size_t i = 0; i < a.npick; i++)
            if (res[i].available && res[i].note[0])
                printf("  %-14s %s\n", a.pick[i]->name, res[i].note);
        printf("\nall figures: ns per operation, pinned to CPU %d; p99 = 99th percentile of "
               "samples\n",
               a.npick ? res[0].cpu : -1);
        free(res);
        return 0;
    }
    free(res);
    json_t *o = tb_wl_probe_doc(arr);
    if (!o)
        return cli_fail("probe", "writing JSON: out of memory");
    return cli_json_print("probe", cli_json_envelope(TB_WL_PROBE_SCHEMA, o, 1));
}
