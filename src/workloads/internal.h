/* workloads/internal: the workloads' entry points that only their unit tests and
 * fuzz targets call (the tools' output parsers, argv builders and small decisions each
 * workload's steps use whole). Other modules use workloads/workload.h and each
 * workload's header; a name moves back there when another module needs it. */
#ifndef TB_WORKLOADS_INTERNAL_H
#define TB_WORKLOADS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "workloads/kv.h"
#include "workloads/memory.h"
#include "workloads/network.h"
#include "workloads/probe.h"
#include "workloads/storage.h"
#include "workloads/workload.h"

/* ---- workloads/kv.h ---- */
/* redis-benchmark --csv output (redis 7: a header "test","rps","avg_latency_ms",
   "min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
   and a row per test, SET and GET only; lines not starting with '"' are skipped) as one run of the
   document: {"transport", "tests": [{"test": "SET", "rps", "avg_ms", "min_ms", "p50_ms",
   "p95_ms", "p99_ms", "max_ms"}, ...]}, SET and GET both there. 0 and *run (caller
   decrefs), or -1 with err naming what is wrong. */
int tb_wl_kv_parse_csv(const char *text, size_t len, const char *transport, json_t **run,
                       tb_err *err);

/* ---- workloads/memory.h ---- */
/* "bandwidth", "latency", "first-touch" (the steps' targets); NULL out of range. */
const char *tb_wl_memory_part_name(tb_wl_memory_part part);
/* A size as the parameters take it: "4096", "4k", "64K", "64KiB", "1m", "1g", "1GiB"
   (binary units). 0 and *out (> 0), or -1 with err naming key. */
int tb_wl_memory_size_parse(const char *key, const char *v, uint64_t *out, tb_err *err);
/* The bandwidth arrays' size a plan gives on this machine: array_bytes, or for auto 4 x
   llc (at least 64 MiB; llc 0 -- unknown -- gives 256 MiB). */
uint64_t tb_wl_memory_array_auto(const tb_wl_memory_params *p, uint64_t llc);

/* ---- workloads/network.h ---- */
/* Reads iperf3's --json output (len bytes, untrusted). iperf3 3.12 exits 0 with a
   document whose "error" says why it failed: that is an error here, with its text. The
   receiver's figures are end.sum_received (UDP: end.sum when an older iperf3 has no
   sum_received). Lines before the document (iperf3's warnings: a UDP datagram larger than
   the TCP MSS) are passed over. 0 and *out, or -1 with err naming the member. */
int tb_wl_iperf3_parse(const char *text, size_t len, tb_wl_iperf3 *out, tb_err *err);
/* "iperf 3.12 (cJSON 1.7.15)" (`iperf3 --version`'s first line) -> major, minor; 0, or -1. */
int tb_wl_iperf3_version_parse(const char *text, int *major, int *minor);
/* Whether an iperf3 whose -P 2 client showed threads threads (tb_wl_network_iperf3_threads)
   runs each stream in a thread of its own: more than one; a probe that failed (< 0) is one
   thread a process, which is right for either kind. */
int tb_wl_iperf3_threaded(int threads);
/* The threads of process pid (its /proc/PID/task entries), or -1. */
int tb_wl_network_task_count(pid_t pid);
/* The iperf3 processes that carry N streams: 1 for a threaded iperf3; else procs (or,
   when 0, ncpu), at most N and TB_WL_NET_MAX_PROCS. */
int tb_wl_network_procs(const tb_wl_network_params *p, int streams, int ncpu, int threaded);
/* 1 when /proc/net/tcp's (or tcp6's) text has a socket in LISTEN on port, else 0. Pure. */
int tb_wl_network_listening(const char *proc_net_tcp, int port);

/* ---- workloads/probe.h ---- */
/* Whether the plan's parameters select the probe called name. */
int tb_wl_probe_selected(const tb_wl_probe_params *pr, const char *name);

/* ---- workloads/storage.h ---- */
/* The job called name, or NULL. */
const tb_wl_fio_job *tb_wl_fio_job_find(const char *name);
/* Whether job reads, writes (rw=randrw: both). */
int tb_wl_fio_job_reads(const tb_wl_fio_job *j);
int tb_wl_fio_job_writes(const tb_wl_fio_job *j);
/* fio's command line for one run of every selected job with engine (one TB_WL_FIO_*
   bit), its JSON written to output: into argv (at most n - 1 words and a NULL; the words
   live in text, size tn). 0, or -1 when it does not fit. */
int tb_wl_storage_argv(const tb_wl_storage_place *st, unsigned engine, const char *output,
                       char **argv, size_t n, char *text, size_t tn);
/* fio's --output-format=json output (text, len: anything before the first line that
   starts with '{' -- fio's notes -- is skipped) as one run of the document: {"engine",
   "fio", "jobs": [{"name", "rw", "bs", "iodepth", "numjobs", ["rwmixread",] "runtime_ms",
   "read" / "write": {"iops", "bw_bytes", "io_bytes", "clat_us": {"mean", "p50", "p99",
   "p99.9"}, "lat_us_mean"}}]} -- each job one of the set (its direction or both), none
   with an error. 0 and *run (caller decrefs), or -1 with err naming what is wrong. */
int tb_wl_fio_parse(const char *text, size_t len, const char *engine, json_t **run, tb_err *err);

/* ---- workloads/workload.h ---- */
/* tb_wl_metric_find (workload.h) in w's table alone (w need not be in the registry: tests' own
 * tables). */
int tb_wl_metric_match(const tb_workload *w, const char *name, tb_wl_match *out);
/* A sweep segment ("ws_64kib") of family f as the setting's value: 0 and *x, or -1. */
int tb_wl_sweep_value(const tb_wl_family *f, const char *part, double *x);

#endif
