/* cli/suite: `teebench suite run|plan` -- every workload in this environment,
 * one result (suite/suite.h runs it), or in several environments -- --target,
 * --vm-kinds -- one result each, then compared (fleet/fleet.h runs them). This file
 * parses flags, prints progress, the summaries and the comparison, writes the
 * results and chooses the exit code.
 *
 * Progress goes to stderr: on a terminal one live line (step, round, elapsed,
 * ETA; redrawn on each event and once a second by a ticker thread that sleeps
 * otherwise -- at most 4 draws a second), plain lines otherwise, or one JSON
 * object per event (--progress=jsonl, for a remote caller). A remote target's
 * events and lines are its text: printed with control characters escaped
 * (base/text), as every line here is. The summary table goes to stdout, or to stderr when the
 * result JSON goes to stdout (-o -). SIGINT/SIGTERM set the stop flag (cli/stop's), which
 * the suite reads: the run ends "interrupted" and the command exits 130. */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/fdlimit.h"
#include "base/file.h"
#include "base/text.h"
#include "cli/flags.h"
#include "cli/vm_flags.h"
#include "cli/stop.h"
#include "compare/compare.h"
#include "fleet/fleet.h"
#include "record/record.h"
#include "store/store.h"
#include "suite/suite.h"
#include "workloads/http.h"
#include "workloads/network.h"

#define CMD "suite"

enum { PROG_AUTO, PROG_TTY, PROG_PLAIN, PROG_JSONL, PROG_NONE };

typedef struct suite_args {
    const char *suite_file, *output, *work_dir, *db;
    int no_store;
    /* the other environments (fleet/): --target goes into it as it is parsed */
    tb_fleet *fleet;
    /* the fleet's options as the flags give them (fleet->o once parsed, which the run
       adds to): --profile, --workloads, --repeat, --set, --label (host_label),
       --ssh-config, --remote-binary, --vm-dir, --http-client, --net-client,
       --guest-setup, --vm-boot-memory */
    tb_fleet_opts fo;
    const char *vm_kinds;    /* --vm-kinds LIST */
    tb_vm_spec vm;           /* the VM flags' description (fleet->vm_spec once parsed) */
    const cli_flag *vm_flag; /* the first VM flag given, NULL: none */
    int boot_memory;         /* --vm-boot-memory given */
    int ssh_copy_id;         /* --ssh-copy-id: ssh-copy-id to each ssh target first */
    const char *sets[64];
    int n_sets;
    int progress;
    int json; /* plan --json */
} suite_args;

static void print_profiles(FILE *f)
{
    static const char *const names[] = {"quick", "standard", "seed"};
    static const char *const what[] = {
        "for tests and smoke runs",
        "the default",
        ("the source documents' parameters: wrk -t4 -c100 -d30s, UnixBench's 10 passes of 10 s, "
         "25 notarizations x 3 modes"),
    };
    fprintf(f, "profiles (planned time of the whole suite):\n");
    for (int i = 0; i < 3; i++) {
        tb_suite_plan p;
        tb_err e;
        if (tb_suite_plan_init(&p, names[i], &e) < 0)
            continue;
        double s = tb_suite_plan_estimate(&p);
        char mins[32] = "";
        if (s >= 90)
            snprintf(mins, sizeof mins, " (%.1f min)", s / 60);
        fprintf(f, "  %-9s ~%3.0f s%s, %d round%s: %s\n", names[i], ceil(s), mins, p.repeat,
                p.repeat == 1 ? "" : "s", what[i]);
    }
}

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench suite run [options]     run every workload here, store one result\n"
            "       teebench suite plan [options] [--json]   what run would do, and how long\n\n"
            "Workloads: env (always), syscall (UnixBench System Call Overhead, 1 copy and one per\n"
            "CPU), probe (TEE-sensitive microbenchmarks), http (load on nginx and on teebench\n"
            "serve --tls), attest (quotes and their verification; SIMULATED outside a TD),\n"
            "notary (bench notary: no_tee, tee_no_verify, tee_verify), storage (fio, CVM_eval's\n"
            "jobs), kv (redis GET/SET, plain and TLS), memory (STREAM's kernels per thread count,\n"
            "a pointer chase 4 KiB..1 GiB, first touch), network (iperf3 TCP and UDP, round\n"
            "trips); storage, kv, memory and network not in quick unless named.\n"
            "With --repeat N the suite runs N rounds, each running every workload once, so\n"
            "each metric gets N samples (or more) measured interleaved with the others.\n\n");
    cli_flags_help(f, c);
    fputc('\n', f);
    print_profiles(f);
    fprintf(f,
            "\nkeys for --set and suite files (suite files nest them: workloads.http.duration):\n");
    char key[64];
    const char *help;
    for (size_t i = 0; tb_suite_plan_key(i, key, sizeof key, &help); i++)
        fprintf(f, "  %-20s %s\n", key, help);
    fprintf(f,
            "\nA workload whose package is missing (nginx) is skipped with the reason; one that\n"
            "fails is listed and the result's status is \"failed\" (exit 1); Ctrl-C stops the\n"
            "current workload, keeps every finished sample, writes the result with status\n"
            "\"interrupted\" and exits 130.\n");
}

/* --vm-boot-memory 512M,8G: the extra boots' sizes (distinct, at least 64 MiB), in
   order, into a's fleet options. 0, or -1 with err. */
