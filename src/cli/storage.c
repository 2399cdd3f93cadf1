/* cli/storage: `teebench storage` -- fio with CVM_eval's job set (workloads/storage: the
 * jobs, the place checked and made ready, fio run and parsed, the document). Flags are
 * the storage workload's parameters (--dir = storage.dir, ...), on top of a profile's
 * defaults (--profile, default standard), so a command and the suite measure the same.
 * Text output prints each engine's jobs as fio finishes them; --json prints one
 * teebench-storage/1 document at the end (`teebench results import` reads it).
 *
 * Files: a private work directory in $TMPDIR (fio's JSON and logs; also the place of
 * the test file unless --dir or --device names one), removed at the end. Global state:
 * `interrupted`, the SIGINT/SIGTERM flag (volatile sig_atomic_t, written only by the
 * handler): fio's process group is killed, the test file removed, exit 130. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "cli/json.h"
#include "stats/units.h"
#include "workloads/storage.h"

#define CMD "storage"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench storage [--dir DIR | --device DEV] [--size SIZE] [--runtime T]\n"
            "                        [--ramp T] [--engines libaio,io_uring] [--jobs J,...]\n"
            "                        [--profile quick|standard|seed] [--fio BIN] [--json]\n\n"
            "fio (Debian's fio) with CVM_eval's job set, direct=1, thread, norandommap,\n"
            "randrepeat=0, time_based with a ramp, one stonewalled job after another:\n"
            "  lat-randread lat-randwrite lat-read lat-write   4k, QD 1, 1 job\n"
            "  bw-read bw-write                                128k, QD 128, 4 jobs\n"
            "  iops-randread iops-randwrite iops-randrw        4k, QD 32, 4 jobs (randrw: 70 %%\n"
            "                                                  reads)\n"
            "and for each its IOPS, bandwidth and completion latency (clat p50, p99, p99.9).\n"
            "fio works on a new file (removed afterwards) in --dir, by default a private work\n"
            "directory in $TMPDIR, or on --device. A filesystem without direct I/O (ramfs),\n"
            "tmpfs (memory, not a disk), a directory others may write, too little free space\n"
            "and a device in use (mounted, swap) are refused before anything is written.\n\n");
    cli_flags_help(f, c);
}

static const cli_flag st_flags[] = {
    CLI_SETTING("dir", cli_wl_flags, set, "DIR", "directory of the test file (storage.dir)"),
    CLI_SETTING("device", cli_wl_flags, set, "DEV",
                "a block device instead: its first SIZE bytes are overwritten"),
    CLI_SETTING("size", cli_wl_flags, set, "SIZE",
                "bytes of the file or of the device used: 64M, 1G (standard 1G)"),
    CLI_SETTING("runtime", cli_wl_flags, set, "T",
                "measured seconds per job (standard 1s; seed: CVM_eval's 30s)"),
    CLI_SETTING("ramp", cli_wl_flags, set, "T",
                "seconds per job before the measurement (standard 500ms; seed 20s)"),
    CLI_SETTING("engines", cli_wl_flags, set, "LIST",
                "libaio and/or io_uring (CVM_eval's iou.fio: fixedbufs,\n"
                "registerfiles) (standard libaio; seed both)"),
    CLI_SETTING("jobs", cli_wl_flags, set, "LIST",
                "the jobs above, comma-separated, or all (standard all)"),
    CLI_STR("profile", 0, cli_wl_flags, profile, "P",
            "the defaults of the suite's profile P (default standard)"),
    CLI_SETTING("fio", cli_wl_flags, set, "BIN", "the fio binary (default fio, looked up in PATH)"),
    CLI_BOOL("json", 0, cli_wl_flags, json,
             "print one JSON document (teebench-storage/1, with the env)"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_storage_cmd = {
    .name = CMD, .flags = st_flags, .usage = usage, .max_operands = 0, .col = 19};

static int fail(const cli_wl_flags *a, int code, const char *msg)
{
    if (a->json)
        return cli_json_fail(code, CMD, TB_WL_STORAGE_SCHEMA, "%s", msg);
    return cli_fail_code(code, CMD, "%s", msg);
}

static void print_head(const tb_wl_storage_place *st)
{
    char size[32], run[24], ramp[24];
    tb_wl_fmt_size(st->size, size, sizeof size);
    tb_wl_fmt_duration(st->p.runtime_s, run, sizeof run);
    tb_wl_fmt_duration(st->p.ramp_s, ramp, sizeof ramp);
    printf("%s on %s %s (%s, %s), direct=1, %s measured after a %s ramp per job\n", st->fio,
           st->device ? "device" : "file", st->path, st->fs, size, run, ramp);
    printf("%-9s %-15s %-5s %-9s %5s %4s %4s %10s %14s %10s %10s %10s\n", "engine", "job", "dir",
           "rw", "bs", "QD", "jobs", "IOPS", "bandwidth", "clat p50", "p99", "p99.9");
    fflush(stdout);
}

static double get(const json_t *o, const char *k1, const char *k2)
{
    const json_t *v = json_object_get(o, k1);
    if (k2)
        v = json_object_get(v, k2);
    return json_number_value(v);
}

static void print_run(const json_t *run)
{
    const char *engine = json_string_value(json_object_get(run, "engine"));
    size_t i;
    const json_t *j;
    json_array_foreach(json_object_get(run, "jobs"), i, j)
    {
        static const char *const dirs[] = {"read", "write"};
        for (int d = 0; d < 2; d++) {
            const json_t *x = json_object_get(j, dirs[d]);
            if (!x)
                continue;
            char bs[32], p50[TB_UNITS_MAX], p99[TB_UNITS_MAX], p999[TB_UNITS_MAX];
            snprintf(bs, sizeof bs, "%lldk",
                     (long long)json_integer_value(json_object_get(j, "bs")) / 1024);
            tb_fmt_time_us((long double)get(x, "clat_us", "p50"), p50);
            tb_fmt_time_us((long double)get(x, "clat_us", "p99"), p99);
            tb_fmt_time_us((long double)get(x, "clat_us", "p99.9"), p999);
            printf("%-9s %-15s %-5s %-9s %5s %4lld %4lld %10.0f %8.1f MiB/s %10s %10s %10s\n",
                   engine, json_string_value(json_object_get(j, "name")), dirs[d],
                   json_string_value(json_object_get(j, "rw")), bs,
                   (long long)json_integer_value(json_object_get(j, "iodepth")),
                   (long long)json_integer_value(json_object_get(j, "numjobs")),
                   get(x, "iops", NULL), get(x, "bw_bytes", NULL) / 1048576.0, p50, p99, p999);
        }
    }
    fflush(stdout);
}

static void now_iso(char *out, size_t n)
{
    tb_utc_iso8601((int64_t)(tb_wall_ns() / 1000000000ull), out, n);
}

/* The runs, one per engine; 0, or an exit code (the error printed). */
static int run_engines(const cli_wl_flags *a, tb_wl_storage_place *st, tb_wl_sink *sink,
                       json_t *runs)
{
    for (unsigned e = TB_WL_FIO_LIBAIO; e <= TB_WL_FIO_IO_URING; e <<= 1) {
        if (!(st->p.engines & e))
            continue;
        json_t *run = NULL;
        tb_err err = {{0}};
        int rc = tb_wl_storage_run(st, e, sink, &run, &err);
        if (rc == TB_WL_CANCELLED || interrupted)
            return json_decref(run), fail(a, 130, "interrupted");
        if (rc == TB_WL_SKIPPED && !a->json) {
            printf("%-9s skipped: %s\n", tb_wl_fio_engine_name(e), err.msg);
            continue;
        }
        if (rc != TB_WL_OK)
            return fail(a, 1, err.msg);
        if (!a->json)
            print_run(run);
        json_array_append_new(runs, run);
    }
    if (json_array_size(runs) == 0)
        return fail(a, 1, "no engine could run");
    return 0;
}

