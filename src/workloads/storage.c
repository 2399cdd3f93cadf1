/* workloads/storage: the storage workload -- fio (Debian's `fio`) with CVM_eval's job
 * set (TUM-DSE/CVM_eval config/fio/libaio.fio): direct=1, thread, norandommap,
 * randrepeat=0, time_based with a ramp, group_reporting, one stonewalled job each:
 * latency 4k QD1 (randread, randwrite, read, write), bandwidth 128k QD128 x 4 jobs
 * (read, write), IOPS 4k QD32 x 4 jobs (randread, randwrite, randrw 70 % reads); with
 * ioengine libaio and, as CVM_eval's iou.fio, io_uring with fixedbufs and registerfiles.
 *
 * Where: a new file in storage.dir (default: the work directory), made here with
 * O_EXCL and removed at the end, or the block device storage.device (its first
 * storage.size bytes are overwritten; refused when it is mounted or held: it is
 * opened O_EXCL first). Before anything is written the place is checked: a
 * filesystem that cannot do direct I/O (ramfs: open(O_DIRECT) fails; a 4 KiB
 * O_DIRECT write is tried on the new file), tmpfs (accepts O_DIRECT but is memory, not
 * a disk), a directory others may write that is not sticky, too little free space --
 * each refused with one line saying what to set instead. fio is told the one file
 * (--filename, --allow_file_create=0 once it is laid out), so nothing is written
 * outside the named place but fio's JSON in the work directory.
 *
 * Steps: one per engine (target "libaio", "io_uring") and round, every selected job
 * in one fio run (stonewalled: one after another), fio in its own process group.
 * Metrics: storage.<engine>.<job>.{iops, bw, clat.p50, clat.p99, clat.p99.9} (IOPS,
 * B/s, us of completion latency), for randrw one set per direction
 * (storage.<engine>.iops-randrw.read.iops, ...). A missing fio, an io_uring this
 * kernel refuses and a place that cannot be used are skipped with the reason.
 *
 * Invariants: fio's output is parsed into the run of the teebench-storage/1 document
 * (tb_wl_fio_parse) and the suite's samples come from that document through doc_read,
 * the reader `results import` uses; nothing here prints. */
#include "workloads/internal.h"
#include "workloads/storage.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <linux/magic.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/proc.h"