static int take_boot_memory(void *args, const char *flag, const char *list, tb_err *err)
{
    suite_args *a = args;
    tb_fleet_opts *o = &a->fo;
    o->n_boot_memory = 0;
    a->boot_memory = 1;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        char one[32];
        uint64_t v;
        tb_err e;
        if (!len || len >= sizeof one)
            return tb_errf(err, "%s %s: want SIZE[,SIZE...], e.g. 1G,8G", flag, list);
        memcpy(one, p, len);
        one[len] = 0;
        if (tb_vm_parse_size(one, &v, &e) < 0)
            return tb_errf(err, "%s %s: %s", flag, one, e.msg);
        if (v < (64ull << 20))
            return tb_errf(err, "%s %s: at least 64M", flag, one);
        for (int i = 0; i < o->n_boot_memory; i++)
            if (o->boot_memory[i] == v)
                return tb_errf(err, "%s: %s twice", flag, one);
        if (o->n_boot_memory == TB_FLEET_BOOT_SIZES)
            return tb_errf(err, "%s: at most %d sizes", flag, TB_FLEET_BOOT_SIZES);
        o->boot_memory[o->n_boot_memory++] = v;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

static int take_set(void *args, const char *flag, const char *v, tb_err *err)
{
    suite_args *a = args;
    if (a->n_sets == (int)(sizeof a->sets / sizeof a->sets[0]))
        return tb_errf(err, "%s: at most 64", flag);
    a->sets[a->n_sets++] = v;
    return 0;
}

static int take_label(void *args, const char *flag, const char *v, tb_err *err)
{
    if (!tb_record_label_valid(v))
        return tb_errf(err, "%s %s: want " TB_RECORD_LABEL_RULE, flag, v);
    ((suite_args *)args)->fo.host_label = v;
    return 0;
}

/* --progress's modes, in PROG_* order. */
static const char *const progress_modes[] = {"auto", "tty", "plain", "jsonl", "none", NULL};

static int take_target(void *args, const char *flag, const char *v, tb_err *err)
{
    tb_fleet *fl = ((suite_args *)args)->fleet;
    tb_err e;
    if (fl->n_targets == TB_FLEET_MAX_TARGETS)
        return tb_errf(err, "%s: at most %d", flag, TB_FLEET_MAX_TARGETS);
    if (tb_fleet_add_target(fl, v, &e) < 0)
        return tb_errf(err, "%s %s", flag, e.msg);
    return 0;
}

/* --http-client, --net-client: remote 0, local 1. */
static const char *const remote_local[] = {"remote", "local", NULL};

/* cli/flags' seen(): notes the first VM flag (check_vms refuses it without --vm-kinds). */
static void seen(void *args, const cli_flag *f)
{
    suite_args *a = args;
    if (f->group == CLI_VM_GROUP && !a->vm_flag)
        a->vm_flag = f;
}

/* suite run|plan's flags, in the order --help lists them: the suite's own, the other
   environments', the VMs' (through cli/vm_flags). A label ending in a space: three
   before the help. */
static const cli_flag suite_flags[] = {
    CLI_STR("profile", 0, suite_args, fo.profile, "P", "quick, standard (default) or seed"),
    CLI_STR("workloads", 0, suite_args, fo.workloads, "LIST",
            "comma-separated workloads (default: all)"),
    CLI_STR("repeat", 0, suite_args, fo.repeat, "N", "rounds"),
    CLI_STR("suite", 0, suite_args, suite_file, "FILE",
            "suite file: {\"profile\": P, \"repeat\": N, \"workloads\":\n"
            "{\"http\": {\"duration\": \"5s\", ...}, ...}} (only the workloads\n"
            "listed run)"),
    CLI_CALL("set", 0, take_set, "KEY=VALUE", "one parameter (repeatable; keys below)"),
    CLI_CALL("label", 0, take_label, "NAME",
             "environment label (default from teebench env: tdx-guest,\n"
             "vm-kvm, bare-metal ...): 1..63 of A-Z a-z 0-9 _ . - and\n"
             "space, starting with a letter or digit (\"TDX VM\")"),
    CLI_STR("output", 'o', suite_args, output, "FILE",
            "write the result (JSON) to FILE; - writes it to stdout and\n"
            "the summary to stderr"),
    CLI_INDEX("progress", 0, suite_args, progress, progress_modes, "MODE",
              "auto (a live line on a terminal, else plain lines), tty,\n"
              "plain, jsonl (one JSON object per event) or none; on stderr"),
    CLI_STR("work-dir", 0, suite_args, work_dir, "DIR",
            "servers' files and logs in DIR, kept (default: a temporary\n"
            "directory, removed unless a workload failed)"),
    CLI_BOOL("json", 0, suite_args, json, "(plan) print the plan as JSON"),
    CLI_STR("db", 0, suite_args, db, "FILE",
            "the results store (default: $TEEBENCH_DB, else\n"
            "$XDG_DATA_HOME/teebench/results.db); --no-store: none"),
    {.name = "no-store",
     .type = CLI_F_BOOL,
     .off = CLI_OFF(suite_args, no_store, int),
     .hidden = 1}, /* in --db's help */
    {.name = "target",
     .type = CLI_F_CALL,
     .arg = "NAME=URL",
     .call = take_target,
     .before = "\nOther environments (each stored, then compared; the first is the baseline):\n",
     .label = "--target NAME=ssh://[user@]host[:port] ",
     .help = "run there through OpenSSH (repeatable;\n"
             "NAME is a label, as --label; its result is stored under it):\n"
             "BatchMode, a control master per target, your ssh config and\n"
             "keys; this teebench is copied to ~/.cache/teebench there when\n"
             "that host has none of this build; where it cannot run there\n"
             "(a missing library, an older glibc) the self-contained\n"
             "teebench-static beside it (make static) is copied instead"},
    CLI_NOTE("--target NAME=vm:VM", "a VM started by `teebench vm start VM`"),
    CLI_NOTE("--target NAME=local", "this machine"),
    CLI_STR("ssh-config", 0, suite_args, fo.ssh_config, "FILE", "ssh -F FILE"),
    CLI_BOOL("ssh-copy-id", 0, suite_args, ssh_copy_id,
             "first run ssh-copy-id for each ssh:// target on this terminal\n"
             "(a host that takes only a password, such as a TD started by\n"
             "hand: Canonical's image logs in tdx/123456); a target user that\n"
             "is not root runs every workload but those needing root there\n"
             "(attest and notary's TEE modes: configfs-tsm is root's)"),
    CLI_INDEX("http-client", 0, suite_args, fo.http_client_local, remote_local, "local|remote",
              "where the load generator of http's nginx target\n"
              "runs for ssh targets: remote (default: the whole suite there)\n"
              "or local (this machine loads nginx there over the network, as\n"
              "the source document measured a TD: its I/O path is part of\n"
              "the cost)"),
    CLI_INDEX("net-client", 0, suite_args, fo.net_client_local, remote_local, "local|remote",
              "where the network workload's clients (iperf3, the\n"
              "round trips) run for ssh targets: remote (default: clients\n"
              "and servers there, over its loopback) or local (the servers\n"
              "there, `teebench network serve`, the clients here: its\n"
              "network path, virtio and a TD's bounce buffers, in the\n"
              "figures); only with ssh:// targets"),
    CLI_STR("remote-binary", 0, suite_args, fo.remote_binary, "P",
            "run P there instead of copying this teebench"),
    CLI_BOOL("guest-setup", 0, suite_args, fo.guest_setup,
             "before the suite, install nginx there if it is missing, with\n"
             "apt-get or dnf, as root or through sudo -n (its system-wide\n"
             "service is stopped again: the suite starts its own)"),
    CLI_STR("vm-dir", 0, suite_args, fo.vm_dir, "DIR",
            "where `teebench vm` keeps its VMs (vm:VM targets, --vm-kinds)"),
    CLI_NOTE("with targets, -o DIR writes one result per target: DIR/NAME.json", NULL),
    {.name = "vm-kinds",
     .type = CLI_F_STR,
     .arg = "LIST",
     .off = CLI_OFF(suite_args, vm_kinds, const char *),
     .before = "\nThis machine and VMs it starts, in one command (host, then each kind):\n",
     .help = "e.g. regular,tdx (labels vm-regular, vm-tdx) or td=tdx,vm=regular:\n"
             "each VM is started from the same description, the suite runs\n"
             "inside over SSH, the boot time (vm start to the first SSH login)\n"
             "is the metric vm.boot.s, and the VM is stopped; a kind this host\n"
             "cannot run is refused with one line and the others still run.\n"
             "Under TCG emulation a label gets -tcg (no figure from it means\n"
             "anything). --label names this machine (default host).\n"
             "regular-swiotlb[:POOL]: the regular VM with forced bounce\n"
             "buffers (label vm-regular-swiotlb), for the report's split of\n"
             "a TD's I/O cost (see teebench vm start --help)"},
    {CLI_VM_IMAGE(suite_args, vm),
     .label = "--image DISK | --kernel K [--initrd I] [--append ARGS] ",
     .help = "what the VMs boot;\n"
             "neither: the image `teebench vm image` builds (built first when\n"
             "it is not there yet: root, mmdebstrap and the archive needed)"},
    {CLI_VM_KERNEL(suite_args, vm), .hidden = 1},
    {CLI_VM_INITRD(suite_args, vm), .hidden = 1},
    {CLI_VM_APPEND(suite_args, vm), .hidden = 1},
    {CLI_VM_NO_SNAPSHOT(suite_args, vm),
     .help = "the VMs write to the image (default: each VM writes to a\n"
             "temporary overlay, so every kind boots the same disk)"},
    {CLI_VM_SEED("vm-seed", suite_args, vm),
     .help = "the cloud-init seed with the VM's key (default on)"},
    {.name = "vm-boot-memory",
     .type = CLI_F_CALL,
     .arg = "SIZE[,SIZE]",
     .call = take_boot_memory,
     .label = "--vm-boot-memory SIZE[,SIZE] ",
     .help = "after each VM's suite, boot it again at each size\n"
             "(boot only, then stopped): vm.boot.mem.<N>mib.s, with its own\n"
             "size's boot, is boot time by guest memory (a TD accepts its\n"
             "pages as it starts: its boot grows with memory)"},
    /* one entry of --help for the flags vm start tells of */
    {CLI_VM_CPUS("vm-cpus", suite_args, vm),
     .label = "--vm-cpus N, --vm-memory SIZE, --vm-pin CPULIST, --prealloc,\n"
              "  --accel auto|kvm|tcg, --firmware F, --vsock auto|on|off, --boot-timeout S,\n"
              "  --vm-ssh-key K, --vm-ssh-user U, --qemu BIN, --cbitpos N, --reduced-phys-bits "
              "N,\n"
              "  --vm-snp-policy P",
     .help = "as for teebench vm start (--cpus, --memory, ... there)"},
    {CLI_VM_MEMORY("vm-memory", suite_args, vm), .hidden = 1},
    {CLI_VM_PIN("vm-pin", suite_args, vm), .hidden = 1},
    {CLI_VM_PREALLOC(suite_args, vm), .hidden = 1},
    {CLI_VM_ACCEL(suite_args, vm), .hidden = 1},
    {CLI_VM_FIRMWARE(suite_args, vm), .hidden = 1},
    {CLI_VM_VSOCK(suite_args, vm), .hidden = 1},
    {CLI_VM_BOOT_TIMEOUT(suite_args, vm), .hidden = 1},
    {CLI_VM_SSH_KEY("vm-ssh-key", suite_args, vm), .hidden = 1},
    {CLI_VM_SSH_USER("vm-ssh-user", suite_args, vm), .hidden = 1},
    {CLI_VM_QEMU(suite_args, vm), .hidden = 1},
    {CLI_VM_CBITPOS(suite_args, vm), .hidden = 1},
    {CLI_VM_REDUCED_PHYS_BITS(suite_args, vm), .hidden = 1},
    {CLI_VM_POLICY("vm-snp-policy", suite_args, vm), .hidden = 1},
    /* not in --help */
    {CLI_VM_SNAPSHOT(suite_args, vm), .hidden = 1},
    {CLI_VM_CPU("vm-cpu", suite_args, vm), .hidden = 1},
    CLI_HELP(),
    {0}};

const cli_cmd cli_suite_cmd = {
    .name = CMD, .flags = suite_flags, .usage = usage, .max_operands = 0, .seen = seen, .col = 21};

/* Parses argv (argv[0] = run or plan) into a and a's fleet. Returns CLI_FLAGS_GO, or
   the exit code. */
static int parse_args(int argc, char **argv, suite_args *a)
{
    int first;
    a->fo = a->fleet->o;
    a->vm = a->fleet->vm_spec;
    int rc = cli_flags_parse(&cli_suite_cmd, argc, argv, a, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    /* what a remote suite run gets, and this machine's name among VMs */
    a->fo.sets = a->sets;
    a->fo.n_sets = a->n_sets;
    a->fleet->o = a->fo;
    a->fleet->vm_spec = a->vm;
    return CLI_FLAGS_GO;
}

/* After the flags: the VMs of --vm-kinds (fleet/); VM flags without it refused. 0, or
   exit code 2. */
static int check_vms(suite_args *a)
{
    if (!a->vm_kinds && a->boot_memory)
        return cli_fail_code(2, CMD, "--vm-boot-memory: boots the VMs of --vm-kinds (none given)");
    if (!a->vm_kinds) {
        if (!a->vm_flag)
            return 0;
        return cli_fail_code(2, CMD, "--%s: describes the VMs of --vm-kinds (none given)",
                             a->vm_flag->name);
    }
    tb_err e;
    if (tb_fleet_set_vm_kinds(a->fleet, a->vm_kinds, &e) < 0)
        return cli_fail_code(2, CMD, "%s", e.msg);
    return 0;
}

/* profile -> suite file -> --set -> --repeat -> --workloads; exit code 2 on bad input. */
static int build_plan(const suite_args *a, tb_suite_plan *p)
{
    tb_err err;
    json_t *doc = NULL;
    char file_profile[32] = "";
    if (a->suite_file &&
        tb_suite_plan_load_file(a->suite_file, &doc, file_profile, sizeof file_profile, &err) < 0)
        return cli_fail_code(2, CMD, "--suite %s", err.msg);
    const char *profile = a->fo.profile     ? a->fo.profile
                          : file_profile[0] ? file_profile
                                            : "standard";
    if (tb_suite_plan_init(p, profile, &err) < 0) {
        json_decref(doc);
        return cli_fail_code(2, CMD, "%s%s", a->fo.profile ? "--profile: " : "--suite: ", err.msg);
    }
    int rc = doc ? tb_suite_plan_apply_json(p, doc, &err) : 0;
    json_decref(doc);
    if (rc < 0)
        return cli_fail_code(2, CMD, "--suite %s: %s", a->suite_file, err.msg);
    for (int i = 0; i < a->n_sets; i++) {
        char key[128];
        const char *eq = strchr(a->sets[i], '=');
        if (!eq || eq == a->sets[i] || (size_t)(eq - a->sets[i]) >= sizeof key)
            return cli_fail_code(2, CMD, "--set %s: want KEY=VALUE", a->sets[i]);
        snprintf(key, sizeof key, "%.*s", (int)(eq - a->sets[i]), a->sets[i]);
        if (tb_suite_plan_set(p, key, eq + 1, &err) < 0)
            return cli_fail_code(2, CMD, "--set: %s", err.msg);
    }
    if (a->fo.repeat && tb_suite_plan_set(p, "repeat", a->fo.repeat, &err) < 0)
        return cli_fail_code(2, CMD, "--repeat: %s", err.msg);
    if (a->fo.workloads && tb_suite_plan_select(p, a->fo.workloads, &err) < 0)
        return cli_fail_code(2, CMD, "--workloads: %s", err.msg);
    if (a->fo.host_label)
        snprintf(p->label, sizeof p->label, "%s", a->fo.host_label);
    if (a->work_dir &&
        snprintf(p->work_dir, sizeof p->work_dir, "%s", a->work_dir) >= (int)sizeof p->work_dir)
        return cli_fail_code(2, CMD, "--work-dir: path too long");
    return 0;
}

static int cmd_plan(const suite_args *a, const tb_suite_plan *p)
{
    tb_err err;
    if (a->json) {
        json_t *j = tb_suite_plan_json(p);
        tb_suite_metric_spec *ms = NULL;
        size_t n = 0;
        if (!j || tb_suite_plan_metrics(p, &ms, &n, &err) < 0) {
            json_decref(j);
            return cli_fail(CMD, "plan: out of memory");
        }
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(
                arr, json_pack("{s:s, s:s, s:s, s:s, s:b}", "name", ms[i].name, "unit", ms[i].unit,
                               "better", ms[i].better == TB_BETTER_HIGHER ? "higher" : "lower",
                               "workload", ms[i].workload->name, "tee", ms[i].tee));
        free(ms);
        json_object_set_new(j, "metrics", arr);
        char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
        if (!s)
            return cli_fail(CMD, "plan: out of memory");
        puts(s);
        free(s);
        return 0;
    }
    tb_buf b = {0};
    if (tb_suite_plan_describe(p, &b, &err) < 0) {
        tb_buf_clear(&b);
        return cli_fail(CMD, "plan: %s", err.msg);
    }
    fwrite(b.p, 1, b.len, stdout);
    tb_buf_clear(&b);
    return 0;
}

/* ---- progress ---- */

typedef struct printer {
    int mode;
    char tag[80]; /* "suite", or "suite[NAME]" while a target runs */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int quit;
    int live;       /* a live line is on the terminal */
    char what[160]; /* the live line's step description */
    double el, eta; /* at the last event */
    uint64_t at;    /* tb_mono_ns() of the last event */
    uint64_t drawn; /* when the live line was last drawn */
} printer;

static void fmt_clock(double s, char *out, size_t n)
{
    if (s < 0) {
        snprintf(out, n, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
}

/* Draws the live line (mutex held). */
static void draw(printer *pr, int force)
{
    uint64_t now = tb_mono_ns();
    if (!pr->live || (!force && now - pr->drawn < 250000000ull))
        return;
    double since = (double)(now - pr->at) / 1e9;
    char el[32], eta[32];
    fmt_clock(pr->el + since, el, sizeof el);
    fmt_clock(pr->eta < 0 ? -1 : (pr->eta > since ? pr->eta - since : 0), eta, sizeof eta);
    fprintf(stderr, "\r\033[K%s  elapsed %s  ETA %s", pr->what, el, eta);
    fflush(stderr);
    pr->drawn = now;
}

/* Prints a whole line above the live line (mutex held). */
static void line(printer *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(printer *pr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    /* the events' texts may come from a remote host: what a terminal would act on
       in them is shown escaped (base/text), never sent to it */
    tb_buf b = {0};
    if (pr->mode == PROG_TTY)
        fputs("\r\033[K", stderr);
    fputs(msg && tb_text_escape_str(&b, msg) == 0 && b.p ? (const char *)b.p : "", stderr);
    fputc('\n', stderr);
    free(msg);
    tb_buf_clear(&b);
    draw(pr, 1);
    fflush(stderr);
}

static void *ticker(void *arg)
{
    printer *pr = arg;
    pthread_mutex_lock(&pr->mu);
    while (!pr->quit) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&pr->cv, &pr->mu, &ts);
        if (!pr->quit)
            draw(pr, 0);
    }
    pthread_mutex_unlock(&pr->mu);
    return NULL;
}

static void on_event(const tb_suite_event *ev, void *ctx)
{
    printer *pr = ctx;
    if (pr->mode == PROG_NONE)
        return;
    if (pr->mode == PROG_JSONL) {
        json_t *j = tb_suite_event_to_json(ev);
        char *s =
            j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
        if (s) {
            fprintf(stderr, "%s\n", s);
            fflush(stderr);
        }
        free(s);
        json_decref(j);
        return;
    }
    pthread_mutex_lock(&pr->mu);
    pr->el = ev->elapsed_s;
    pr->eta = ev->eta_s;
    pr->at = tb_mono_ns();
    char el[32], eta[32], tgt[64];
    fmt_clock(ev->elapsed_s, el, sizeof el);
    fmt_clock(ev->eta_s, eta, sizeof eta);
    snprintf(tgt, sizeof tgt, "%s%s%s", ev->workload, ev->target[0] ? " " : "", ev->target);
    switch (ev->kind) {
    case TB_SUITE_EV_BEGIN:
        line(pr, "%s: profile %s, %d step%s in %d round%s, about %s", pr->tag, ev->text, ev->steps,
             ev->steps == 1 ? "" : "s", ev->rounds, ev->rounds == 1 ? "" : "s", eta);
        break;
    case TB_SUITE_EV_INFO:
        line(pr, "%s: %s", pr->tag, ev->text);
        break;
    case TB_SUITE_EV_STEP: {
        char raw[sizeof pr->what], esc[sizeof pr->what];
        if (snprintf(raw, sizeof raw, "%s [%d/%d] round %d/%d: %s", pr->tag, ev->step, ev->steps,
                     ev->round, ev->rounds, tgt) >= (int)sizeof raw)
            raw[sizeof raw - 1] = 0; /* a status line, cut to fit */
        snprintf(pr->what, sizeof pr->what, "%s", tb_text_safe(raw, esc, sizeof esc));
        if (pr->mode == PROG_TTY) {
            pr->live = 1;
            draw(pr, 1);
        }
        break;
    }
    case TB_SUITE_EV_STEP_DONE:
        if (pr->mode == PROG_PLAIN || strcmp(ev->status, "ok"))
            line(pr, "%s [%d/%d] round %d/%d: %s: %s in %.1f s%s%s (elapsed %s, ETA %s)", pr->tag,
                 ev->step, ev->steps, ev->round, ev->rounds, tgt, ev->status, ev->step_s,
                 ev->text[0] ? ": " : "", ev->text, el, eta);
        break;
    case TB_SUITE_EV_END:
        if (pr->mode == PROG_TTY && pr->live)
            fputs("\r\033[K", stderr);
        pr->live = 0;
        line(pr, "%s: %s after %s", pr->tag, ev->status, el);
        break;
    }
    pthread_mutex_unlock(&pr->mu);
}

/* Stores the run (whatever its status: finished samples of an interrupted run
   count). -1 after printing the error. */
static int store(const suite_args *a, const tb_record *r, int progress)
{
    char path[PATH_MAX];
    tb_store *st = NULL;
    tb_err err;
    int k = -1;
    if (tb_store_path(a->db, path, sizeof path, &err) == 0 && tb_store_open(path, &st, &err) == 0)
        k = tb_store_put(st, r, &err);
    tb_store_close(st);
    if (k < 0)
        return cli_fail(CMD, "storing the result: %s%s", err.msg,
                        a->output ? "" : " (the result is lost: use -o FILE)");
    if (progress != PROG_JSONL && progress != PROG_NONE)
        fprintf(stderr, "suite: stored as run %s in %s\n", r->id, path);
    return 0;
}

/* -o FILE must be writable before a run of minutes starts: its directory exists
   and may be written to. 0, or the exit code after the error line. */
static int check_output(const char *path)
{
    if (!path || !strcmp(path, "-"))
        return 0;
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return cli_fail_code(2, CMD, "-o %s: path too long", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (access(dir, W_OK) < 0)
        return cli_fail_code(2, CMD, "-o %s: cannot write into %s: %s", path, dir, strerror(errno));
    return 0;
}

/* The progress printer and the signal handlers around the runs. */
typedef struct session {
    printer pr;
    pthread_t tick;
    int ticking;
    struct sigaction old_int, old_term;
    tb_suite_hooks hooks;
} session;

static void session_begin(session *ss, int progress)
{
    memset(ss, 0, sizeof *ss);
    ss->pr.mode =
        progress == PROG_AUTO ? (isatty(STDERR_FILENO) ? PROG_TTY : PROG_PLAIN) : progress;
    snprintf(ss->pr.tag, sizeof ss->pr.tag, "suite");
    pthread_mutex_init(&ss->pr.mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ss->pr.cv, &ca);
    pthread_condattr_destroy(&ca);
    ss->ticking = ss->pr.mode == PROG_TTY && pthread_create(&ss->tick, NULL, ticker, &ss->pr) == 0;
    cli_stop_catch(&ss->old_int, &ss->old_term);
    ss->hooks = (tb_suite_hooks){.progress = on_event, .ctx = &ss->pr, .stop = cli_stop_flag()};
}

static void session_tag(session *ss, const char *name)
{
    pthread_mutex_lock(&ss->pr.mu);
    if (name)
        snprintf(ss->pr.tag, sizeof ss->pr.tag, "suite[%s]", name);
    else
        snprintf(ss->pr.tag, sizeof ss->pr.tag, "suite");
    pthread_mutex_unlock(&ss->pr.mu);
}

static void session_end(session *ss)
{
    cli_stop_restore(&ss->old_int, &ss->old_term);
    if (ss->ticking) {
        pthread_mutex_lock(&ss->pr.mu);
        ss->pr.quit = 1;
        pthread_cond_signal(&ss->pr.cv);
        pthread_mutex_unlock(&ss->pr.mu);
        pthread_join(ss->tick, NULL);
    }
    pthread_cond_destroy(&ss->pr.cv);
    pthread_mutex_destroy(&ss->pr.mu);
}

/* What happens to one environment's record: -o, the store, the summary. Returns
   the exit code of this environment (0, 1 failed, 130 interrupted). */
static int finish_record(const suite_args *a, const char *output, const tb_record *r, int mode,
                         const char *who)
{
    char pre[80] = "";
    if (who)
        snprintf(pre, sizeof pre, "%s: ", who);
    tb_err err;
    int code = 0;
    if (output && tb_record_write_file(r, output, &err) < 0)
        code = cli_fail(CMD, "-o %s: %s", output, err.msg);
    if (!a->no_store)
        code = store(a, r, mode) < 0 && code == 0 ? 1 : code;
    tb_buf sum = {0};
    FILE *sf = output && !strcmp(output, "-") ? stderr : stdout;
    if (tb_suite_summary(r, &sum, &err) == 0) {
        fputs(sf == stdout ? "" : "\n", sf);
        fwrite(sum.p, 1, sum.len, sf);
        fflush(sf);
    }
    tb_buf_clear(&sum);
    char swiotlb[600];
    if (tb_suite_swiotlb_full_grew(r, swiotlb, sizeof swiotlb))
        fprintf(stderr, "teebench: suite: %s\n", swiotlb);
    if (code == 0 && !strcmp(r->status, "interrupted"))
        code =
            cli_fail_code(130, CMD, "%sinterrupted: the %zu metrics measured so far are kept%s%s",
                          pre, r->n_metrics, output ? " in " : "",
                          output ? (strcmp(output, "-") ? output : "stdout") : "");
    else if (code == 0 && !strcmp(r->status, "failed"))
        code = cli_fail(CMD, "%s%zu workload run(s) failed (listed in the summary)", pre,
                        json_array_size(json_object_get(r->extra, "failures")));
    return code;
}

/* Reads the suite file for a remote run (its text goes along). */
static int load_suite_doc(const suite_args *a, tb_buf *doc)
{
    tb_err err;
    if (!a->suite_file)
        return 0;
    if (tb_file_read(a->suite_file, 1 << 20, doc, &err) < 0)
        return cli_fail_code(2, CMD, "--suite %s", err.msg);
    return 0;
}

/* The side-by-side table of the records measured now (first = baseline). */
static void print_comparison(tb_record **recs, size_t n)
{
    tb_compare c;
    tb_err err;
    if (n < 2)
        return;
    if (tb_compare_build((const tb_record *const *)recs, n, 0, TB_COMPARE_ALPHA, &c, &err) < 0) {
        cli_fail(CMD, "comparing: %s", err.msg);
        return;
    }
    tb_buf b = {0};
    if (tb_compare_format(&c, TB_COMPARE_TEXT, &b, &err) == 0) {
        printf("\n== comparison (baseline %s)\n", recs[0]->label);
        fwrite(b.p, 1, b.len, stdout);
        fflush(stdout);
    }
    tb_buf_clear(&b);
    tb_compare_clear(&c);
}

/* The cli's side of a fleet run: the session it prints through, and the exit code
   its records make. */
typedef struct fleet_ctx {
    const suite_args *a;
    session *ss;
    int code;   /* 130 (an interrupted record), 1 (-o DIR/NAME.json too long) or 0 */
    int failed; /* a record's -o, store or status failed */
} fleet_ctx;

/* The fleet's lines: "teebench: suite: TEXT" on stderr. */
static void on_say(tb_fleet_say_kind kind, const char *text, void *ctx)
{
    (void)kind;
    (void)ctx;
    cli_fail(CMD, "%s", text);
    fflush(stderr);
}

static void on_begin(const tb_fleet_env *e, void *ctx)
{
    fleet_ctx *c = ctx;
    session_tag(c->ss, e->t.name);
    if (c->ss->pr.mode != PROG_NONE && c->ss->pr.mode != PROG_JSONL)
        fprintf(stderr, "suite[%s]: %s\n", e->t.name, e->where);
}

/* An environment's record: -o DIR/NAME.json, the store, the summary. */
static void on_done(const tb_fleet_env *e, const tb_record *r, void *ctx)
{
    fleet_ctx *c = ctx;
    const char *out = c->a->output;
    char path[PATH_MAX];
    if (out && snprintf(path, sizeof path, "%s/%s.json", out, e->t.name) >= (int)sizeof path)
        c->code = cli_fail(CMD, "-o %s: path too long", out);
    int k = finish_record(c->a, out ? path : NULL, r, c->ss->pr.mode, e->t.name);
    if (k == 130)
        c->code = 130;
    else if (k)
        c->failed = 1;
}

/* --target / --vm-kinds: each environment in turn (fleet/), stored, then compared. */
static int run_targets(suite_args *a, tb_suite_plan *p, session *ss)
{
    tb_buf doc = {0};
    int code = load_suite_doc(a, &doc);
    if (code)
        return code;
    /* -o DIR: a private directory by base/file's rule (another user's or one others may
       write is refused: they could plant what the results are written over) */
    tb_err oe;
    int ofd = a->output ? tb_dir_open_private(a->output, 0700, &oe) : -1;
    if (a->output && ofd < 0) {
        tb_buf_clear(&doc);
        struct stat ost;
        if (stat(a->output, &ost) == 0 && !S_ISDIR(ost.st_mode))
            return cli_fail_code(2, CMD, "-o %s: with --target, -o names a directory", a->output);
        return cli_fail(CMD, "-o %s", oe.msg);
    }
    if (ofd >= 0)
        close(ofd);
    a->fleet->o.suite_doc = doc.len ? (const char *)doc.p : NULL;
    fleet_ctx fc = {.a = a, .ss = ss};
    tb_fleet_hooks h = {
        .suite = ss->hooks, .say = on_say, .begin = on_begin, .done = on_done, .ctx = &fc};
    tb_fleet_result res;
    tb_err err;
    int rc = tb_fleet_run(a->fleet, p, &h, &res, &err);
    a->fleet->o.suite_doc = NULL;
    tb_buf_clear(&doc);
    if (rc < 0)
        return cli_fail(CMD, "%s", err.msg);
    session_tag(ss, NULL);
    print_comparison(res.recs, res.n);
    int failed = fc.failed || res.failed;
    tb_fleet_result_clear(&res);
    code = fc.code;
    if (cli_stopped() && code != 130)
        code = cli_fail_code(130, CMD, "interrupted");
    return code ? code : failed;
}

/* Before anything runs: the environments planned (every name once) and checked for
   the options (--net-client local), the VMs preflighted, --ssh-copy-id. 0, or the exit
   code after the error line. */
static int prepare_envs(suite_args *a, const tb_suite_plan *p)
{
    tb_err e;
    tb_fleet_hooks h = {.say = on_say};
    if (a->fleet->o.net_client_local && !tb_suite_plan_enabled(p, &tb_wl_network))
        on_say(TB_FLEET_NOTE,
               "NOTE: --net-client local: the network workload is not in this run (quick "
               "leaves it out unless named: --workloads network)",
               NULL);
    int rc = tb_fleet_plan(a->fleet, &e);
    if (rc == 0)
        rc = tb_fleet_check(a->fleet, p, &e);
    if (rc == 0)
        rc = tb_fleet_preflight(a->fleet, &h, &e);
    if (rc == 0 && a->ssh_copy_id)
        rc = tb_fleet_copy_ids(a->fleet, &h, &e);
    if (rc == 0)
        return 0;
    return cli_fail_code(rc == TB_FLEET_USAGE ? 2 : 1, CMD, "%s", e.msg);
}

static int cmd_run(suite_args *a, tb_suite_plan *p, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", p->self_exe, sizeof p->self_exe - 1);
    if (n <= 0)
        return cli_fail(CMD, "cannot find the teebench binary (/proc/self/exe)");
    p->self_exe[n] = 0;
    tb_buf inv = {0};
    if (tb_buf_puts(&inv, "teebench ") < 0 || tb_suite_shell_join(argv, &inv) < 0) {
        tb_buf_clear(&inv);
        return cli_fail(CMD, "out of memory");
    }
    p->invocation = (const char *)inv.p;
    /* enough open files for the load generator's connections */
    tb_fd_limit_raise(
        (uint64_t)((const tb_wl_http_params *)tb_suite_plan_params(p, &tb_wl_http))->connections *
            2 +
        512);

    session ss;
    session_begin(&ss, a->progress);
    int code;
    if (a->fleet->n_envs) {
        code = run_targets(a, p, &ss);
        session_end(&ss);
    } else {
        tb_record *r = NULL;
        tb_err err;
        int rc = tb_suite_run(p, &ss.hooks, &r, &err);
        session_end(&ss);
        code = rc < 0 ? cli_fail(CMD, "%s", err.msg)
                      : finish_record(a, a->output, r, ss.pr.mode, NULL);
        tb_record_free(r);
    }
    tb_buf_clear(&inv);
    p->invocation = NULL;
    return code;
}

/* suite run|plan with a's fleet made. */
static int suite_main(suite_args *a, const char *sub, int argc, char **argv)
{
    int rc = parse_args(argc - 1, argv + 1, a);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if ((rc = check_vms(a)) != 0)
        return rc;
    int n_vms = a->fleet->n_vms, n_targets = a->fleet->n_targets;
    if (n_vms && !strcmp(sub, "plan"))
        return cli_fail_code(2, CMD, "--vm-kinds: only for suite run");
    if (!strcmp(sub, "run") && a->json)
        return cli_fail_code(2, CMD, "--json: only for suite plan (run writes JSON with -o)");
    tb_suite_plan p;
    if ((rc = build_plan(a, &p)) != 0)
        return rc;
    if (!strcmp(sub, "plan"))
        return cmd_plan(a, &p);
    if (!n_targets && !n_vms && (rc = check_output(a->output)) != 0)
        return rc;
    if (a->fleet->o.guest_setup && !n_targets && !n_vms)
        return cli_fail_code(2, CMD,
                             "--guest-setup: only with --target or --vm-kinds (it installs "
                             "nginx there; here, scripts/setup.sh does)");
    if (n_targets && a->fo.host_label && !n_vms)
        return cli_fail_code(2, CMD,
                             "--label: with --target each environment is named by its target");
    if (a->ssh_copy_id && !n_targets)
        return cli_fail_code(2, CMD, "--ssh-copy-id: needs a --target NAME=ssh://...");
    if ((rc = prepare_envs(a, &p)) != 0)
        return rc;
    return cmd_run(a, &p, argv);
}

int cmd_suite(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr, &cli_suite_cmd);
        return 2;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !strcmp(sub, "help")) {
        usage(stdout, &cli_suite_cmd);
        return 0;
    }
    static const char *const subs[] = {"run", "plan", NULL};
    if (strcmp(sub, "run") && strcmp(sub, "plan"))
        return cli_unknown_subcommand(CMD, sub, subs);
    suite_args a = {0};
    if (!(a.fleet = tb_fleet_new(NULL)))
        return cli_fail(CMD, "out of memory");
    int rc = suite_main(&a, sub, argc, argv);
    tb_fleet_free(a.fleet);
    return rc;
}
