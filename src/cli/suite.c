/* cli/suite: `teebench suite run|plan` -- every workload in this environment,
 * one result (suite/suite.h runs it; this file parses flags, prints progress and
 * the summary, writes the result).
 *
 * Progress goes to stderr: on a terminal one live line (step, round, elapsed,
 * ETA; redrawn on each event and once a second by a ticker thread that sleeps
 * otherwise -- at most 4 draws a second), plain lines otherwise, or one JSON
 * object per event (--progress=jsonl, for a remote caller). A remote target's
 * events and lines are its text: printed with control characters escaped
 * (base/text), as every line here is. The summary table goes to stdout, or to stderr when the
 * result JSON goes to stdout (-o -). Global state: `interrupted`, set by the SIGINT/SIGTERM handler
 * and read by the suite (a volatile sig_atomic_t, as in cli/bench.c). */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/linkage.h"
#include "base/text.h"
#include "record/record.h"
#include "store/store.h"
#include "compare/compare.h"
#include "cli/suite_vm.h"
#include "cli/vm_flags.h"
#include "suite/guest.h"
#include "suite/remote.h"
#include "suite/suite.h"
#include "vm/vm.h"
#include "workloads/attest.h"
#include "workloads/http.h"
#include "workloads/notary.h"

#define CMD "suite"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    __atomic_store_n(&interrupted, 1, __ATOMIC_RELAXED); /* load threads read it */
}

enum { PROG_AUTO, PROG_TTY, PROG_PLAIN, PROG_JSONL, PROG_NONE };

#define MAX_TARGETS 16
#define MAX_ENVS (1 + TB_SUITE_VM_MAX + MAX_TARGETS) /* host, --vm-kinds, --target */