_Static_assert(sizeof(tb_wl_storage_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_storage_params, f)

#define KIB 1024
const tb_wl_fio_job tb_wl_fio_jobs[TB_WL_FIO_JOBS] = {
    {"lat-randread", "randread", 4 * KIB, 1, 1, 0},
    {"lat-randwrite", "randwrite", 4 * KIB, 1, 1, 0},
    {"lat-read", "read", 4 * KIB, 1, 1, 0},
    {"lat-write", "write", 4 * KIB, 1, 1, 0},
    {"bw-read", "read", 128 * KIB, 128, 4, 0},
    {"bw-write", "write", 128 * KIB, 128, 4, 0},
    {"iops-randread", "randread", 4 * KIB, 32, 4, 0},
    {"iops-randwrite", "randwrite", 4 * KIB, 32, 4, 0},
    {"iops-randrw", "randrw", 4 * KIB, 32, 4, 70},
};

const tb_wl_fio_job *tb_wl_fio_job_find(const char *name)
{
    for (size_t i = 0; i < TB_WL_FIO_JOBS; i++)
        if (!strcmp(tb_wl_fio_jobs[i].name, name))
            return &tb_wl_fio_jobs[i];
    return NULL;
}

int tb_wl_fio_job_reads(const tb_wl_fio_job *j)
{
    return strstr(j->rw, "read") || !strcmp(j->rw, "randrw");
}

int tb_wl_fio_job_writes(const tb_wl_fio_job *j)
{
    return strstr(j->rw, "write") || !strcmp(j->rw, "randrw");
}

static int job_mixed(const tb_wl_fio_job *j)
{
    return tb_wl_fio_job_reads(j) && tb_wl_fio_job_writes(j);
}

const char *tb_wl_fio_engine_name(unsigned engine)
{
    return engine == TB_WL_FIO_IO_URING ? "io_uring" : "libaio";
}

/* ---- sizes ---- */

int tb_wl_parse_size(const char *key, const char *v, long long lo, long long hi, long long *out,
                     tb_err *err)
{
    uint64_t x;
    switch (tb_wl_size(v, (uint64_t)lo, (uint64_t)hi, &x)) {
    case TB_NUM_OK:
        *out = (long long)x;
        return 0;
    case TB_NUM_RANGE: {
        char a[32], b[32];
        tb_wl_fmt_size(lo, a, sizeof a);
        tb_wl_fmt_size(hi, b, sizeof b);
        return tb_errf(err, "%s: %.40s is out of range (%s .. %s)", key, v, a, b);
    }
    default:
        return tb_errf(err, "%s: '%.40s' is not a size (e.g. 64M, 1G)", key, v);
    }
}

void tb_wl_fmt_size(long long bytes, char *out, size_t n)
{
    static const char units[] = "kMGT";
    int u = -1;
    long long v = bytes;
    while (v && v % 1024 == 0 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(out, n, "%lld", bytes);
    else
        snprintf(out, n, "%lld%c", v, units[u]);
}

/* ---- parameters ---- */

static int parse_size(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_storage_params *s = params;
    return tb_wl_parse_size(key, v, 1 << 20, 1ll << 50, &s->size, err);
}

static json_t *size_json(const void *params)
{
    char t[32];
    tb_wl_fmt_size(((const tb_wl_storage_params *)params)->size, t, sizeof t);
    return json_string(t);
}

static int engine(void *ctx, const char *t, tb_err *err)
{
    tb_wl_storage_params *s = ctx;
    if (!strcmp(t, "libaio"))
        s->engines |= TB_WL_FIO_LIBAIO;
    else if (!strcmp(t, "io_uring"))
        s->engines |= TB_WL_FIO_IO_URING;
    else
        return tb_errf(err, "unknown engine '%.40s' (libaio, io_uring)", t);
    return 0;
}

static json_t *engines_json(const void *params)
{
    const tb_wl_storage_params *s = params;
    json_t *a = json_array();
    for (unsigned e = TB_WL_FIO_LIBAIO; a && e <= TB_WL_FIO_IO_URING; e <<= 1)
        if (s->engines & e)
            json_array_append_new(a, json_string(tb_wl_fio_engine_name(e)));
    return a;
}

static int job(void *ctx, const char *t, tb_err *err)
{
    tb_wl_storage_params *s = ctx;
    if (!strcmp(t, "all")) {
        s->jobs = (1u << TB_WL_FIO_JOBS) - 1;
        return 0;
    }
    const tb_wl_fio_job *j = tb_wl_fio_job_find(t);
    if (!j)
        return tb_errf(err,
                       "unknown job '%.40s' (lat-randread, lat-randwrite, lat-read, lat-write, "
                       "bw-read, bw-write, iops-randread, iops-randwrite, iops-randrw, all)",
                       t);
    s->jobs |= 1u << (j - tb_wl_fio_jobs);
    return 0;
}

static json_t *jobs_json(const void *params)
{
    const tb_wl_storage_params *s = params;
    json_t *a = json_array();
    for (size_t i = 0; a && i < TB_WL_FIO_JOBS; i++)
        if (s->jobs & (1u << i))
            json_array_append_new(a, json_string(tb_wl_fio_jobs[i].name));
    return a;
}

/* "" (the work directory) or an absolute path. */
static int check_dir(const char *key, const char *v, tb_err *err)
{
    return v[0] ? tb_wl_check_abs_path(key, v, err) : 0;
}

static int check_tool(const char *key, const char *v, tb_err *err)
{
    if (!v[0])
        return tb_errf(err, "%s: empty", key);
    if (strchr(v, '/') && v[0] != '/')
        return tb_errf(err, "%s: '%.60s' is neither a name looked up in PATH nor an absolute path",
                       key, v);
    return 0;
}

static const tb_wl_param param_table[] = {
    {"dir", "directory of fio's test file (made there, removed after; \"\": the work directory)",
     TB_WLP_TEXT, P(dir), .check = check_dir, .flags = TB_WLP_PLACE},
    {"device", "a block device instead of a file (its first storage.size bytes are overwritten)",
     TB_WLP_TEXT, P(device), .check = check_dir, .flags = TB_WLP_PLACE},
    {"size", "bytes of the test file, or of the device from its start (64M, 1G)", TB_WLP_CUSTOM,
     .parse = parse_size, .json = size_json, .def = {"64M", "1G", "4G"}},
    {"runtime", "seconds measured per job", TB_WLP_SECONDS, P(runtime_s), .lo = 0.1, .hi = 86400,
     .def = {"1", "1", "30"}},
    {"ramp", "seconds per job before its measurement (fio's ramp_time)", TB_WLP_SECONDS, P(ramp_s),
     .lo = 0, .hi = 3600, .def = {"250ms", "500ms", "20"}},
    {"engines", "libaio and/or io_uring", TB_WLP_LIST, P(engines), .token = engine,
     .json = engines_json, .def = {"libaio", "libaio", "libaio,io_uring"}},
    {"jobs", "fio jobs (lat-randread, ..., iops-randrw; all)", TB_WLP_LIST, P(jobs), .token = job,
     .json = jobs_json, .def = {"lat-randread,bw-read,iops-randwrite", "all"}},
    {"fio", "the fio binary (a name looked up in PATH, or a path)", TB_WLP_TEXT, P(fio_bin),
     .check = check_tool, .def = {"fio"}, .flags = TB_WLP_PLACE},
};

static int check(const void *params, tb_err *err)
{
    const tb_wl_storage_params *s = params;
    if (s->dir[0] && s->device[0])
        return tb_errf(err, "storage.dir and storage.device: set one (a file in a directory, or a "
                            "block device)");
    return 0;
}

/* ---- metrics ---- */

#define M(job, what, unit, better)                                                                 \
    {                                                                                              \
        "storage.*." job "." what, unit, better, TB_CAT_STORAGE, 0, NULL, 0, 0                     \
    }
#define JOB(job)                                                                                   \
    M(job, "iops", "IOPS", TB_WL_HIGHER), M(job, "bw", "B/s", TB_WL_HIGHER),                       \
        M(job, "clat.p50", "us", TB_WL_LOWER), M(job, "clat.p99", "us", TB_WL_LOWER),              \
        M(job, "clat.p99.9", "us", TB_WL_LOWER)

static const tb_wl_metric metrics[] = {
    JOB("lat-randread"),     JOB("lat-randwrite"),     JOB("lat-read"),      JOB("lat-write"),
    JOB("bw-read"),          JOB("bw-write"),          JOB("iops-randread"), JOB("iops-randwrite"),
    JOB("iops-randrw.read"), JOB("iops-randrw.write"),
};

#define N_METRICS (sizeof metrics / sizeof metrics[0])

/* The job segment of a row ("storage.*.<job>...."), into out. */
static void row_job(const tb_wl_metric *m, char *out, size_t n)
{
    const char *s = m->name + strlen("storage.*.");
    snprintf(out, n, "%.*s", (int)strcspn(s, "."), s);
}

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_storage_params *s = params;
    for (unsigned e = TB_WL_FIO_LIBAIO; e <= TB_WL_FIO_IO_URING; e <<= 1) {
        if (!(s->engines & e))
            continue;
        for (size_t k = 0; k < N_METRICS; k++) {
            char j[32], name[160];
            row_job(&metrics[k], j, sizeof j);
            const tb_wl_fio_job *fj = tb_wl_fio_job_find(j);
            if (!fj || !(s->jobs & (1u << (fj - tb_wl_fio_jobs))))
                continue;
            snprintf(name, sizeof name, "storage.%s.%s", tb_wl_fio_engine_name(e),
                     metrics[k].name + strlen("storage.*."));
            if (emit(ctx, name) < 0)
                return -1;
        }
    }
    return 0;
}

static int n_jobs(const tb_wl_storage_params *s)
{
    int n = 0;
    for (size_t i = 0; i < TB_WL_FIO_JOBS; i++)
        n += (s->jobs >> i) & 1;
    return n;
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_storage_params *s = params;
    double t = n_jobs(s) * (s->runtime_s + s->ramp_s + 0.15) + 0.2;
    size_t n = 0;
    for (unsigned e = TB_WL_FIO_LIBAIO; e <= TB_WL_FIO_IO_URING; e <<= 1)
        if (s->engines & e)
            out[n++] = (tb_wl_step){tb_wl_fio_engine_name(e), t};
    return n;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_storage_params *s = params;
    char size[32];
    tb_wl_fmt_size(s->size, size, sizeof size);
    snprintf(out, n, "fio %s, direct=1: %d job%s x (%g s + %g s ramp), %s%s (%s)", target,
             n_jobs(s), n_jobs(s) == 1 ? "" : "s", s->runtime_s, s->ramp_s,
             s->device[0] ? "device "
             : s->dir[0]  ? "a file in "
                          : "a file in the work directory",
             s->device[0] ? s->device : s->dir, size);
}

/* fio lays out the test file before round 1 (~1 GB/s on an SSD, slower elsewhere) */
static double setup_estimate(const void *params)
{
    const tb_wl_storage_params *s = params;
    return s->device[0] ? 0.2 : 0.3 + (double)s->size / 1e9;
}

/* ---- the place ---- */

static const char *fs_name(long type)
{
    static const struct {
        long magic;
        const char *name;
    } fs[] = {
        {EXT4_SUPER_MAGIC, "ext4"},   {XFS_SUPER_MAGIC, "xfs"},
        {BTRFS_SUPER_MAGIC, "btrfs"}, {TMPFS_MAGIC, "tmpfs"},
        {RAMFS_MAGIC, "ramfs"},       {OVERLAYFS_SUPER_MAGIC, "overlay"},
        {NFS_SUPER_MAGIC, "nfs"},     {0x65735546, "fuse"},
        {0x2fc12fc1, "zfs"},          {F2FS_SUPER_MAGIC, "f2fs"},
        {V9FS_MAGIC, "9p"},           {0x4d44, "vfat"},
        {0x5346544e, "ntfs"},         {SQUASHFS_MAGIC, "squashfs"},
    };
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
        if (fs[i].magic == type)
            return fs[i].name;
    return NULL;
}

static const char *place_hint =
    "name a directory on a disk (storage.dir, teebench storage --dir) or a block device "
    "(storage.device, --device)";

/* The directory's file: made new (O_EXCL), checked for direct I/O by one aligned write,
   emptied again. */
static int make_file(tb_wl_storage_place *st, int *skip, tb_err *err)
{
    struct stat sb;
    if (fstat(st->dfd, &sb) < 0)
        return tb_errno(err, "%s", st->dir);
    if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX))
        return *skip = 1, tb_errf(err,
                                  "%s may be written by others and is not sticky (another user "
                                  "could replace fio's file): %s",
                                  st->dir, place_hint);
    struct statfs fs;
    if (fstatfs(st->dfd, &fs) < 0)
        return tb_errno(err, "%s: statfs", st->dir);
    const char *name = fs_name((long)fs.f_type);
    if (name)
        snprintf(st->fs, sizeof st->fs, "%s", name);
    else
        snprintf(st->fs, sizeof st->fs, "0x%lx", (unsigned long)fs.f_type);
    if (fs.f_type == TMPFS_MAGIC)
        return *skip = 1, tb_errf(err,
                                  "%s is on tmpfs: memory, not a disk (direct I/O there measures "
                                  "no storage): %s",
                                  st->dir, place_hint);
    struct statvfs vfs;
    if (fstatvfs(st->dfd, &vfs) == 0 && vfs.f_blocks > 0) { /* ramfs: no size at all */
        long long avail = (long long)vfs.f_bavail * (long long)vfs.f_frsize;
        if (avail < st->size + (64ll << 20)) {
            char a[32], b[32];
            tb_wl_fmt_size(avail / (1 << 20) * (1 << 20), a, sizeof a);
            tb_wl_fmt_size(st->size, b, sizeof b);
            return *skip = 1, tb_errf(err,
                                      "%s (%s) has %s free; fio's file needs %s and 64M to spare "
                                      "(storage.size, --size)",
                                      st->dir, st->fs, a, b);
        }
    }
    int fd = -1;
    for (int i = 0; i < 8 && fd < 0; i++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(st->name, sizeof st->name, "teebench-fio.%d.%08lx", (int)getpid(),
                 (unsigned long)(ts.tv_nsec ^ (i * 0x9e3779b9u)) & 0xffffffffu);
        fd = openat(st->dfd, st->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) {
            st->name[0] = 0;
            return tb_errno(err, "creating fio's file in %s", st->dir);
        }
    }
    if (fd < 0) {
        st->name[0] = 0;
        return tb_errf(err, "creating fio's file in %s: every name taken", st->dir);
    }
    close(fd);
    if (snprintf(st->path, sizeof st->path, "%s/%s", st->dir, st->name) >= (int)sizeof st->path)
        return tb_errf(err, "%s: path too long", st->dir);
    /* direct I/O: the open (ramfs refuses it) and one 4 KiB write at offset 0 */
    fd = openat(st->dfd, st->name, O_WRONLY | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return *skip = 1,
               tb_errf(err,
                       "direct I/O (O_DIRECT) is not supported on %s (%s: %s), and fio's jobs "
                       "run with direct=1: %s",
                       st->dir, st->fs, strerror(errno), place_hint);
    void *blk = NULL;
    int rc = 0;
    if (posix_memalign(&blk, 4096, 4096) != 0) {
        close(fd);
        return tb_errf(err, "out of memory");
    }
    memset(blk, 0, 4096);
    if (pwrite(fd, blk, 4096, 0) != 4096) {
        *skip = 1;
        rc = tb_errf(err,
                     "a 4 KiB direct write (O_DIRECT) on %s (%s) failed: %s; fio's jobs run with "
                     "direct=1: %s",
                     st->dir, st->fs, strerror(errno), place_hint);
    }
    free(blk);
    if (rc == 0 && ftruncate(fd, 0) < 0)
        rc = tb_errno(err, "%s", st->path);
    close(fd);
    return rc;
}

