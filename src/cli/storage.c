/* cli/storage: `teebench storage` -- fio with CVM_eval's job set (workloads/storage: the
 * jobs, the place checked and made ready, fio run and parsed, the document). Flags are
 * the storage workload's parameters (--dir = storage.dir, ...), on top of a profile's
 * defaults (--profile, default standard), so a command and the suite measure the same.
 * Text output prints each engine's jobs as fio finishes them; --json prints one
 * teebench-storage/1 document at the end (`teebench results import` reads it).
 *
 * Files: a private work directory in $TMPDIR (fio's JSON and logs; also the place of
 * the test file unless --dir or --device names one), removed at the end (cli/wl_run).
 * SIGINT/SIGTERM (cli/stop's flag): fio's process group is killed, the test file
 * removed, exit 130. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/json.h"
#include "cli/stop.h"
#include "cli/wl_run.h"
#include "stats/units.h"
#include "workloads/storage.h"

#define CMD "storage"

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

/* The runs, one per engine; 0, or an exit code (the error printed). */
static int run_engines(const cli_wl_out *o, tb_wl_storage_place *st, tb_wl_sink *sink, json_t *runs)
{
    for (unsigned e = TB_WL_FIO_LIBAIO; e <= TB_WL_FIO_IO_URING; e <<= 1) {
        if (!(st->p.engines & e))
            continue;
        json_t *run = NULL;
        tb_err err = {{0}};
        int rc = tb_wl_storage_run(st, e, sink, &run, &err);
        rc = cli_wl_take(o, rc, run, &err, tb_wl_fio_engine_name(e), runs);
        if (rc != CLI_WL_NEXT)
            return rc;
    }
    if (json_array_size(runs) == 0)
        return cli_wl_fail(o, 1, "no engine could run");
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
    cli_wl_out o = {
        .cmd = CMD, .schema = TB_WL_STORAGE_SCHEMA, .json = a.json, .print_run = print_run};
    rc = cli_setting_apply(CMD, &tb_wl_storage, &a, &p, &err);
    if (rc < 0)
        return cli_wl_fail(&o, 1, err.msg);
    if (rc)
        return rc;
    cli_wl_run run;
    if (cli_wl_run_begin(CMD, &run, &err) < 0)
        return cli_wl_fail(&o, 1, err.msg);
    tb_wl_storage_place st;
    int skip = 0;
    json_t *runs = json_array();
    if (tb_wl_storage_open(&st, &p, &run.sink, &skip, &err) < 0) {
        int stopped = cli_stopped();
        rc = cli_wl_fail(&o, stopped ? 130 : 1, stopped ? "interrupted" : err.msg);
    } else {
        if (!o.json)
            print_head(&st);
        rc = run_engines(&o, &st, &run.sink, runs);
        if (rc == 0 && o.json)
            rc = cli_wl_run_print(CMD, &run, TB_WL_STORAGE_SCHEMA,
                                  tb_wl_storage_doc(&st, json_incref(runs)));
        tb_wl_storage_close(&st);
    }
    json_decref(runs);
    cli_wl_run_end(&run);
    return rc;
}