typedef struct suite_args {
    const char *profile, *workloads, *suite_file, *label, *output, *work_dir, *repeat, *db;
    int no_store;
    const char *targets[MAX_TARGETS]; /* --target NAME=URL */
    int n_targets;
    const char *ssh_config, *remote_binary, *vm_dir;
    int http_client_local; /* --http-client local: load remote nginx from here */
    int guest_setup;       /* --guest-setup: install nginx there first */
    int ssh_copy_id;       /* --ssh-copy-id: ssh-copy-id to each ssh target first */
    cli_suite_vms vms;     /* --vm-kinds and the VM flags (cli/suite_vm.h) */
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

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: teebench suite run [options]     run every workload here, store one result\n"
        "       teebench suite plan [options] [--json]   what run would do, and how long\n\n"
        "Workloads: env (always), syscall (UnixBench System Call Overhead, 1 copy and one per\n"
        "CPU), probe (TEE-sensitive microbenchmarks), http (load on nginx and on teebench\n"
        "serve --tls), attest (quotes and their verification; SIMULATED outside a TD),\n"
        "notary (bench notary: no_tee, tee_no_verify, tee_verify), storage (fio, CVM_eval's\n"
        "jobs), kv (redis GET/SET, plain and TLS); storage and kv not in quick unless named.\n"
        "With --repeat N the suite runs N rounds, each running every workload once, so\n"
        "each metric gets N samples (or more) measured interleaved with the others.\n\n"
        "  --profile P        quick, standard (default) or seed\n"
        "  --workloads LIST   comma-separated workloads (default: all)\n"
        "  --repeat N         rounds\n"
        "  --suite FILE       suite file: {\"profile\": P, \"repeat\": N, \"workloads\":\n"
        "                     {\"http\": {\"duration\": \"5s\", ...}, ...}} (only the workloads\n"
        "                     listed run)\n"
        "  --set KEY=VALUE    one parameter (repeatable; keys below)\n"
        "  --label NAME       environment label (default from teebench env: tdx-guest,\n"
        "                     vm-kvm, bare-metal ...): 1..63 of A-Z a-z 0-9 _ . - and\n"
        "                     space, starting with a letter or digit (\"TDX VM\")\n"
        "  -o, --output FILE  write the result (JSON) to FILE; - writes it to stdout and\n"
        "                     the summary to stderr\n"
        "  --progress MODE    auto (a live line on a terminal, else plain lines), tty,\n"
        "                     plain, jsonl (one JSON object per event) or none; on stderr\n"
        "  --work-dir DIR     servers' files and logs in DIR, kept (default: a temporary\n"
        "                     directory, removed unless a workload failed)\n"
        "  --json             (plan) print the plan as JSON\n"
        "  --db FILE          the results store (default: $TEEBENCH_DB, else\n"
        "                     $XDG_DATA_HOME/teebench/results.db); --no-store: none\n\n"
        "Other environments (each stored, then compared; the first is the baseline):\n"
        "  --target NAME=ssh://[user@]host[:port]   run there through OpenSSH (repeatable;\n"
        "                     NAME is a label, as --label; its result is stored under it):\n"
        "                     BatchMode, a control master per target, your ssh config and\n"
        "                     keys; this teebench is copied to ~/.cache/teebench there when\n"
        "                     that host has none of this build; where it cannot run there\n"
        "                     (a missing library, an older glibc) the self-contained\n"
        "                     teebench-static beside it (make static) is copied instead\n"
        "  --target NAME=vm:VM  a VM started by `teebench vm start VM`\n"
        "  --target NAME=local  this machine\n"
        "  --ssh-config FILE  ssh -F FILE\n"
        "  --ssh-copy-id      first run ssh-copy-id for each ssh:// target on this terminal\n"
        "                     (a host that takes only a password, such as a TD started by\n"
        "                     hand: Canonical's image logs in tdx/123456); a target user that\n"
        "                     is not root runs every workload but those needing root there\n"
        "                     (attest and notary's TEE modes: configfs-tsm is root's)\n"
        "  --http-client local|remote  where the load generator of http's nginx target\n"
        "                     runs for ssh targets: remote (default: the whole suite there)\n"
        "                     or local (this machine loads nginx there over the network, as\n"
        "                     the source document measured a TD: its I/O path is part of\n"
        "                     the cost)\n"
        "  --remote-binary P  run P there instead of copying this teebench\n"
        "  --guest-setup      before the suite, install nginx there if it is missing, with\n"
        "                     apt-get or dnf, as root or through sudo -n (its system-wide\n"
        "                     service is stopped again: the suite starts its own)\n"
        "  --vm-dir DIR       where `teebench vm` keeps its VMs (vm:VM targets, --vm-kinds)\n"
        "  with targets, -o DIR writes one result per target: DIR/NAME.json\n\n"
        "This machine and VMs it starts, in one command (host, then each kind):\n"
        "  --vm-kinds LIST    e.g. regular,tdx (labels vm-regular, vm-tdx) or td=tdx,vm=regular:\n"
        "                     each VM is started from the same description, the suite runs\n"
        "                     inside over SSH, the boot time (vm start to the first SSH login)\n"
        "                     is the metric vm.boot.s, and the VM is stopped; a kind this host\n"
        "                     cannot run is refused with one line and the others still run.\n"
        "                     Under TCG emulation a label gets -tcg (no figure from it means\n"
        "                     anything). --label names this machine (default host).\n"
        "                     regular-swiotlb[:POOL]: the regular VM with forced bounce\n"
        "                     buffers (label vm-regular-swiotlb), for the report's split of\n"
        "                     a TD's I/O cost (see teebench vm start --help)\n"
        "  --image DISK | --kernel K [--initrd I] [--append ARGS]   what the VMs boot;\n"
        "                     neither: the image `teebench vm image` builds (built first when\n"
        "                     it is not there yet: root, mmdebstrap and the archive needed)\n"
        "  --no-snapshot      the VMs write to the image (default: each VM writes to a\n"
        "                     temporary overlay, so every kind boots the same disk)\n"
        "  --vm-seed on|off   the cloud-init seed with the VM's key (default on)\n"
        "  --vm-cpus N, --vm-memory SIZE, --vm-pin CPULIST, --prealloc,\n"
        "  --accel auto|kvm|tcg, --firmware F, --vsock auto|on|off, --boot-timeout S,\n"
        "  --vm-ssh-key K, --vm-ssh-user U, --qemu BIN, --cbitpos N, --reduced-phys-bits N,\n"
        "  --vm-snp-policy P  as for teebench vm start (--cpus, --memory, ... there)\n"
        "  -h, --help         this text\n\n");
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