/* The named block device: not in use (O_EXCL), its size. */
static int check_device(tb_wl_storage_place *st, int *skip, tb_err *err)
{
    struct stat sb;
    snprintf(st->path, sizeof st->path, "%s", st->p.device);
    snprintf(st->fs, sizeof st->fs, "block device");
    if (stat(st->path, &sb) < 0)
        return *skip = 1, tb_errno(err, "storage device %s", st->path);
    if (!S_ISBLK(sb.st_mode))
        return *skip = 1, tb_errf(err,
                                  "%s is not a block device (for a file in a directory use "
                                  "storage.dir, --dir)",
                                  st->path);
    int fd = open(st->path, O_RDWR | O_EXCL | O_DIRECT | O_CLOEXEC);
    if (fd < 0 && errno == EBUSY)
        return *skip = 1, tb_errf(err,
                                  "%s is in use (mounted, swap, or held by another device): fio "
                                  "would write over it; name a device nothing uses",
                                  st->path);
    if (fd < 0)
        return *skip = 1, tb_errno(err, "opening %s for direct I/O", st->path);
    uint64_t bytes = 0;
    int rc = ioctl(fd, BLKGETSIZE64, &bytes);
    close(fd);
    if (rc < 0)
        return tb_errno(err, "%s: its size (BLKGETSIZE64)", st->path);
    if (bytes < (1u << 20))
        return *skip = 1, tb_errf(err, "%s has %llu bytes: too small for fio's jobs (1M at least)",
                                  st->path, (unsigned long long)bytes);
    st->size = st->p.size < (long long)bytes ? st->p.size : (long long)(bytes & ~4095ull);
    return 0;
}

