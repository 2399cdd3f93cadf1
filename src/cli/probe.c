/* cli/probe: `teebench probe` -- runs the TEE-sensitive microbenchmarks of sys/probe
 * and prints a table (median and p99 per operation, in ns) or one JSON document (the
 * probe workload's, workloads/probe). */
#include "cli/cli.h"

#include <getopt.h>
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

static void usage(FILE *f)
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
    fprintf(f, "\n  --probes LIST  comma-separated probe names (default: all)\n"
               "  --reps N       samples per probe (default: per probe, 64..10000)\n"
               "  --warmup N     warm-up operations (default: reps / 10, at least 10)\n"
               "  --cpu N        CPU to pin to (default: the first allowed one)\n"
               "  --json         print one JSON document (includes `teebench env --json`)\n"
               "  -h, --help     this text\n");
}

static int add_picks(probe_args *a, const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return cli_fail("probe", "out of memory");
    int rc = -1;
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const tb_probe_info *p = tb_probe_find(t);
        if (!p) {
            rc = cli_fail_code(2, "probe", "--probes %s: unknown probe (teebench probe --help)", t);
            break;
        }
        if (a->npick == MAX_PICK) {
            rc = cli_fail_code(2, "probe", "--probes: more than %d names", MAX_PICK);
            break;
        }
        a->pick[a->npick++] = p;
    }
    if (rc < 0 && a->npick == 0)
        rc = cli_fail_code(2, "probe", "--probes '%s': no probe named", list);
    free(copy);
    return rc;
}

static int parse_args(int argc, char **argv, probe_args *a)
{
    static const struct option opts[] = {
        {"probes", required_argument, NULL, 'P'}, {"probe", required_argument, NULL, 'P'},
        {"reps", required_argument, NULL, 'r'},   {"warmup", required_argument, NULL, 'w'},
        {"cpu", required_argument, NULL, 'C'},    {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    tb_err err = {{0}};
    int c, rc;
    long v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 'P':
            if ((rc = add_picks(a, optarg)) >= 0)
                return rc;
            rc = 0;
            break;
        case 'r':
            rc = cli_opt_long("--reps", optarg, 1, 1000000, &v, &err);
            a->opts.reps = (unsigned)v;
            break;
        case 'w':
            rc = cli_opt_long("--warmup", optarg, 1, 1000000, &v, &err);
            a->opts.warmup = (unsigned)v;
            break;
        case 'C':
            rc = cli_opt_long("--cpu", optarg, 0, 65535, &v, &err);
            a->opts.cpu = (int)v;
            break;
        case 'j':
            a->json = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_bad_option("probe", c, argv);
        }
        if (rc < 0)
            return cli_fail_code(2, "probe", "%s", err.msg);
    }
    if (optind < argc)
        return cli_fail_code(2, "probe", "%s: unexpected argument", argv[optind]);
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