static int parse_args(int argc, char **argv, suite_args *a)
{
    enum {
        O_PROFILE = 256,
        O_WORKLOADS,
        O_REPEAT,
        O_SUITE,
        O_SET,
        O_LABEL,
        O_PROGRESS,
        O_WORK,
        O_JSON,
        O_DB,
        O_NO_STORE,
        O_TARGET,
        O_SSH_CONFIG,
        O_REMOTE_BINARY,
        O_VM_DIR,
        O_VM_KINDS,
        O_HTTP_CLIENT,
        O_GUEST_SETUP,
        O_SSH_COPY_ID
    };
    static const struct option opts[] = {
        {"profile", required_argument, NULL, O_PROFILE},
        {"workloads", required_argument, NULL, O_WORKLOADS},
        {"repeat", required_argument, NULL, O_REPEAT},
        {"suite", required_argument, NULL, O_SUITE},
        {"set", required_argument, NULL, O_SET},
        {"label", required_argument, NULL, O_LABEL},
        {"output", required_argument, NULL, 'o'},
        {"progress", required_argument, NULL, O_PROGRESS},
        {"work-dir", required_argument, NULL, O_WORK},
        {"json", no_argument, NULL, O_JSON},
        {"db", required_argument, NULL, O_DB},
        {"no-store", no_argument, NULL, O_NO_STORE},
        {"target", required_argument, NULL, O_TARGET},
        {"ssh-config", required_argument, NULL, O_SSH_CONFIG},
        {"remote-binary", required_argument, NULL, O_REMOTE_BINARY},
        {"vm-dir", required_argument, NULL, O_VM_DIR},
        {"vm-kinds", required_argument, NULL, O_VM_KINDS},
        {"http-client", required_argument, NULL, O_HTTP_CLIENT},
        {"guest-setup", no_argument, NULL, O_GUEST_SETUP},
        {"ssh-copy-id", no_argument, NULL, O_SSH_COPY_ID},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    struct option all[64];
    int n_all = 0, c;
    if (cli_opt_append(all, &n_all, 64, opts) < 0 ||
        cli_opt_append(all, &n_all, 64, cli_vm_flags_suite) < 0)
        return cli_fail(CMD, "internal error: option table too small");
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:h", all, NULL)) != -1) {
        if (cli_vm_flag_is(c)) {
            int rc = cli_suite_vms_flag(&a->vms, c, optarg);
            if (rc)
                return rc;
            continue;
        }
        switch (c) {
        case O_PROFILE:
            a->profile = optarg;
            break;
        case O_WORKLOADS:
            a->workloads = optarg;
            break;
        case O_REPEAT:
            a->repeat = optarg;
            break;
        case O_SUITE:
            a->suite_file = optarg;
            break;
        case O_SET:
            if (a->n_sets == (int)(sizeof a->sets / sizeof a->sets[0]))
                return cli_fail_code(2, CMD, "--set: at most 64");
            a->sets[a->n_sets++] = optarg;
            break;
        case O_LABEL:
            if (!tb_record_label_valid(optarg))
                return cli_fail_code(2, CMD, "--label %s: want " TB_RECORD_LABEL_RULE, optarg);
            a->label = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case O_PROGRESS:
            if (!strcmp(optarg, "auto"))
                a->progress = PROG_AUTO;
            else if (!strcmp(optarg, "tty"))
                a->progress = PROG_TTY;
            else if (!strcmp(optarg, "plain"))
                a->progress = PROG_PLAIN;
            else if (!strcmp(optarg, "jsonl"))
                a->progress = PROG_JSONL;
            else if (!strcmp(optarg, "none"))
                a->progress = PROG_NONE;
            else
                return cli_fail_code(2, CMD, "--progress %s: want auto, tty, plain, jsonl or none",
                                     optarg);
            break;
        case O_WORK:
            a->work_dir = optarg;
            break;
        case O_JSON:
            a->json = 1;
            break;
        case O_DB:
            a->db = optarg;
            break;
        case O_NO_STORE:
            a->no_store = 1;
            break;
        case O_TARGET: {
            tb_remote_target t;
            tb_err e;
            if (a->n_targets == MAX_TARGETS)
                return cli_fail_code(2, CMD, "--target: at most %d", MAX_TARGETS);
            if (tb_remote_target_parse(optarg, &t, &e) < 0)
                return cli_fail_code(2, CMD, "--target %s", e.msg);
            for (int i = 0; i < a->n_targets; i++)
                if (!strncmp(a->targets[i], optarg, strlen(t.name)) &&
                    a->targets[i][strlen(t.name)] == '=')
                    return cli_fail_code(2, CMD, "--target %s: the name %s is used twice", optarg,
                                         t.name);
            a->targets[a->n_targets++] = optarg;
            break;
        }
        case O_SSH_CONFIG:
            a->ssh_config = optarg;
            break;
        case O_SSH_COPY_ID:
            a->ssh_copy_id = 1;
            break;
        case O_REMOTE_BINARY:
            a->remote_binary = optarg;
            break;
        case O_VM_DIR:
            a->vm_dir = optarg;
            break;
        case O_VM_KINDS:
            a->vms.kinds = optarg;
            break;
        case O_HTTP_CLIENT:
            if (strcmp(optarg, "local") && strcmp(optarg, "remote"))
                return cli_fail_code(2, CMD, "--http-client %s: want local or remote", optarg);
            a->http_client_local = !strcmp(optarg, "local");
            break;
        case O_GUEST_SETUP:
            a->guest_setup = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_bad_option(CMD, c, argv);
        }
    }
    if (optind < argc)
        return cli_fail_code(2, CMD, "%s: unexpected argument", argv[optind]);
    return -1;
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
    const char *profile = a->profile ? a->profile : file_profile[0] ? file_profile : "standard";
    if (tb_suite_plan_init(p, profile, &err) < 0) {
        json_decref(doc);
        return cli_fail_code(2, CMD, "%s%s", a->profile ? "--profile: " : "--suite: ", err.msg);
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
    if (a->repeat && tb_suite_plan_set(p, "repeat", a->repeat, &err) < 0)
        return cli_fail_code(2, CMD, "--repeat: %s", err.msg);
    if (a->workloads && tb_suite_plan_select(p, a->workloads, &err) < 0)
        return cli_fail_code(2, CMD, "--workloads: %s", err.msg);
    if (a->label)
        snprintf(p->label, sizeof p->label, "%s", a->label);
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

/* Enough open files for the load generator's connections. */
static void raise_fd_limit(int connections)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)connections * 2 + 512;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
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
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: waits wake up */
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &ss->old_int);
    sigaction(SIGTERM, &sa, &ss->old_term);
    ss->hooks = (tb_suite_hooks){.progress = on_event, .ctx = &ss->pr, .stop = &interrupted};
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
    sigaction(SIGINT, &ss->old_int, NULL);
    sigaction(SIGTERM, &ss->old_term, NULL);
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

