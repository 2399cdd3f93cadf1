/* suite/internal: what the files of the suite module share -- the run's
 * context and the step functions of each workload (run.c drives them).
 *
 * Ownership: run.c creates and frees everything in a suite_ctx; a workload
 * file keeps its own state (TLS context, attestation keys) in the ctx and frees
 * it in its *_cleanup function, which run.c calls once at the end. */
#ifndef TB_SUITE_INTERNAL_H
#define TB_SUITE_INTERNAL_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>

#include "attest/attest.h"
#include "attest/snp.h"
#include "base/err.h"
#include "base/proc.h"
#include "net/tls.h"
#include "record/record.h"
#include "suite/suite.h"
#include "workloads/attest.h"
#include "workloads/http.h"
#include "workloads/notary.h"
#include "workloads/probe.h"
#include "workloads/syscall.h"

/* A workload's parameters in the plan c runs. */
#define HTTP(c) ((const tb_wl_http_params *)tb_suite_plan_params((c)->p, &tb_wl_http))
#define SYSCALL(c) ((const tb_wl_syscall_params *)tb_suite_plan_params((c)->p, &tb_wl_syscall))
#define PROBE(c) ((const tb_wl_probe_params *)tb_suite_plan_params((c)->p, &tb_wl_probe))
#define ATTEST(c) ((const tb_wl_attest_params *)tb_suite_plan_params((c)->p, &tb_wl_attest))
#define NOTARY(c) ((const tb_wl_notary_params *)tb_suite_plan_params((c)->p, &tb_wl_notary))

/* What a step did. */
enum { ST_OK = 0, ST_FAILED, ST_SKIPPED, ST_CANCELLED };

typedef struct suite_ctx {
    const tb_suite_plan *p;
    char exe[PATH_MAX]; /* p->self_exe, writable for argv arrays */
    const volatile sig_atomic_t *stop;
    tb_record *r;
    char work[PATH_MAX];
    int work_fd;  /* the work directory, opened once (tb_dir_open_private's rule): every
                     file the suite writes there is created relative to it */
    int own_work; /* made here: removed at the end unless something failed */
    int ncpu;
    char env_tee[8]; /* the TEE the env facts say this runs in (tb_env_json_tee) */
    tb_suite_metric_spec *specs;
    size_t n_specs;
    json_t *skipped, *failures, *warnings; /* arrays, owned until put into r->extra */

    /* servers, started once (run.c) */
    char pki[PATH_MAX], ca[PATH_MAX];
    int fixture_up, fixture_port;
    tb_proc fixture;
    char fixture_reason[TB_ERR_MAX]; /* why it is not up, when wanted */
    int nginx_up, nginx_port;
    int nginx_remote; /* plan's http.nginx_url: nginx runs elsewhere */
    char nginx_dir[PATH_MAX];
    int nginx_skip;                /* 1: skipped (missing package), 0: failed */
    char nginx_reason[TB_ERR_MAX]; /* why it is not up, when wanted */
    int server_threads;

    /* probe (wl_sys.c) */
    unsigned char probe_skip_seen[64]; /* by index in tb_probe_all: reported as skipped */

    /* http (wl_http.c) */
    tb_tls_ctx *tls;
    int warmed[2];

    /* attest (wl_attest.c) */
    int attest_ready; /* 1: set up; -1: setup failed (attest_reason) */
    char attest_reason[TB_ERR_MAX];
    char attest_tee[8]; /* the evidence: "tdx", "snp" (configfs-tsm), "sim", "sim-snp" */
    int attest_sim;     /* attest_tee is a SIMULATED one */
    int attest_snp;     /* attest_tee is SEV-SNP */
    char sim_dir[PATH_MAX];
    tb_attest_sim *sim;         /* sim: opened once */
    tb_attest_snp_sim *snp_sim; /* sim-snp: opened once */
    char *collateral_json;      /* TDX; NULL: verification unavailable (verify_reason) */
    char verify_reason[TB_ERR_MAX];
    tb_attest_root *root;
    tb_attest_snp_certs snp_certs; /* SEV-SNP; vcek NULL: verification unavailable */
    uint8_t *snp_root;             /* the trusted ARK (SIMULATED); NULL: built-in */
    size_t snp_root_len;
    int attest_reported;

    /* notary (wl_notary.c) */
    char notary_tee[8]; /* "sim", "sim-snp", "tdx" or "snp" */
} suite_ctx;

/* Appends one sample to the metric called name (created from its spec on first
   use, with note when given); simulated marks the metric and the record.
   0, or -1 with err (unknown name: a bug; OOM). */
int suite_sample(suite_ctx *c, const char *name, double value, int simulated, const char *note,
                 tb_err *err);
/* Records the command line argv (NULL-terminated) once, shell-quoted, with
   argv[0] shown as "teebench" when it is the suite's own binary. */
void suite_command(suite_ctx *c, char *const *argv);
/* Records a problem in an extra array: {"workload", "target", "round"?, "reason"}. */
void suite_problem(json_t *arr, const char *workload, const char *target, int round,
                   const char *reason);
/* 1 when the run was asked to stop. */
int suite_stopped(const suite_ctx *c);
/* "<work>/<rel>" into out; -1 with err when too long. */
int suite_path(const suite_ctx *c, const char *rel, char *out, size_t n, tb_err *err);
/* A new file name in the work directory (an old one removed first, never opened
   through a symlink), open for writing: the fd (caller closes), or -1 with err. */
int suite_create(const suite_ctx *c, const char *name, tb_err *err);
/* Reads the file name of the work directory (not through a symlink) into out. */
int suite_read(const suite_ctx *c, const char *name, size_t max, tb_buf *out, tb_err *err);
/* A duration as teebench's flags take it: "10s", "250ms". */
void suite_fmt_duration(double s, char *out, size_t n);

/* Steps: ST_* codes; err says why for ST_FAILED / ST_SKIPPED. */
int suite_syscall_step(suite_ctx *c, const char *target, int round, tb_err *err);
int suite_probe_step(suite_ctx *c, int round, tb_err *err);
int suite_http_step(suite_ctx *c, const char *target, int round, tb_err *err);
void suite_http_cleanup(suite_ctx *c);
int suite_attest_step(suite_ctx *c, int round, tb_err *err);
void suite_attest_cleanup(suite_ctx *c);
int suite_notary_step(suite_ctx *c, int round, tb_err *err);

#endif