/* Whether this process may set up an io_uring (a kernel or a container may refuse). */
static void probe_io_uring(tb_wl_storage_place *st)
{
    struct io_uring_params up;
    memset(&up, 0, sizeof up);
    long fd = syscall(SYS_io_uring_setup, 1, &up);
    if (fd >= 0) {
        close((int)fd);
        st->io_uring = 1;
        return;
    }
    int e = errno;
    char disabled[16] = "";
    FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
    if (f) {
        if (fgets(disabled, sizeof disabled, f))
            disabled[strcspn(disabled, "\n")] = 0;
        fclose(f);
    }
    snprintf(st->io_uring_why, sizeof st->io_uring_why,
             "io_uring is not available here (io_uring_setup: %s%s%s)", strerror(e),
             disabled[0] ? "; kernel.io_uring_disabled = " : "", disabled);
}

static int fio_version(tb_wl_storage_place *st, tb_wl_sink *sink, const char *fio, tb_err *err)
{
    char *argv[] = {(char *)fio, "--version", NULL};
    int code = 0, rc = tb_wl_run_tool(sink, argv, "fio-version.txt", "fio-version.stderr.log",
                                      10000, &code, err);
    if (rc != 0)
        return rc < 0 ? -1 : tb_errf(err, "cancelled");
    tb_wl_first_line(sink, "fio-version.txt", st->fio, sizeof st->fio);
    if (code != 0 || strncmp(st->fio, "fio-", 4))
        return tb_errf(err, "%s --version: exit code %d, \"%.40s\"", fio, code, st->fio);
    return 0;
}