/* The arguments a remote `suite run` gets (the plan's choices, not how to run it).
   argv entries point into a (borrowed) or are the static strings. */
static int remote_args(const suite_args *a, const char *workloads, const char *extra_set,
                       const char **out, int cap)
{
    int n = 0;
#define ARG(x)                                                                                     \
    do {                                                                                           \
        if (n + 1 >= cap)                                                                          \
            return -1;                                                                             \
        out[n++] = (x);                                                                            \
    } while (0)
    if (a->profile) {
        ARG("--profile");
        ARG(a->profile);
    }
    if (workloads || a->workloads) {
        ARG("--workloads");
        ARG(workloads ? workloads : a->workloads);
    }
    if (a->repeat) {
        ARG("--repeat");
        ARG(a->repeat);
    }
    for (int i = 0; i < a->n_sets; i++) {
        ARG("--set");
        ARG(a->sets[i]);
    }
    if (extra_set) {
        ARG("--set");
        ARG(extra_set);
    }
#undef ARG
    out[n] = NULL;
    return n;
}

/* A vm:NAME target becomes an ssh target from the VM's state. */
static int resolve_vm_target(const suite_args *a, tb_remote_target *t, tb_err *err)
{
    char base[1024];
    if (cli_suite_vm_base(a->vm_dir, base, sizeof base, err) < 0)
        return -1;
    tb_vm_state st;
    if (tb_vm_load(base, t->vm, &st, err) < 0)
        return tb_err_wrap(err, "vm:%s", t->vm);
    int alive = tb_vm_alive(&st);
    snprintf(t->host, sizeof t->host, "127.0.0.1");
    t->port = st.ssh_port;
    snprintf(t->user, sizeof t->user, "%s", st.ssh_user[0] ? st.ssh_user : "root");
    snprintf(t->identity, sizeof t->identity, "%s", st.ssh_key);
    snprintf(t->known_hosts, sizeof t->known_hosts, "%s", st.paths.known_hosts);
    int tcg = st.tcg;
    tb_vm_state_free(&st);
    if (!alive)
        return tb_errf(err, "vm:%s is not running (teebench vm start %s ...)", t->vm, t->vm);
    if (tcg)
        fprintf(stderr,
                "teebench: suite: NOTE: vm:%s runs under TCG (emulation): no performance "
                "figure from it means anything\n",
                t->vm);
    return 0;
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

/* The remote suite's workloads when http's nginx target is measured from here: the
   selected ones but http (kept when its serve-tls target stays there); env at least. */
static void remote_workloads(const tb_suite_plan *p, char *out, size_t n)
{
    const tb_wl_http_params *h = tb_suite_plan_params(p, &tb_wl_http);
    out[0] = 0;
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (!p->enabled[i] || (w->flags & TB_WL_ALWAYS) || (w == &tb_wl_http && !h->serve_tls))
            continue;
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s", l ? "," : "", w->name);
    }
    if (!out[0])
        snprintf(out, n, "env");
}

/* --http-client local, the source document's setup: nginx runs in the environment under
   test (started there with `teebench nginx start`, listening on the address ssh reaches),
   the load generator here, so the environment's network path is part of the figure.
   *out gets a record with the http.nginx.* metrics measured from here. */
