/* fleet: the environments of one `teebench suite run` and the order they run in --
 * this machine, VMs started here (--vm-kinds), and the other environments of
 * --target (NAME=local, NAME=ssh://[user@]host[:port], NAME=vm:VM) -- each measured by
 * the same plan, each giving one record, then compared (the first is the baseline).
 *
 * Files:
 * - fleet.c   the environment list (tb_fleet_add_target, tb_fleet_plan: with VMs this
 *             machine first, then each VM, then the targets; every name once) and
 *             the sequence (tb_fleet_run): one environment after the other -- here
 *             through suite/run, elsewhere through suite/remote with the plan's flags;
 * - vm.c      the VMs of --vm-kinds: described (tb_fleet_set_vm_kinds), planned on
 *             this host (a refusal kept, said at preflight), preflighted, the default
 *             image built, each started at its turn and stopped after it; a vm:VM
 *             target read from that VM's state;
 * - vmenv.c   their pure parts (fleet/vmenv.h): kind lists, labels, what a record
 *             measured in a VM carries;
 * - split.c   --http-client local: nginx there, the load generator here, the
 *             http.nginx.* metrics merged into that environment's record;
 *             --net-client local: the network workload's servers there (`teebench
 *             network serve --daemon`), its clients here, the network.* metrics
 *             merged the same way;
 * - access.c  a target made ready before its suite: --ssh-copy-id on the terminal,
 *             --guest-setup (suite/guest), the note on a user that is not root.
 *
 * Invariants:
 * - Environments run one at a time, in list order. One that fails (cannot be
 *   reached, a VM refused on this host or that does not boot, no result) is said
 *   through hooks->say and the others still run; tb_fleet_result holds the records of
 *   those that gave one, in order, for the comparison.
 * - A VM started here runs only during its own environment: it is stopped before the
 *   next one begins, on every path -- a result, an error, an interrupt (then with a
 *   shorter grace); one that cannot be stopped is said and fails the run.
 * - *hooks->suite.stop set (Ctrl-C): the environment running now ends, keeping what
 *   it finished, and no further one begins.
 * - Nothing here prints: progress goes to hooks->suite.progress as INFO events (the
 *   cli tags them with the environment's name), errors and notes to hooks->say,
 *   each record to hooks->done. No global state: everything is in the caller's
 *   tb_fleet. */
#ifndef TB_FLEET_FLEET_H
#define TB_FLEET_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fleet/vmenv.h"
#include "record/record.h"
#include "suite/remote.h"
#include "suite/suite.h"
#include "vm/vm.h"

#define TB_FLEET_MAX_TARGETS 16
#define TB_FLEET_MAX_ENVS (1 + TB_FLEET_VM_MAX + TB_FLEET_MAX_TARGETS)

/* tb_fleet_plan and tb_fleet_copy_ids: the environments as given cannot run (a
   usage error: exit 2), as opposed to -1, something failed here (exit 1). */
#define TB_FLEET_USAGE (-2)
#define TB_FLEET_BOOT_SIZES 4

/* One environment. */
typedef struct tb_fleet_env {
    tb_remote_target t; /* where: TB_TARGET_LOCAL is this machine; t.name is the label */
    char where[600];    /* "this machine", "a regular VM started here (vm:NAME)", or a
                           target as given after its NAME= */
    int vm;             /* the VM started here for it (index into tb_fleet.vms), -1: none */
} tb_fleet_env;

/* One VM of --vm-kinds. */
typedef struct tb_fleet_vm {
    tb_fleet_vm_env env;            /* kind and label as given */
    char label[TB_VM_NAME_MAX + 1]; /* after tb_fleet_plan: the final label (-tcg) */
    tb_vm_plan plan;
    int refused; /* 1: this host cannot run it (why says so) */
    char why[TB_ERR_MAX];
} tb_fleet_vm;

