/* cli/memory: `teebench memory` -- memory bandwidth, latency and first-touch cost
 * (workloads/memory runs sys/membench). Flags are the memory workload's parameters
 * (the suite's memory.* keys) with the standard profile's defaults; text output
 * prints each part as it ends, --json one teebench-memory/1 document at the end.
 * SIGINT/SIGTERM (cli/stop's flag): the part running stops, what finished is
 * printed, exit 130. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/json.h"
#include "cli/stop.h"
#include "sys/membench.h"
#include "workloads/memory.h"

#define CMD "memory"

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench memory [--parts LIST] [--array SIZE] [--threads LIST] [--passes N]\n"
            "                       [--sizes LIST] [--chase T] [--first-touch SIZE]\n"
            "                       [--profile quick|standard|seed] [--json]\n\n"
            "What memory costs here -- where a confidential VM's encrypted memory and its lazy\n"
            "page acceptance show:\n"
            "  bandwidth    STREAM's kernels (copy c=a, scale b=s*c, add c=a+b, triad a=b+s*c)\n"
            "               over 3 arrays of doubles well beyond the last-level cache, each\n"
            "               thread on its own slice (pinned to its own CPU); the best pass, in\n"
            "               bytes read and written per second as STREAM counts them\n"
            "  latency      a dependent pointer chase through one random cycle of 64-byte\n"
            "               lines per working set: ns per load (caches, then memory and TLBs)\n"
            "  first-touch  mmap(MAP_POPULATE) of a fresh region: ns per 4 KiB page (faults,\n"
            "               zeroing; in a TD the acceptance of pages the guest never used)\n\n");
    cli_flags_help(f, c);
    fprintf(f,
            "\n"
            "Sizes take k, m, g (KiB, MiB, GiB). Nothing takes more than half of MemAvailable:\n"
            "arrays shrink and a working set that does not fit is left out, with a warning.\n"
            "The suite runs the same as its memory workload (suite run --set memory.array=...).\n");
}

typedef struct mem_args {
    tb_wl_memory_params p;
    int json;
} mem_args;

static const cli_flag mem_flag_table[] = {
    CLI_SETTING("parts", cli_wl_flags, set, "LIST",
                "bandwidth, latency, first-touch (default: all three)"),
    CLI_SETTING("array", cli_wl_flags, set, "SIZE",
                "bytes of each array, e.g. 1g (default auto: 4 x the\n"
                "last-level cache, at least 64m)"),
    CLI_SETTING("threads", cli_wl_flags, set, "LIST",
                "thread counts, n = one per CPU online (default 1,n)"),
    CLI_SETTING("passes", cli_wl_flags, set, "N",
                "timed passes of the four kernels (default 2, seed 10)"),
    CLI_SETTING("sizes", cli_wl_flags, set, "LIST",
                "working sets of the chase (default 4k,16k,64k,256k,1m,4m,\n"
                "16m,64m,256m,1g)"),
    CLI_SETTING("chase", cli_wl_flags, set, "T",
                "seconds of chasing per working set (default 100ms, seed\n"
                "200ms)"),
    CLI_SETTING("first-touch", cli_wl_flags, set, "SIZE", "the region (default 1g)"),
    CLI_STR("profile", 0, cli_wl_flags, profile, "P",
            "the defaults of the suite's profile P (default standard; quick:\n"
            "16m arrays, 4k..16m, a 64m region)"),
    CLI_BOOL("json", 0, cli_wl_flags, json,
             "print one JSON document (includes `teebench env --json`)"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_memory_cmd = {
    .name = CMD, .flags = mem_flag_table, .usage = usage, .max_operands = 0, .col = 20};

static int parse_args(int argc, char **argv, mem_args *a)
{
    cli_wl_flags fl = {.profile = "standard"};
    int first, rc = cli_flags_parse(&cli_memory_cmd, argc, argv, &fl, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    a->json = fl.json;
    tb_err e;
    rc = cli_setting_apply(CMD, &tb_wl_memory, &fl, &a->p, &e);
    if (rc < 0)
        return cli_fail(CMD, "%s", e.msg);
    return rc ? rc : -1;
}

/* ---- text ---- */