static int http_from_here(const tb_suite_plan *p, const tb_remote_target *t,
                          const tb_remote_opts *o, session *ss, tb_record **out, tb_err *err)
{
    char host[256], dir[128], port[16], url[320];
    if (tb_remote_hostname(t, o, host, sizeof host, err) < 0)
        return -1;
    int v6 = strchr(host, ':') != NULL;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const tb_wl_http_params *h = tb_suite_plan_params(p, &tb_wl_http);
    char workers[16] = "auto";
    if (h->server_threads > 0)
        snprintf(workers, sizeof workers, "%d", h->server_threads);
    int rc = -1;
    for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
        /* a port there that is likely free: nginx start says so when it is not */
        int pn = 20000 + (int)((ts.tv_nsec / 1000 + getpid() * 7919 + attempt * 104729) % 40000);
        snprintf(port, sizeof port, "%d", pn);
        snprintf(dir, sizeof dir, "/tmp/teebench-http-client.%s.%s", t->name, port);
        char *start[] = {"nginx", "start", "--addr",    host,    "--port", port,
                         "--dir", dir,     "--workers", workers, NULL};
        rc = tb_remote_teebench(t, o, start, ss->hooks.stop, NULL, err);
    }
    if (rc < 0)
        return tb_err_wrap(err, "--http-client local: nginx on %s", t->host);
    snprintf(url, sizeof url, v6 ? "http://[%s]:%s/" : "http://%s:%s/", host, port);
    line(&ss->pr, "%s: nginx at %s, the load generator here (--http-client local)", ss->pr.tag,
         url);
    tb_suite_plan hp = *p;
    tb_wl_http_params *hh = tb_suite_plan_params(&hp, &tb_wl_http);
    for (size_t i = 0; i < tb_workload_count(); i++)
        hp.enabled[i] =
            (tb_workload_at(i)->flags & TB_WL_ALWAYS) || tb_workload_at(i) == &tb_wl_http;
    hh->serve_tls = 0;
    snprintf(hp.label, sizeof hp.label, "%s", t->name);
    if (snprintf(hh->nginx_url, sizeof hh->nginx_url, "%s", url) >= (int)sizeof hh->nginx_url)
        rc = tb_errf(err, "--http-client local: URL too long: %s", url);
    else
        rc = tb_suite_run(&hp, &ss->hooks, out, err);
    char *stop[] = {"nginx", "stop", "--dir", dir, NULL};
    tb_err e;
    if (tb_remote_teebench(t, o, stop, NULL, NULL, &e) < 0)
        line(&ss->pr, "%s: stopping nginx there: %s", ss->pr.tag, e.msg);
    if (rc == 0 && strcmp((*out)->status, "complete")) {
        rc = tb_errf(err, "--http-client local: the load from here %s",
                     !strcmp((*out)->status, "interrupted") ? "was interrupted" : "failed");
        tb_record_free(*out);
        *out = NULL;
    }
    return rc;
}

/* Puts the http.nginx.* metrics measured from here into the environment's record. */
static int merge_http(tb_record *r, const tb_record *http, tb_err *err)
{
    for (size_t i = 0; i < http->n_metrics; i++) {
        const tb_metric *m = &http->metrics[i];
        tb_wl_match wm; /* the http workload's metrics of target nginx */
        if (!tb_wl_metric_find(m->name, &wm) || wm.workload != &tb_wl_http ||
            strcmp(wm.part, "nginx"))
            continue;
        tb_metric *d = tb_record_metric(r, m->name, m->unit, m->better, m->workload, err);
        if (!d || (m->note && tb_metric_set_note(d, m->note, err) < 0))
            return -1;
        for (size_t k = 0; k < m->n; k++)
            if (tb_metric_add(d, m->samples[k], err) < 0)
                return -1;
    }
    size_t n;
    json_t *c;
    json_array_foreach(http->commands, n, c) json_array_append(r->commands, c);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object_set_new(r->extra, "http_client",
                        json_pack("{s:s, s:s, s:o}", "mode", "local", "client", host, "env",
                                  json_deep_copy(http->env)));
    /* the remote ran the profile's other workloads (--set http.targets marked them
       "custom"); nginx's were measured from here: together, the profile's suite */
    if (http->profile && tb_record_set_str(&r->profile, http->profile, err) < 0)
        return -1;
    return 0;
}

/* build/teebench-static beside this teebench (`make static`), copied to remotes where
   this build cannot run (suite/remote); NULL when there is none or this is it. */
static const char *static_beside(const char *self, char *out, size_t len)
{
    const char *slash = strrchr(self, '/');
    if (tb_linkage_static() || !slash ||
        snprintf(out, len, "%.*s/teebench-static", (int)(slash - self), self) >= (int)len)
        return NULL;
    return access(out, X_OK) == 0 && strcmp(out, self) ? out : NULL;
}

/* --guest-setup on t: nginx installed there when the run needs it (suite/guest). A
   guest where it cannot be is one line and sets *failed; the suite still runs there
   (its nginx target is then skipped, with the reason). */