typedef struct tb_fleet_opts {
    const char *host_label;    /* with VMs: this machine's label (--label); NULL: "host" */
    const char *ssh_config;    /* ssh -F FILE; NULL: the user's */
    const char *remote_binary; /* run this there instead of copying this teebench */
    const char *vm_dir;        /* the VM run directory; NULL: vm/'s default */
    int http_client_local;     /* --http-client local (ssh targets) */
    int net_client_local;      /* --net-client local (ssh targets only: tb_fleet_check) */
    int guest_setup;           /* --guest-setup: nginx installed there first */
    /* the flags a remote `suite run` gets (the plan's choices, not how to run it): */
    const char *profile, *workloads, *repeat;
    const char *const *sets; /* --set KEY=VALUE, n_sets of them */
    int n_sets;
    const char *suite_doc; /* --suite FILE's text, sent along; NULL: none */
    /* --vm-boot-memory: after a VM's suite, the VM booted again at each size (boot
       only): vm.boot.mem.<N>mib.s in its record, with the suite's own boot's size */
    uint64_t boot_memory[TB_FLEET_BOOT_SIZES];
    int n_boot_memory;
    /* for tests and wrappers: */
    const char *ssh_program; /* argv[0] of the suite's ssh calls; NULL: "ssh" */
    int stop_grace_ms;       /* suite/remote's grace after an interrupt; 0: its default */
} tb_fleet_opts;

/* The environments (a plain value, large: allocate it). Strings are borrowed: the
   options' and the targets' must outlive the fleet. */
typedef struct tb_fleet {
    tb_fleet_opts o;
    const char *target_specs[TB_FLEET_MAX_TARGETS]; /* NAME=URL as given */
    tb_remote_target targets[TB_FLEET_MAX_TARGETS];
    int n_targets;
    /* --vm-kinds: */
    tb_vm_spec vm_spec; /* --image, --vm-cpus ...: the same for every kind; tb_fleet_init
                           sets vm/'s defaults and a snapshot overlay (every kind boots
                           the same disk); the caller's VM flags fill it */
    tb_fleet_vm vms[TB_FLEET_VM_MAX];
    int n_vms;
    char vm_base[1024];       /* after tb_fleet_plan: the VM run directory, absolute */
    char qemu_version[32];    /* "7.2.22", "" when unknown */
    char default_image[1024]; /* no --image or --kernel: `vm image`'s default image */
    int build_image;          /* 1: it is not there yet (tb_fleet_preflight builds it) */
    tb_vm_state st;           /* the VM running now */
    int running;              /* its index in vms, -1: none */
    /* after tb_fleet_plan: */
    tb_fleet_env envs[TB_FLEET_MAX_ENVS];
    int n_envs;
} tb_fleet;

typedef enum {
    TB_FLEET_NOTE, /* something to know ("NAME: NOTE: ...", a line before a long step) */
    TB_FLEET_ERROR /* what failed: the environment named in it (or a step around it) */
} tb_fleet_say_kind;

typedef struct tb_fleet_hooks {
    /* every environment's progress (the suite's events, a remote's, and the fleet's
       own INFO events) and the stop flag: handed to each suite */
    tb_suite_hooks suite;
    /* one line for the user, text without a prefix (the cli's "teebench: suite: "); may
       be NULL */
    void (*say)(tb_fleet_say_kind kind, const char *text, void *ctx);
    /* environment e begins (nothing is done for it yet); may be NULL */
    void (*begin)(const tb_fleet_env *e, void *ctx);
    /* e's record, once measured: the fleet keeps it (tb_fleet_result); may be NULL */
    void (*done)(const tb_fleet_env *e, const tb_record *r, void *ctx);
    void *ctx;
} tb_fleet_hooks;

typedef struct tb_fleet_result {
    tb_record *recs[TB_FLEET_MAX_ENVS]; /* the records measured, in order (owned:
                                           tb_fleet_result_clear frees them) */
    int env[TB_FLEET_MAX_ENVS];         /* each one's index in tb_fleet.envs */
    size_t n;
    int failed; /* an environment gave no record, or a step around one failed
                   (--guest-setup, a VM's stop) */
} tb_fleet_result;

/* A new fleet with the options o (copied; its strings borrowed), or NULL when out of
   memory. tb_fleet_free frees it (it stops nothing: tb_fleet_run does). */
tb_fleet *tb_fleet_new(const tb_fleet_opts *o);
void tb_fleet_free(tb_fleet *f);

/* Adds --target spec (NAME=URL, parsed by suite/remote; borrowed). -1 with err
   ("SPEC: why", from the parser or "SPEC: the name NAME is used twice"; "at most 16"). */
int tb_fleet_add_target(tb_fleet *f, const char *spec, tb_err *err);

/* After the VM flags filled f->vm_spec: the VMs of kinds ("regular,tdx", "td=tdx,
   vm=regular"); without --image or --kernel, the default image; each kind's
   description checked (no host access). -1 with one line in err (a usage error). */