/* fio lays the file out (writes it whole) so that no measured job does. */
static int lay_out(tb_wl_storage_place *st, tb_wl_sink *sink, const char *fio, tb_err *err)
{
    char fname[PATH_MAX + 16], size[48];
    snprintf(fname, sizeof fname, "--filename=%s", st->path);
    snprintf(size, sizeof size, "--size=%lld", st->size);
    char *argv[] = {(char *)fio, "--name=layout", fname, size, "--create_only=1", "--thread", NULL};
    int code = 0;
    int64_t timeout_ms = 120000 + st->size / 20000; /* 20 MB/s at least */
    int rc = tb_wl_run_tool(sink, argv, "fio-layout.log", "fio-layout.stderr.log", timeout_ms,
                            &code, err);
    if (rc != 0)
        return rc < 0 ? -1 : tb_errf(err, "cancelled while fio laid out its file");
    if (code != 0) {
        char line[256];
        tb_wl_first_line(sink, "fio-layout.stderr.log", line, sizeof line);
        return tb_errf(err, "fio laying out %s: exit code %d%s%s", st->path, code,
                       line[0] ? ": " : "", line);
    }
    return 0;
}

int tb_wl_storage_open(tb_wl_storage_place *st, const tb_wl_storage_params *p, tb_wl_sink *sink,
                       int *skip, tb_err *err)
{
    memset(st, 0, sizeof *st);
    st->p = *p;
    st->dfd = -1;
    st->size = p->size;
    *skip = 0;
    probe_io_uring(st);
    char fio[PATH_MAX];
    if (!tb_wl_find_tool(p->fio_bin, fio, sizeof fio))
        return *skip = 1, tb_errf(err,
                                  "fio is not installed (%s not found%s): install the package fio "
                                  "(apt-get install fio, dnf install fio)",
                                  p->fio_bin, strchr(p->fio_bin, '/') ? "" : " in PATH");
    int rc;
    if (p->device[0]) {
        st->device = 1;
        rc = check_device(st, skip, err);
    } else {
        const char *dir = p->dir[0] ? p->dir : sink->dir;
        if (!dir)
            return tb_errf(err, "no directory for fio's file");
        snprintf(st->dir, sizeof st->dir, "%s", dir);
        st->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (st->dfd < 0)
            return *skip = 1, tb_errno(err, "storage directory %s", dir);
        rc = make_file(st, skip, err);
    }
    if (rc == 0)
        rc = fio_version(st, sink, fio, err);
    if (rc == 0 && !st->device)
        rc = lay_out(st, sink, fio, err);
    if (rc < 0)
        tb_wl_storage_close(st);
    return rc;
}

void tb_wl_storage_close(tb_wl_storage_place *st)
{
    if (st->dfd >= 0 && st->name[0])
        unlinkat(st->dfd, st->name, 0);
    st->name[0] = 0;
    if (st->dfd >= 0)
        close(st->dfd);
    st->dfd = -1;
}

/* ---- fio's command line ---- */

int tb_wl_storage_argv(const tb_wl_storage_place *st, unsigned engine, const char *output,
                       char **argv, size_t n, char *text, size_t tn)
{
    tb_wl_words w = {argv, 0, n, text, 0, tn, 0};
    long long run_ms = llround(st->p.runtime_s * 1000), ramp_ms = llround(st->p.ramp_s * 1000);
    char fio[PATH_MAX];
    if (!tb_wl_find_tool(st->p.fio_bin, fio, sizeof fio))
        snprintf(fio, sizeof fio, "%s", st->p.fio_bin);
    tb_wl_word(&w, "%s", fio);
    tb_wl_word(&w, "--output-format=json");
    tb_wl_word(&w, "--output=%s", output);
    tb_wl_word(&w, "--filename=%s", st->path);
    tb_wl_word(&w, "--size=%lld", st->size);
    if (!st->device)
        tb_wl_word(&w, "--allow_file_create=0");
    tb_wl_word(&w, "--direct=1");
    tb_wl_word(&w, "--ioengine=%s", tb_wl_fio_engine_name(engine));
    if (engine == TB_WL_FIO_IO_URING) {
        tb_wl_word(&w, "--fixedbufs=1");
        tb_wl_word(&w, "--registerfiles=1");
    }
    tb_wl_word(&w, "--thread=1");
    tb_wl_word(&w, "--norandommap=1");
    tb_wl_word(&w, "--randrepeat=0");
    tb_wl_word(&w, "--time_based=1");
    tb_wl_word(&w, "--runtime=%lldms", run_ms);
    tb_wl_word(&w, "--ramp_time=%lldms", ramp_ms);
    tb_wl_word(&w, "--group_reporting=1");
    for (size_t i = 0; i < TB_WL_FIO_JOBS; i++) {
        const tb_wl_fio_job *j = &tb_wl_fio_jobs[i];
        if (!(st->p.jobs & (1u << i)))
            continue;
        tb_wl_word(&w, "--name=%s", j->name);
        tb_wl_word(&w, "--stonewall");
        tb_wl_word(&w, "--bs=%d", j->bs);
        tb_wl_word(&w, "--rw=%s", j->rw);
        tb_wl_word(&w, "--iodepth=%d", j->iodepth);
        tb_wl_word(&w, "--numjobs=%d", j->numjobs);
        if (j->rwmixread)
            tb_wl_word(&w, "--rwmixread=%d", j->rwmixread);
    }
    if (w.bad)
        return -1;
    argv[w.n] = NULL;
    return 0;
}