static void guest_setup(const tb_suite_plan *p, const tb_remote_target *t, const tb_remote_opts *o,
                        session *ss, int *failed)
{
    int quiet = ss->pr.mode == PROG_NONE || ss->pr.mode == PROG_JSONL;
    const tb_wl_http_params *h = tb_suite_plan_params(p, &tb_wl_http);
    if (!tb_suite_plan_enabled(p, &tb_wl_http) || !h->nginx) {
        if (!quiet)
            line(&ss->pr, "%s: --guest-setup: nothing to install (nginx is not in this run)",
                 ss->pr.tag);
        return;
    }
    tb_guest_setup_result gr;
    tb_err e;
    if (tb_guest_setup(t, o, h->nginx_bin, ss->hooks.stop, &gr, &e) < 0) {
        cli_fail(CMD, "%s: --guest-setup: %s", t->name, e.msg);
        *failed = 1;
    } else if (quiet) {
        return;
    } else if (gr.installed) {
        line(&ss->pr,
             "%s: --guest-setup: installed nginx there with %s (as %s); its system-wide "
             "service is stopped and disabled",
             ss->pr.tag, gr.manager, gr.as);
    } else {
        line(&ss->pr, "%s: --guest-setup: nginx is installed there (%s)", ss->pr.tag, h->nginx_bin);
    }
}

/* --ssh-copy-id: ssh-copy-id for each ssh:// target, on this terminal (it asks for the
   password). 0, or an exit code after the error line. */
static int copy_ids(const suite_args *a)
{
    if (!a->ssh_copy_id)
        return 0;
    int n = 0;
    for (int i = 0; i < a->n_targets; i++) {
        tb_remote_target t;
        tb_err e;
        if (tb_remote_target_parse(a->targets[i], &t, &e) < 0 || t.kind != TB_TARGET_SSH)
            continue;
        if (!isatty(STDIN_FILENO))
            return cli_fail_code(2, CMD,
                                 "--ssh-copy-id: needs a terminal (ssh-copy-id asks for "
                                 "the password of %s)",
                                 t.host);
        char **argv = tb_remote_copy_id_argv(&t, a->ssh_config);
        if (!argv)
            return cli_fail(CMD, "--ssh-copy-id: out of memory");
        fprintf(stderr, "teebench: suite: %s: running ssh-copy-id", t.name);
        for (char **w = argv + 1; *w; w++)
            fprintf(stderr, " %s", *w);
        fprintf(stderr, "\n");
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            execvp(argv[0], argv);
            fprintf(stderr,
                    "teebench: suite: --ssh-copy-id: cannot run ssh-copy-id: %s "
                    "(install openssh-client)\n",
                    strerror(errno));
            _exit(127);
        }
        int status = 0;
        while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        tb_remote_argv_free(argv);
        if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return cli_fail(CMD, "--ssh-copy-id: ssh-copy-id for %s failed (exit %d)", t.name,
                            pid < 0             ? -1
                            : WIFEXITED(status) ? WEXITSTATUS(status)
                                                : 128);
        n++;
    }
    if (!n)
        return cli_fail_code(2, CMD, "--ssh-copy-id: no ssh:// target to copy a key to");
    return 0;
}

/* A target whose user is not root runs what needs no root; say which workloads do. */
static void note_user(const tb_suite_plan *p, const tb_remote_target *t)
{
    if (!t->user[0] || !strcmp(t->user, "root"))
        return;
    if (!tb_suite_plan_enabled(p, &tb_wl_attest) && !tb_suite_plan_enabled(p, &tb_wl_notary))
        return;
    fprintf(stderr,
            "teebench: suite: NOTE: %s logs in as %s, not root: attest and notary's TEE modes "
            "need root there (configfs-tsm reports are root's) and fail as %s; every other "
            "workload runs as any user\n",
            t->name, t->user, t->user);
}

/* One environment: here (t NULL or local) or remote. 0 and *out, or -1 after err;
 *failed set when --guest-setup failed there. */