int cmd_storage(int argc, char **argv)
{
    cli_wl_flags a = {.profile = "standard"};
    int first, rc = cli_flags_parse(&cli_storage_cmd, argc, argv, &a, &first);
    if (rc >= 0)
        return rc;
    tb_wl_storage_params p;
    tb_err err = {{0}};
    rc = cli_setting_apply(CMD, &tb_wl_storage, &a, &p, &err);
    if (rc < 0)
        return fail(&a, 1, err.msg);
    if (rc)
        return rc;
    char work[PATH_MAX];
    tb_wl_sink sink = {.dir_fd = -1, .stop = &interrupted};
    if (tb_wl_workdir_open(CMD, work, sizeof work, &sink, &err) < 0)
        return fail(&a, 1, err.msg);
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    char started[40], finished[40];
    now_iso(started, sizeof started);
    tb_wl_storage_place st;
    int skip = 0;
    json_t *runs = json_array();
    if (tb_wl_storage_open(&st, &p, &sink, &skip, &err) < 0) {
        rc = fail(&a, interrupted ? 130 : 1, interrupted ? "interrupted" : err.msg);
    } else {
        if (!a.json)
            print_head(&st);
        rc = run_engines(&a, &st, &sink, runs);
        now_iso(finished, sizeof finished);
        if (rc == 0 && a.json) {
            json_t *body = tb_wl_storage_doc(&st, json_incref(runs));
            if (body) {
                json_object_set_new(body, "started_at", json_string(started));
                json_object_set_new(body, "finished_at", json_string(finished));
            }
            rc = cli_json_print(CMD, cli_json_envelope(TB_WL_STORAGE_SCHEMA, body, 1));
        }
        tb_wl_storage_close(&st);
    }
    json_decref(runs);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    tb_wl_workdir_remove(&sink);
    return rc;
}