/* ---- fio's JSON ---- */

static int num(const json_t *o, const char *k, double *out)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
        return -1;
    *out = json_number_value(v);
    return 0;
}

/* One direction of a fio job ("read", "write") as the document has it. */
static json_t *fio_dir(const json_t *fj, const char *dir, const char *job, tb_err *err)
{
    const json_t *d = json_object_get(fj, dir), *clat = json_object_get(d, "clat_ns"),
                 *pct = json_object_get(clat, "percentile"), *lat = json_object_get(d, "lat_ns");
    double iops, bw, io, mean, p50, p99, p999, lmean = 0;
    if (!json_is_object(d) || num(d, "iops", &iops) < 0 || num(d, "bw_bytes", &bw) < 0 ||
        num(d, "io_bytes", &io) < 0)
        return tb_errf(err, "fio JSON: job %s: no %s figures (iops, bw_bytes, io_bytes)", job, dir),
               NULL;
    if (io <= 0)
        return tb_errf(err, "fio JSON: job %s did no %ss", job, dir), NULL;
    if (num(clat, "mean", &mean) < 0 || num(pct, "50.000000", &p50) < 0 ||
        num(pct, "99.000000", &p99) < 0 || num(pct, "99.900000", &p999) < 0)
        return tb_errf(err,
                       "fio JSON: job %s: %s.clat_ns has no percentiles 50, 99 and 99.9 "
                       "(percentile list changed?)",
                       job, dir),
               NULL;
    num(lat, "mean", &lmean);
    return json_pack("{s:f, s:f, s:f, s:{s:f, s:f, s:f, s:f}, s:f}", "iops", iops, "bw_bytes", bw,
                     "io_bytes", io, "clat_us", "mean", mean / 1e3, "p50", p50 / 1e3, "p99",
                     p99 / 1e3, "p99.9", p999 / 1e3, "lat_us_mean", lmean / 1e3);
}

static json_t *fio_job(const json_t *fj, tb_err *err)
{
    const char *name = json_string_value(json_object_get(fj, "jobname"));
    const tb_wl_fio_job *j = name ? tb_wl_fio_job_find(name) : NULL;
    if (!j)
        return tb_errf(err, "fio JSON: a job that is not of the set (\"%.40s\")",
                       name ? name : "no jobname"),
               NULL;
    const json_t *e = json_object_get(fj, "error");
    if (!json_is_integer(e))
        return tb_errf(err, "fio JSON: job %s: no \"error\"", name), NULL;
    if (json_integer_value(e) != 0) {
        long long code = json_integer_value(e);
        return tb_errf(err, "fio job %s failed: error %lld (%s)", name, code,
                       code > 0 && code < 4096 ? strerror((int)code) : "?"),
               NULL;
    }
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i}", "name", j->name, "rw", j->rw, "bs", j->bs,
                          "iodepth", j->iodepth, "numjobs", j->numjobs);
    if (!o)
        return tb_errf(err, "out of memory"), NULL;
    if (j->rwmixread)
        json_object_set_new(o, "rwmixread", json_integer(j->rwmixread));
    const json_t *rt = json_object_get(fj, "job_runtime");
    if (json_is_integer(rt))
        json_object_set_new(o, "runtime_ms", json_integer(json_integer_value(rt)));
    static const char *const dirs[] = {"read", "write"};
    for (int d = 0; d < 2; d++) {
        if (d == 0 ? !tb_wl_fio_job_reads(j) : !tb_wl_fio_job_writes(j))
            continue;
        json_t *v = fio_dir(fj, dirs[d], name, err);
        if (!v) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(o, dirs[d], v);
    }
    return o;
}

int tb_wl_fio_parse(const char *text, size_t len, const char *engine, json_t **run, tb_err *err)
{
    size_t off = 0;
    while (off < len && text[off] != '{') { /* fio's notes, a line each */
        const char *nl = memchr(text + off, '\n', len - off);
        if (!nl)
            return tb_errf(err, "fio JSON: no JSON document in fio's output");
        off = (size_t)(nl - text) + 1;
    }
    if (off >= len)
        return tb_errf(err, "fio JSON: no JSON document in fio's output");
    json_error_t je;
    json_t *doc = json_loadb(text + off, len - off, 0, &je);
    if (!doc)
        return tb_errf(err, "fio JSON: not JSON (line %d: %s)", je.line, je.text);
    const json_t *jobs = json_object_get(doc, "jobs");
    const char *ver = json_string_value(json_object_get(doc, "fio version"));
    json_t *out = json_array();
    int rc = 0;
    if (!json_is_array(jobs) || json_array_size(jobs) == 0)
        rc = tb_errf(err, "fio JSON: no \"jobs\"");
    size_t i;
    const json_t *fj;
    json_array_foreach(jobs, i, fj)
    {
        json_t *o = rc == 0 ? fio_job(fj, err) : NULL;
        if (!o) {
            rc = -1;
            break;
        }
        json_array_append_new(out, o);
    }
    if (rc == 0)
        *run = json_pack("{s:s, s:s, s:o}", "engine", engine, "fio", ver ? ver : "", "jobs", out);
    else
        json_decref(out);
    json_decref(doc);
    if (rc == 0 && !*run)
        return tb_errf(err, "out of memory");
    return rc;
}