static int run_env(const suite_args *a, tb_suite_plan *p, const tb_remote_target *t,
                   const char *control_dir, const tb_buf *suite_doc, session *ss, tb_record **out,
                   int *failed, tb_err *err)
{
    if (!t || t->kind == TB_TARGET_LOCAL) {
        if (t)
            snprintf(p->label, sizeof p->label, "%s", t->name);
        return tb_suite_run(p, &ss->hooks, out, err);
    }
    tb_remote_target rt = *t;
    if (rt.kind == TB_TARGET_VM && resolve_vm_target(a, &rt, err) < 0)
        return -1;
    char fallback[PATH_MAX];
    note_user(p, &rt);
    tb_remote_opts o = {.local_binary = p->self_exe,
                        .fallback_binary = static_beside(p->self_exe, fallback, sizeof fallback),
                        .remote_binary = a->remote_binary,
                        .ssh_config = a->ssh_config,
                        .control_dir = control_dir,
                        .suite_doc = suite_doc->len ? (const char *)suite_doc->p : NULL};
    const tb_wl_http_params *h = tb_suite_plan_params(p, &tb_wl_http);
    int split = a->http_client_local && tb_suite_plan_enabled(p, &tb_wl_http) && h->nginx;
    if (split && rt.kind == TB_TARGET_VM)
        return tb_errf(err, "--http-client local: not for vm: targets (only SSH is forwarded "
                            "into the guest)");
    if (a->guest_setup)
        guest_setup(p, &rt, &o, ss, failed);
    tb_record *http = NULL;
    char workloads[256] = "";
    if (split) {
        if (http_from_here(p, &rt, &o, ss, &http, err) < 0)
            return -1;
        remote_workloads(p, workloads, sizeof workloads);
    }
    const char *args[160];
    if (remote_args(a, split ? workloads : NULL,
                    split && h->serve_tls ? "http.targets=serve-tls" : NULL, args, 160) < 0) {
        tb_record_free(http);
        return tb_errf(err, "too many suite arguments for a remote run");
    }
    o.suite_args = (char *const *)args;
    int rc = tb_remote_run(&rt, &o, &ss->hooks, out, err);
    if (rc == 0 && http && merge_http(*out, http, err) < 0) {
        tb_record_free(*out);
        *out = NULL;
        rc = -1;
    }
    tb_record_free(http);
    return rc;
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

/* Environment i of a multi-environment run: with --vm-kinds this machine, then
   each VM, then the --targets. Fills t and where (what the progress line says);
   returns the VM's index in a->vms, or -1 for anything else. */
static int env_at(const suite_args *a, int i, tb_remote_target *t, char *where, size_t len)
{
    tb_err err;
    int nv = a->vms.n ? 1 + a->vms.n : 0;
    if (i >= nv) {
        tb_remote_target_parse(a->targets[i - nv], t, &err); /* checked by parse_args */
        snprintf(where, len, "%s", strchr(a->targets[i - nv], '=') + 1);
        return -1;
    }
    memset(t, 0, sizeof *t);
    if (i == 0) {
        t->kind = TB_TARGET_LOCAL;
        snprintf(t->name, sizeof t->name, "%s", a->label ? a->label : "host");
        snprintf(where, len, "this machine");
        return -1;
    }
    const cli_suite_vms *v = &a->vms;
    t->kind = TB_TARGET_VM;
    snprintf(t->name, sizeof t->name, "%s", v->labels[i - 1]);
    snprintf(t->vm, sizeof t->vm, "%s", v->labels[i - 1]);
    snprintf(where, len, "a %s VM started here (vm:%s)", tb_vm_kind_name(v->envs[i - 1].kind),
             v->labels[i - 1]);
    return i - 1;
}

/* One environment with VMs around it: ours started before and stopped after (on
   every path; a VM that cannot be stopped is one more line and sets *failed), any
   VM's facts added to its record. 0 and *out, or -1 after err. */
static int run_env_vm(suite_args *a, tb_suite_plan *p, const tb_remote_target *t, int vm,
                      const char *control_dir, const tb_buf *doc, session *ss, tb_record **out,
                      int *failed, tb_err *err)
{
    int rc = vm >= 0 ? cli_suite_vms_start(&a->vms, vm, &ss->hooks, err) : 0;
    if (rc == 0)
        rc = run_env(a, p, t, control_dir, doc, ss, out, failed, err);
    char base[1024];
    tb_err e;
    if (rc == 0 && t->kind == TB_TARGET_VM &&
        (cli_suite_vm_base(a->vm_dir, base, sizeof base, &e) < 0 ||
         cli_suite_vm_annotate(base, t->vm, vm >= 0 ? a->vms.qemu_version : NULL, *out, &e) < 0))
        cli_fail(CMD, "%s: the VM's facts are not in the record: %s", t->name, e.msg);
    if (vm >= 0 && cli_suite_vms_stop(&a->vms, &ss->hooks, interrupted, &e) < 0) {
        cli_fail(CMD, "%s: %s", t->name, e.msg);
        *failed = 1;
    }
    return rc;
}

/* Every environment's name once (the VMs' final labels are known after
   cli_suite_vms_plan). 0, or exit code 2. */
static int check_env_names(const suite_args *a)
{
    int n = (a->vms.n ? 1 + a->vms.n : 0) + a->n_targets;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            tb_remote_target ti, tj;
            char w[600];
            env_at(a, i, &ti, w, sizeof w);
            env_at(a, j, &tj, w, sizeof w);
            if (!strcmp(ti.name, tj.name))
                return cli_fail_code(2, CMD,
                                     "%s names two environments (--label, --vm-kinds "
                                     "and --target names must differ)",
                                     ti.name);
        }
    return 0;
}