int tb_fleet_set_vm_kinds(tb_fleet *f, const char *kinds, tb_err *err);

/* Before anything runs: with VMs the run directory, this host's capabilities and
   each kind's plan (a refusal is kept in vms[i].why, said by tb_fleet_preflight), so
   every label is final; then the environment list (f->envs) with every name once.
   0; -1 with err (the host could not be probed); TB_FLEET_USAGE with err (a bad
   --vm-dir, a name twice). */
int tb_fleet_plan(tb_fleet *f, tb_err *err);

/* Then, before the first environment runs: the default image built when a VM needs
   it (minutes: said first through h->say), each planned VM's preflight (boot files
   readable, the name not running), then one line per refusal and the plans' notes
   through h->say. 0, or -1 with err (nothing ran). */
int tb_fleet_preflight(tb_fleet *f, const tb_fleet_hooks *h, tb_err *err);

/* After tb_fleet_plan, before anything runs: whether the options can be done in f's
   environments with plan p. --net-client local with the network workload in p needs
   ssh:// targets only: none (no --target), this machine (NAME=local, the host of
   --vm-kinds: clients and servers would both be here) or a VM (vm:VM, --vm-kinds: only
   SSH is forwarded into it) is refused. 0, or TB_FLEET_USAGE with err. Pure. */
int tb_fleet_check(const tb_fleet *f, const tb_suite_plan *p, tb_err *err);

/* --ssh-copy-id: ssh-copy-id for each ssh:// target, run on this terminal (it asks for
   the password); each said through h->say first. 0; -1 with err (it failed);
   TB_FLEET_USAGE with err (no terminal on stdin, no ssh:// target). */
int tb_fleet_copy_ids(const tb_fleet *f, const tb_fleet_hooks *h, tb_err *err);

/* Runs the plan p in every environment of f, one after the other (see above); p's
   label is each environment's name. 0 with *res (every environment's outcome is in
   it and was said), or -1 with err when none could run (no directory for ssh's
   control sockets). */
int tb_fleet_run(tb_fleet *f, const tb_suite_plan *p, const tb_fleet_hooks *h, tb_fleet_result *res,
                 tb_err *err);
void tb_fleet_result_clear(tb_fleet_result *res);

/* ---- pure parts, for the tests ---- */

/* The arguments after `suite run` of a remote run (out: cap entries, NULL-terminated;
   entries point into o or are static strings): o's --profile, --workloads (workloads
   instead when not NULL), --repeat and each --set, then --set extra_set when not NULL.
   The count, or -1 when cap is too small. */
int tb_fleet_remote_args(const tb_fleet_opts *o, const char *workloads, const char *extra_set,
                         const char **out, int cap);

/* --http-client local, --net-client local: the port nginx (the network servers: the
   echo server, iperf3 on the ports after it) is started on there, attempt 0, 1, 2 (a port
   there cannot be asked of this kernel; nginx start and network serve say when one is
   taken): 20000..59999 from seed (the clock, this process) and the attempt. */
int tb_fleet_split_port(unsigned long seed, int attempt);
/* The workloads the remote suite runs when part of the plan is measured from here: the
   plan's but http when its nginx target is (http_here; kept when its serve-tls target
   stays there) and network when its clients are (network_here); env at least. */
void tb_fleet_split_workloads(const tb_suite_plan *p, int http_here, int network_here, char *out,
                              size_t n);
/* Puts the metrics of http (measured from here) that the http workload's table names for
   target nginx (http.nginx.rps, .latency.*, ...; any other name is left out) into r, the
   environment's record: their samples and notes, http's commands, extra.http_client {mode "local",
   client: client_host, env: http's env facts}, and http's profile (the two together
   ran the profile's suite). 0, or -1 with err. */
int tb_fleet_merge_http(tb_record *r, const tb_record *http, const char *client_host, tb_err *err);
/* The same for net (measured from here with --net-client local): the metrics the network
   workload's table names (network.tcp.*, .udp.*, .rtt.*), net's commands,
   extra.network_client {mode "local", client: client_host, env: net's env facts}, net's
   profile. 0, or -1 with err. */
int tb_fleet_merge_network(tb_record *r, const tb_record *net, const char *client_host,
                           tb_err *err);

#endif