/* ---- a run ---- */

int tb_wl_storage_run(tb_wl_storage_place *st, unsigned engine, tb_wl_sink *sink, json_t **run,
                      tb_err *err)
{
    *run = NULL;
    if (engine == TB_WL_FIO_IO_URING && !st->io_uring)
        return tb_errf(err, "%s", st->io_uring_why), TB_WL_SKIPPED;
    const char *e = tb_wl_fio_engine_name(engine);
    char out[64], errname[64], outpath[PATH_MAX], *argv[128], text[8192];
    snprintf(out, sizeof out, "fio-%s.json", e);
    snprintf(errname, sizeof errname, "fio-%s.stderr.log", e);
    int fd = tb_wl_create(sink, out, err);
    if (fd < 0)
        return TB_WL_FAILED;
    close(fd);
    if (tb_wl_path(sink, out, outpath, sizeof outpath, err) < 0)
        return TB_WL_FAILED;
    if (tb_wl_storage_argv(st, engine, outpath, argv, sizeof argv / sizeof argv[0], text,
                           sizeof text) < 0)
        return tb_errf(err, "fio's command line is too long"), TB_WL_FAILED;
    tb_wl_command(sink, argv);
    int64_t timeout_ms =
        (int64_t)(n_jobs(&st->p) * (st->p.runtime_s + st->p.ramp_s + 5) * 2000) + 120000;
    char what[80];
    snprintf(what, sizeof what, "fio (%s)", e);
    int rc = tb_wl_tool_step(sink, argv, "fio-stdout.log", errname, timeout_ms, what, 0, err);
    if (rc != TB_WL_OK)
        return rc;
    tb_buf b = {0};
    if (tb_wl_read(sink, out, 64u << 20, &b, err) < 0)
        return TB_WL_FAILED;
    rc = tb_wl_fio_parse(b.p ? (const char *)b.p : "", b.len, e, run, err);
    tb_buf_clear(&b);
    if (rc < 0)
        return TB_WL_FAILED;
    size_t got = json_array_size(json_object_get(*run, "jobs"));
    if (got != (size_t)n_jobs(&st->p)) {
        json_decref(*run);
        *run = NULL;
        tb_errf(err, "fio (%s) reported %zu jobs of %d", e, got, n_jobs(&st->p));
        return TB_WL_FAILED;
    }
    return TB_WL_OK;
}

/* ---- the teebench-storage/1 document ---- */

json_t *tb_wl_storage_doc(const tb_wl_storage_place *st, json_t *runs)
{
    char size[32];
    tb_wl_fmt_size(st->size, size, sizeof size);
    json_t *engines = engines_json(&st->p), *jobs = jobs_json(&st->p);
    return json_pack("{s:s, s:{s:s, s:s, s:s, s:I}, s:{s:b, s:f, s:f, s:o, s:o, s:s}, s:o}", "fio",
                     st->fio, "target", "kind", st->device ? "device" : "file", "path", st->path,
                     "filesystem", st->fs, "size_bytes", (json_int_t)st->size, "options", "direct",
                     1, "runtime_s", st->p.runtime_s, "ramp_s", st->p.ramp_s, "engines", engines,
                     "jobs", jobs, "job_file",
                     "CVM_eval config/fio/libaio.fio (iou.fio for io_uring)", "runs", runs);
}

/* One direction's five samples (emit 0: only checked). */
static int dir_samples(const json_t *d, const char *base, const tb_wl_fio_job *j, const char *dir,
                       const char *engine, int emit, tb_wl_sink *sink, tb_err *err)
{
    static const struct {
        const char *key, *sub, *name, *what;
        double scale;
    } m[] = {
        {"iops", NULL, "iops", "I/O operations per second", 1},
        {"bw_bytes", NULL, "bw", "bytes per second", 1},
        {"clat_us", "p50", "clat.p50", "median completion latency (clat)", 1},
        {"clat_us", "p99", "clat.p99", "99th percentile of the completion latency", 1},
        {"clat_us", "p99.9", "clat.p99.9", "99.9th percentile of the completion latency", 1},
    };
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
        double v;
        if (tb_wl_doc_number(d, "storage JSON", m[k].key, m[k].sub, &v, err) < 0)
            return tb_err_wrap(err, "job %s, %s", j->name, dir);
        if (!emit)
            continue;
        char name[192], note[320];
        snprintf(name, sizeof name, "%s.%s", base, m[k].name);
        snprintf(note, sizeof note,
                 "%s%s%s of fio job %s (rw=%s%s, bs %dk, iodepth %d, %d job%s), ioengine %s, "
                 "direct=1",
                 m[k].what, job_mixed(j) ? ", " : "", job_mixed(j) ? dir : "", j->name, j->rw,
                 j->rwmixread ? " 70 % reads" : "", j->bs / 1024, j->iodepth, j->numjobs,
                 j->numjobs == 1 ? "" : "s", engine);
        if (tb_wl_sample(sink, name, v * m[k].scale, 0, note, err) < 0)
            return -1;
    }
    return 0;
}