static void print_bandwidth(const json_t *doc)
{
    const json_t *list = json_object_get(doc, "bandwidth"), *e;
    size_t i;
    if (!json_array_size(list))
        return;
    char as[32], llc[32];
    const json_t *first = json_array_get(list, 0);
    tb_wl_memory_size_name((uint64_t)json_integer_value(json_object_get(first, "array_bytes")), as,
                           sizeof as);
    tb_wl_memory_size_name((uint64_t)json_integer_value(json_object_get(doc, "llc_bytes")), llc,
                           sizeof llc);
    printf("memory bandwidth: 3 arrays of %s each (last-level cache %s), the best of %d "
           "passes%s\n",
           as, json_integer_value(json_object_get(doc, "llc_bytes")) ? llc : "unknown",
           (int)json_integer_value(json_object_get(first, "passes")),
           json_is_true(json_object_get(first, "nt_stores")) ? ", non-temporal stores" : "");
    printf("  %-12s %12s %12s %12s %12s\n", "threads", "copy GB/s", "scale GB/s", "add GB/s",
           "triad GB/s");
    json_array_foreach(list, i, e)
    {
        char t[32];
        snprintf(t, sizeof t, "%s (%d)%s", json_string_value(json_object_get(e, "label")),
                 (int)json_integer_value(json_object_get(e, "threads")),
                 json_is_true(json_object_get(e, "pinned")) ? "" : "*");
        printf("  %-12s", t);
        for (int k = 0; k < TB_MEM_NKERNELS; k++) {
            const json_t *kk =
                json_object_get(json_object_get(e, "kernels"), tb_mem_kernel_name(k));
            printf(" %12.2f", json_number_value(json_object_get(kk, "best_Bps")) / 1e9);
        }
        printf("\n");
    }
    printf("  (bytes read + written per second, as STREAM counts them; GB = 10^9 bytes%s)\n",
           json_is_true(json_object_get(json_array_get(list, json_array_size(list) - 1), "pinned"))
               ? ""
               : "; * more threads than CPUs: not pinned");
}

static void print_latency(const json_t *doc)
{
    const json_t *list = json_object_get(doc, "latency"), *e;
    size_t i;
    if (!json_array_size(list))
        return;
    printf("memory latency: a dependent load through one random cycle of 64-byte lines\n");
    printf("  %-12s %12s\n", "working set", "ns per load");
    json_array_foreach(list, i, e)
        printf("  %-12s %12.2f\n", json_string_value(json_object_get(e, "label")),
               json_number_value(json_object_get(e, "ns_per_load")));
}

static void print_touch(const json_t *doc)
{
    const json_t *t = json_object_get(doc, "first_touch");
    if (!json_is_object(t))
        return;
    printf("first touch: mmap(MAP_POPULATE) of %s: %.3f s, %.1f ns per 4 KiB page (munmap "
           "%.3f s; THP %s)\n",
           json_string_value(json_object_get(t, "label")),
           json_number_value(json_object_get(t, "seconds")),
           json_number_value(json_object_get(t, "ns_per_page")),
           json_number_value(json_object_get(t, "munmap_s")),
           json_string_value(json_object_get(doc, "thp")));
}

static void print_part(const json_t *doc, int part)
{
    if (part == TB_WL_MEM_BANDWIDTH)
        print_bandwidth(doc);
    else if (part == TB_WL_MEM_LATENCY)
        print_latency(doc);
    else
        print_touch(doc);
    fflush(stdout);
}

int cmd_memory(int argc, char **argv)
{
    mem_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cli_stop_catch(NULL, NULL);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    json_t *doc = tb_wl_memory_doc(&a.p, ncpu > 0 ? (int)ncpu : 1);
    if (!doc)
        return cli_fail(CMD, "out of memory");
    size_t warned = 0;
    for (int part = 0; part < TB_WL_MEM_PARTS && !cli_stopped(); part++) {
        if (!a.p.part[part])
            continue;
        tb_err e;
        int stopped = 0;
        if (tb_wl_memory_run(&a.p, part, ncpu > 0 ? (int)ncpu : 1, cli_stop_flag(), doc, &stopped,
                             &e) < 0) {
            json_decref(doc);
            if (a.json)
                return cli_json_fail(1, CMD, TB_WL_MEMORY_SCHEMA, "%s", e.msg);
            return cli_fail(CMD, "%s", e.msg);
        }
        if (!a.json && !stopped)
            print_part(doc, part);
        const json_t *w = json_object_get(doc, "warnings");
        for (; !a.json && warned < json_array_size(w); warned++)
            fprintf(stderr, "teebench: memory: warning: %s\n",
                    json_string_value(json_array_get(w, warned)));
    }
    if (cli_stopped()) {
        json_decref(doc);
        return cli_fail_code(130, CMD, "interrupted");
    }
    if (!a.json) {
        json_decref(doc);
        return 0;
    }
    return cli_json_print(CMD, cli_json_envelope(TB_WL_MEMORY_SCHEMA, doc, 1));
}
