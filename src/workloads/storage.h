/* workloads/storage: the storage workload (see storage.c) -- fio with CVM_eval's job
 * set on a file in a directory the user names (default: the work directory) or on a
 * block device the user names; its parameters, the jobs, the place fio writes to
 * (checked before anything is written: direct I/O, free space, a device no one holds),
 * fio's command line and its JSON output parsed, and the teebench-storage/1 document
 * `teebench storage --json` prints (its writer; the reader is the workload's doc_read). */
#ifndef TB_WORKLOADS_STORAGE_H
#define TB_WORKLOADS_STORAGE_H

#include <limits.h>
#include <stdint.h>

#include "workloads/workload.h"

#define TB_WL_STORAGE_SCHEMA "teebench-storage/1"

/* One job of the set (CVM_eval's config/fio/libaio.fio, one stonewalled job each). */
typedef struct tb_wl_fio_job {
    const char *name; /* "lat-randread": its metric names' segment, fio's --name */
    const char *rw;   /* fio's rw= */
    int bs;           /* block size, bytes */
    int iodepth, numjobs;
    int rwmixread; /* rw=randrw: the percentage of reads; else 0 */
} tb_wl_fio_job;

#define TB_WL_FIO_JOBS 9
extern const tb_wl_fio_job tb_wl_fio_jobs[TB_WL_FIO_JOBS];

/* The I/O engines: fio's ioengine= and the metric names' segment. */
enum { TB_WL_FIO_LIBAIO = 1, TB_WL_FIO_IO_URING = 2 };

typedef struct tb_wl_storage_params {
    char dir[512];     /* "": the work directory; else a file in this directory */
    char device[256];  /* "": a file in dir; else this block device (its contents are lost) */
    long long size;    /* bytes of the file, or of the device used from its start */
    double runtime_s;  /* per job, measured */
    double ramp_s;     /* per job, before the measurement (fio's ramp_time) */
    unsigned engines;  /* TB_WL_FIO_* bits */
    unsigned jobs;     /* bit i: tb_wl_fio_jobs[i] */
    char fio_bin[256]; /* a name looked up in PATH, or a path */
} tb_wl_storage_params;

extern const tb_workload tb_wl_storage;

/* "libaio", "io_uring" for one TB_WL_FIO_* bit. */
const char *tb_wl_fio_engine_name(unsigned engine);

/* The place fio works on, checked and made ready: a new file (O_EXCL, never through a
   symlink, removed by tb_wl_storage_close) in the directory, or the named block device
   (opened O_EXCL once: refused when it is mounted or held). Owned by the caller of
   tb_wl_storage_open. */
typedef struct tb_wl_storage_place {
    tb_wl_storage_params p;
    int device;                    /* 1: p.device; 0: a file in dir */
    char dir[PATH_MAX];            /* the file's directory */
    int dfd;                       /* it, open; -1 */
    char name[64];                 /* the file's name in it; "" when none was made */
    char path[PATH_MAX];           /* what fio opens */
    char fs[32];                   /* the filesystem's type ("ext4"), "block device" */
    long long size;                /* bytes fio uses */
    char fio[64];                  /* `fio --version`: "fio-3.33" */
    int io_uring;                  /* 1: the kernel lets this process set up an io_uring */
    char io_uring_why[TB_ERR_MAX]; /* why not */
} tb_wl_storage_place;

/* Checks the tool (a missing fio: *skip = 1, err names the package) and the place (no
   direct I/O, tmpfs, too little room, a device in use: *skip = 1 with the line), makes
   the file and has fio lay it out (so round 1 does not pay for it). Files of its own (fio's
   output) go to sink's work directory, which is also the place when p->dir is "". 0, or
   -1 with err (st then holds nothing to close). */
int tb_wl_storage_open(tb_wl_storage_place *st, const tb_wl_storage_params *p, tb_wl_sink *sink,
                       int *skip, tb_err *err);
/* Removes the file it made (a device is left as it is). */
void tb_wl_storage_close(tb_wl_storage_place *st);

/* One run of every selected job with engine: fio in its own process group (an interrupt
   kills it at once), its JSON parsed into *run (tb_wl_fio_parse's; caller decrefs).
   TB_WL_OK, TB_WL_FAILED or TB_WL_SKIPPED (io_uring not available) with err, or
   TB_WL_CANCELLED. */
int tb_wl_storage_run(tb_wl_storage_place *st, unsigned engine, tb_wl_sink *sink, json_t **run,
                      tb_err *err);

/* The teebench-storage/1 document's members (cli/json puts the envelope around them):
   the fio version, the target (kind, path, filesystem, size_bytes), the options
   (direct, runtime, ramp, engines, jobs) and runs (an array of tb_wl_fio_parse's runs:
   consumed). NULL when out of memory. */
json_t *tb_wl_storage_doc(const tb_wl_storage_place *st, json_t *runs);

/* A size as fio and storage.size take it: "64M", "1G", "512k", bytes; binary
   multiples. 0 and *out, or -1 with err naming key. */
int tb_wl_parse_size(const char *key, const char *v, long long lo, long long hi, long long *out,
                     tb_err *err);
/* A size for humans and for storage.size: "1G" when it is a whole multiple, else bytes. */
void tb_wl_fmt_size(long long bytes, char *out, size_t n);

#endif