/* One run's jobs (label: its engine). */
static int read_run(const void *ctx, size_t r, const char *engine, const char *e,
                    const json_t *jobs, int emit, tb_wl_sink *sink, tb_err *err)
{
    (void)ctx;
    size_t i;
    const json_t *jo;
    json_array_foreach(jobs, i, jo)
    {
        const char *name = json_string_value(json_object_get(jo, "name"));
        const tb_wl_fio_job *j = name ? tb_wl_fio_job_find(name) : NULL;
        if (!j)
            return tb_errf(err, "storage JSON: runs[%zu].jobs[%zu]: unknown job \"%.40s\"", r, i,
                           name ? name : "");
        static const char *const dirs[] = {"read", "write"};
        for (int d = 0; d < 2; d++) {
            if (d == 0 ? !tb_wl_fio_job_reads(j) : !tb_wl_fio_job_writes(j))
                continue;
            const json_t *dj = json_object_get(jo, dirs[d]);
            if (!json_is_object(dj))
                return tb_errf(err, "storage JSON: runs[%zu].jobs[%zu] (%s): no \"%s\"", r, i, name,
                               dirs[d]);
            char base[160];
            snprintf(base, sizeof base, "storage.%s.%s%s%s", e, j->name, job_mixed(j) ? "." : "",
                     job_mixed(j) ? dirs[d] : "");
            if (dir_samples(dj, base, j, dirs[d], engine, emit, sink, err) < 0)
                return -1;
        }
    }
    return 0;
}

/* teebench-storage/1: every run's jobs, every member checked before the first sample. */
static int doc_read(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err)
{
    (void)o;
    static const tb_wl_doc_runs_spec runs = {"storage JSON", "engine", "jobs", read_run};
    if (tb_wl_doc_runs(doc, &runs, NULL, sink, err) < 0)
        return -1;
    const json_t *t = json_object_get(doc, "target");
    if (json_is_object(t))
        tb_wl_fact(sink, "storage_target", json_deep_copy(t));
    tb_wl_doc_envelope_times(doc, info);
    return 0;
}

/* ---- the suite's steps ---- */

typedef struct storage_state {
    tb_wl_storage_place st;
    int open;             /* st holds a place */
    int skip;             /* every step is skipped (why) ... */
    char why[TB_ERR_MAX]; /* ... or fails with it */
} storage_state;

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    (void)env;
    (void)err;
    storage_state *s = tb_wl_state_new(sizeof *s, state, err);
    if (!s)
        return -1;
    tb_err e = {{0}};
    if (tb_wl_storage_open(&s->st, params, sink, &s->skip, &e) < 0) {
        snprintf(s->why, sizeof s->why, "%s", e.msg);
        tb_wl_version(sink, "fio", s->st.fio[0] ? s->st.fio : "not installed");
        return 0;
    }
    s->open = 1;
    tb_wl_version(sink, "fio", s->st.fio);
    char size[32];
    tb_wl_fmt_size(s->st.size, size, sizeof size);
    tb_wl_info(sink, "fio's %s: %s (%s, %s)", s->st.device ? "device" : "file", s->st.path,
               s->st.fs, size);
    tb_wl_fact(sink, "storage_target",
               json_pack("{s:s, s:s, s:s, s:I}", "kind", s->st.device ? "device" : "file", "path",
                         s->st.path, "filesystem", s->st.fs, "size_bytes", (json_int_t)s->st.size));
    return 0;
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    storage_state *s = state;
    (void)round;
    if (!s->open)
        return tb_errf(err, "%s", s->why), s->skip ? TB_WL_SKIPPED : TB_WL_FAILED;
    unsigned engine = strcmp(target, "io_uring") ? TB_WL_FIO_LIBAIO : TB_WL_FIO_IO_URING;
    json_t *run = NULL;
    int rc = tb_wl_storage_run(&s->st, engine, sink, &run, err);
    if (rc != TB_WL_OK)
        return rc;
    json_t *doc = json_pack("{s:[o]}", "runs", run);
    tb_wl_doc_info info;
    tb_wl_sink quiet = *sink; /* the target is the suite's fact, said once at setup */
    quiet.fact = NULL;
    int r = doc ? doc_read(doc, NULL, &quiet, &info, err) : tb_errf(err, "out of memory");
    json_decref(doc);
    return r < 0 ? TB_WL_FAILED : TB_WL_OK;
}

static void cleanup(void *state, tb_wl_sink *sink)
{
    storage_state *s = state;
    (void)sink;
    if (s->open)
        tb_wl_storage_close(&s->st);
    free(s);
}

const tb_workload tb_wl_storage = {
    .name = "storage",
    .title = "Storage",
    .what = "block I/O with fio: CVM_eval's latency, bandwidth and IOPS jobs, direct=1",
    .flags = TB_WL_NOT_QUICK,
    TB_WL_PARAM_TABLE(tb_wl_storage_params, param_table),
    .check = check,
    .steps = steps,
    .describe = describe,
    .setup_estimate = setup_estimate,
    .setup = setup,
    .step = step,
    .cleanup = cleanup,
    TB_WL_METRIC_TABLE(metrics),
    .plan_metrics = plan_metrics,
    .doc_schema = TB_WL_STORAGE_SCHEMA,
    .doc_read = doc_read,
};