/* --target / --vm-kinds: each environment in turn, stored, then compared. */
static int run_targets(suite_args *a, tb_suite_plan *p, session *ss)
{
    char control_dir[] = "/tmp/teebench-ssh-XXXXXX"; /* short: socket paths are limited */
    if (!mkdtemp(control_dir))
        return cli_fail(CMD, "control socket directory: %s", strerror(errno));
    tb_buf doc = {0};
    int code = load_suite_doc(a, &doc);
    if (code)
        return rmdir(control_dir), code;
    /* -o DIR: a private directory by base/file's rule (another user's or one others may
       write is refused: they could plant what the results are written over) */
    tb_err oe;
    int ofd = a->output ? tb_dir_open_private(a->output, 0700, &oe) : -1;
    if (a->output && ofd < 0) {
        tb_buf_clear(&doc);
        rmdir(control_dir);
        struct stat ost;
        if (stat(a->output, &ost) == 0 && !S_ISDIR(ost.st_mode))
            return cli_fail_code(2, CMD, "-o %s: with --target, -o names a directory", a->output);
        return cli_fail(CMD, "-o %s", oe.msg);
    }
    if (ofd >= 0)
        close(ofd);
    tb_record *recs[MAX_ENVS];
    size_t n = 0;
    int failed = 0, n_envs = (a->vms.n ? 1 + a->vms.n : 0) + a->n_targets;
    for (int i = 0; i < n_envs && !interrupted; i++) {
        tb_remote_target t;
        tb_err err;
        char where[600];
        int vm = env_at(a, i, &t, where, sizeof where);
        if (vm >= 0 && a->vms.refused[vm]) { /* said before the first environment ran */
            failed = 1;
            continue;
        }
        session_tag(ss, t.name);
        if (ss->pr.mode != PROG_NONE && ss->pr.mode != PROG_JSONL)
            fprintf(stderr, "suite[%s]: %s\n", t.name, where);
        tb_record *r = NULL;
        if (run_env_vm(a, p, &t, vm, control_dir, &doc, ss, &r, &failed, &err) < 0) {
            cli_fail(CMD, "%s: %s", t.name, err.msg);
            failed = 1;
            continue;
        }
        char path[PATH_MAX];
        if (a->output &&
            snprintf(path, sizeof path, "%s/%s.json", a->output, t.name) >= (int)sizeof path)
            code = cli_fail(CMD, "-o %s: path too long", a->output);
        int c = finish_record(a, a->output ? path : NULL, r, ss->pr.mode, t.name);
        if (c == 130)
            code = 130;
        else if (c)
            failed = 1;
        recs[n++] = r;
    }
    session_tag(ss, NULL);
    print_comparison(recs, n);
    for (size_t i = 0; i < n; i++)
        tb_record_free(recs[i]);
    tb_buf_clear(&doc);
    rmdir(control_dir);
    if (interrupted && code != 130)
        code = cli_fail_code(130, CMD, "interrupted");
    return code ? code : failed;
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
    raise_fd_limit(((const tb_wl_http_params *)tb_suite_plan_params(p, &tb_wl_http))->connections);

    session ss;
    session_begin(&ss, a->progress);
    int code;
    if (a->n_targets || a->vms.n) {
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

int cmd_suite(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !strcmp(sub, "help")) {
        usage(stdout);
        return 0;
    }
    static const char *const subs[] = {"run", "plan", NULL};
    if (strcmp(sub, "run") && strcmp(sub, "plan"))
        return cli_unknown_subcommand(CMD, sub, subs);
    suite_args a = {0};
    cli_suite_vms_init(&a.vms);
    int rc = parse_args(argc - 1, argv + 1, &a);
    if (rc >= 0)
        return rc;
    if ((rc = cli_suite_vms_check(&a.vms)) != 0)
        return rc;
    if (a.vms.n && !strcmp(sub, "plan"))
        return cli_fail_code(2, CMD, "--vm-kinds: only for suite run");
    if (!strcmp(sub, "run") && a.json)
        return cli_fail_code(2, CMD, "--json: only for suite plan (run writes JSON with -o)");
    tb_suite_plan p;
    if ((rc = build_plan(&a, &p)) != 0)
        return rc;
    if (!strcmp(sub, "plan"))
        return cmd_plan(&a, &p);
    if (!a.n_targets && !a.vms.n && (rc = check_output(a.output)) != 0)
        return rc;
    if (a.guest_setup && !a.n_targets && !a.vms.n)
        return cli_fail_code(2, CMD,
                             "--guest-setup: only with --target or --vm-kinds (it installs "
                             "nginx there; here, scripts/setup.sh does)");
    if (a.n_targets && a.label && !a.vms.n)
        return cli_fail_code(2, CMD,
                             "--label: with --target each environment is named by its target");
    if (a.ssh_copy_id && !a.n_targets)
        return cli_fail_code(2, CMD, "--ssh-copy-id: needs a --target NAME=ssh://...");
    if ((rc = cli_suite_vms_plan(&a.vms, a.vm_dir)) != 0 || (rc = check_env_names(&a)) != 0 ||
        (rc = cli_suite_vms_preflight(&a.vms)) != 0 || (rc = copy_ids(&a)) != 0)
        return rc;
    return cmd_run(&a, &p, argv);
}
