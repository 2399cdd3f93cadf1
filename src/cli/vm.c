/* cli/vm: `teebench vm start|stop|list|ssh|show|check` -- a regular VM, a TDX trust
 * domain or an SEV-SNP guest started from one description (src/vm), so that
 * they differ only in the TEE; `vm check` prints the checks a start makes, one
 * line each. This file parses flags and prints; src/vm decides, builds the
 * command line and runs QEMU. */
#include "cli/cli.h"
#include "cli/json.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/flags.h"
#include "cli/opt.h"
#include "cli/vm_flags.h"
#include "base/file.h"
#include "vm/seed.h"
#include "vm/vm.h"

#define CMD "vm"

typedef struct vm_args {
    tb_vm_spec spec;
    const char *dir;
    const char *from; /* --from DIR: a recorded host */
    int dry_run, why, json, timeout_s;
    const char *hostname; /* vm seed */
    char **rest;          /* positional arguments */
    int nrest;
} vm_args;

/* --timeout: a duration (cli/opt syntax: 60, 60s, 2m) in whole seconds, rounded up. */
static int take_timeout(void *args, const char *flag, const char *v, tb_err *err)
{
    double sec;
    if (cli_opt_duration(flag, v, 1, 3600, &sec, err) < 0)
        return -1;
    ((vm_args *)args)->timeout_s = (int)ceil(sec);
    return 0;
}

/* The flags of every action, in the order --help lists them: start's (the VM
   description through cli/vm_flags), then the ones the other actions take too. */
static const cli_flag vm_flags[] = {
    {CLI_VM_KIND(vm_args, spec), .before = "start options:\n",
     .help = "regular, tdx or snp (default regular); regular-swiotlb[:POOL]:\n"
             "the regular VM booted with swiotlb=<slabs>,force (bounce\n"
             "buffers as in a TD; POOL default: a TD's, 6 % of memory in\n"
             "[64M, 1G]), set on -append, or from an image by the seed and\n"
             "one reboot; the guest's /proc/cmdline must show it"},
    {CLI_VM_IMAGE(vm_args, spec),
     .help = "disk image, any format QEMU reads (told by its content)"},
    /* the label's space: three before the help, as "--image DISK | ..." in suite's */
    {CLI_VM_KERNEL(vm_args, spec), .label = "--kernel K, --initrd I, --append ARGS ",
     .help = "direct kernel boot (console=ttyS0 is added)"},
    {CLI_VM_INITRD(vm_args, spec), .hidden = 1},
    {CLI_VM_APPEND(vm_args, spec), .hidden = 1},
    {CLI_VM_CPUS("cpus", vm_args, spec), .help = "vCPUs (default 2)"},
    {CLI_VM_MEMORY("memory", vm_args, spec), .help = "guest memory, e.g. 4G, 512M (default 4G)"},
    {CLI_VM_CPU("cpu", vm_args, spec),
     .help = "-cpu model for every kind (default host; max under TCG); an\n"
             "SEV-SNP guest's firmware validates CPUID: e.g. EPYC-v4"},
    {CLI_VM_PIN("pin", vm_args, spec),
     .help = "vCPU i runs only on the i-th listed host CPU (e.g. 2,3 or 4-7);\n"
             "QEMU's other threads are kept off them"},
    {CLI_VM_PREALLOC(vm_args, spec),
     .help = "allocate all guest memory before the guest starts (a TD's and\n"
             "an SNP guest's private memory is allocated as they accept it)"},
    {CLI_VM_SSH_PORT(vm_args, spec),
     .help = "host port on 127.0.0.1 forwarded to the guest's 22 (default: free)"},
    {CLI_VM_SSH_USER("ssh-user", vm_args, spec),
     .help = "user to log in as (default root; another user is created by\n"
             "cloud-init from the seed, with sudo)"},
    {CLI_VM_SSH_KEY("ssh-key", vm_args, spec),
     .help = "private key the guest accepts, K.pub beside it (default: a new\n"
             "one in the run dir, offered through the seed and fw_cfg)"},
    {CLI_VM_SEED("seed", vm_args, spec), .help = "attach the cloud-init seed (default on)"},
    {CLI_VM_FIRMWARE(vm_args, spec),
     .help = "OVMF file, for every kind or one (default: the first of the\n"
             "distributions' places whose file suits the kind: TDVF metadata\n"
             "for tdx, SEV-SNP metadata for snp); 'none': QEMU's own BIOS\n"
             "(--kind regular only)"},
    {CLI_VM_ACCEL(vm_args, spec),
     .help = "auto (KVM, else TCG for regular), kvm or tcg (regular only)"},
    {CLI_VM_VSOCK(vm_args, spec),
     .help = "vhost-vsock-pci: auto (when /dev/vhost-vsock exists), on, off"},
    {CLI_VM_CID(vm_args, spec), .help = "guest vsock CID (default: the SSH port)"},
    {CLI_VM_CBITPOS(vm_args, spec),
     .help = "SNP C-bit position (default: the host's CPUID 0x8000001F)"},
    {CLI_VM_REDUCED_PHYS_BITS(vm_args, spec),
     .help = "SNP guest value (default 1, what AMD and QEMU prescribe)"},
    {CLI_VM_POLICY("policy", vm_args, spec), .help = "SNP guest policy (default 0x30000)"},
    {CLI_VM_SNAPSHOT(vm_args, spec), .help = "image writes go to a temporary overlay"},
    {CLI_VM_BOOT_TIMEOUT(vm_args, spec),
     .help = "seconds to wait for the first SSH login (default 300); a guest\n"
             "whose sshd refuses the key for 60 s fails sooner, saying so"},
    {CLI_VM_QEMU(vm_args, spec), .help = "QEMU binary (default: qemu-system-x86_64 in PATH, else\n"
                                         "/usr/libexec/qemu-kvm)"},
    CLI_BOOL("dry-run", 0, vm_args, dry_run,
             "print the QEMU command line and exit (works on any host)"),
    CLI_BOOL("why", 0, vm_args, why, "with --dry-run: the reason for every option"),
    CLI_STR("from", 0, vm_args, from, "DIR",
            "check, start --dry-run: the host recorded in DIR\n"
            "(`teebench env --record DIR`) instead of this one"),
    {.name = "dir",
     .type = CLI_F_STR,
     .arg = "RUNDIR",
     .off = CLI_OFF(vm_args, dir, const char *),
     .before = "\ncommon options:\n",
     .help = "run directory (default $XDG_RUNTIME_DIR/teebench/vm, else\n"
             "~/.local/state/teebench/vm)"},
    CLI_CALL("timeout", 0, take_timeout, "S",
             "stop: seconds for the guest to power off before QEMU is\n"
             "told to quit, then killed (default 60)"),
    CLI_BOOL("json", 0, vm_args, json, "show: the state document; check: the checks"),
    CLI_STR("hostname", 0, vm_args, hostname, "H",
            "seed: the guest's host name (default: teebench)"),
    CLI_HELP(),
    {0}};

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench vm start NAME --kind regular|regular-swiotlb[:POOL]|tdx|snp\n"
            "                (--image DISK | --kernel K [--initrd I] [--append ARGS]) [options]\n"
            "       teebench vm check [--kind regular|tdx|snp] [--qemu BIN] [--firmware F]\n"
            "                [--from DIR] [--json]\n"
            "       teebench vm stop NAME [--timeout S]\n"
            "       teebench vm list\n"
            "       teebench vm ssh NAME [-- CMD...]\n"
            "       teebench vm show NAME [--json]\n"
            "       teebench vm seed FILE --ssh-key K.pub [--ssh-user U] [--hostname H]\n"
            "       teebench vm image [options]   (teebench vm image --help)\n\n"
            "Starts a regular VM, a TDX trust domain or an SEV-SNP guest with QEMU from one\n"
            "description: the three share every option except the TEE's own (same machine,\n"
            "CPU model, irqchip, memory backend, devices, firmware, pinning). start checks the\n"
            "host first (the checks of `vm check`; the first missing one refuses), waits until\n"
            "a command runs over SSH (ssh ... true) and prints that boot time. Each VM lives in\n"
            "RUNDIR/NAME/ (state vm.json, QMP socket, serial log, SSH key, known_hosts, the\n"
            "cloud-init seed seed.iso).\n\n"
            "check: one line per check -- ok or missing, what was found and where it was read:\n"
            "KVM (/dev/kvm, kvm_intel tdx, kvm_amd sev_snp, the VM types KVM offers, /dev/sev),\n"
            "QEMU's own word (-object help, the TEE object's properties through QMP), the\n"
            "firmware's metadata. Exits 0 when the kind can start here. Capabilities decide,\n"
            "never version numbers.\n\n"
            "A stock cloud image boots as it is: its format is read from its content (qcow2,\n"
            "raw, vmdk, vdi, vhdx, vpc, qed, ...; never from its name), and SSH access comes\n"
            "through a cloud-init NoCloud seed teebench writes and attaches (an ISO 9660 disk\n"
            "labelled cidata: user-data with the VM's public key for --ssh-user, meta-data).\n"
            "The key is also offered through fw_cfg (opt/teebench/authorized_keys) for guests\n"
            "that read it. An image that already has access: --ssh-key and --ssh-user.\n\n");
    cli_flags_help(f, c);
    fprintf(f, "\n"
               "A TD needs a KVM that hosts TDs (kvm_intel tdx=Y; upstream Linux >= 6.16 or a\n"
               "vendor's TDX kernel, e.g. canonical/tdx's), a QEMU whose -object help lists\n"
               "tdx-guest and TDVF firmware; an SEV-SNP guest kvm_amd sev_snp=Y, a writable\n"
               "/dev/sev, a QEMU listing sev-snp-guest and OVMF with SEV-SNP metadata. Without\n"
               "KVM, --kind regular runs under TCG emulation (said loudly; no performance figure\n"
               "from it means anything); tdx and snp never do.\n");
}

const cli_cmd cli_vm_cmd = {
    .name = CMD, .flags = vm_flags, .usage = usage, .max_operands = -1, .col = 23};

/* Parses argv (argv[0] = the action). Returns CLI_FLAGS_GO, or the exit code. */
static int parse_args(int argc, char **argv, vm_args *a)
{
    int first;
    int rc = cli_flags_parse(&cli_vm_cmd, argc, argv, a, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    a->rest = argv + first;
    a->nrest = argc - first;
    return CLI_FLAGS_GO;
}

static int base_dir(const vm_args *a, char *out, size_t len)
{
    tb_err e;
    if (!a->dir) {
        if (tb_vm_default_dir(out, len, &e) < 0)
            return cli_fail(CMD, "%s", e.msg);
        return 0;
    }
    if (a->dir[0] == '/') {
        if ((size_t)snprintf(out, len, "%s", a->dir) >= len)
            return cli_fail_code(2, CMD, "--dir %s: path too long", a->dir);
        return 0;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return cli_fail(CMD, "--dir %s: cannot resolve the working directory", a->dir);
    if ((size_t)snprintf(out, len, "%s/%s", cwd, a->dir) >= len)
        return cli_fail_code(2, CMD, "--dir %s: path too long", a->dir);
    return 0;
}

/* An operand an action does not take, in the wording of every command's flag table
   (cli/flags: "<word>: unexpected argument"), after the action's name. */
static int extra_arg(const char *action, const char *word)
{
    return cli_fail_code(2, CMD, "%s: %s: unexpected argument", action, word);
}

/* The VM name (the one positional argument of start/stop/show). */
static int one_name(const vm_args *a, const char *action, const char **name)
{
    if (a->nrest < 1)
        return cli_fail_code(2, CMD, "%s: needs a VM name (teebench vm %s NAME)", action, action);
    if (a->nrest > 1)
        return extra_arg(action, a->rest[1]);
    *name = a->rest[0];
    return 0;
}

static void print_why(const tb_vm_cmd *cmd)
{
    printf("\n# why each option is there ([TEE]: only this kind has it)\n");
    for (int i = 0; i < cmd->nopts; i++) {
        const tb_vm_opt *o = &cmd->opts[i];
        if (o->nprops == 0)
            printf("%s%s: %s\n", o->tee ? "[TEE] " : "", o->flag, o->reason);
        for (int j = 0; j < o->nprops; j++)
            printf("%s%s %s: %s\n", o->tee || o->props[j].tee ? "[TEE] " : "", o->flag,
                   o->props[j].text, o->props[j].reason);
    }
}

static void print_notes(const tb_vm_plan *p)
{
    for (int i = 0; i < p->nnotes; i++)
        fprintf(stderr, "teebench: vm: NOTE: %s\n", p->notes[i]);
}

/* The host: live, or the recording of --from. 0, or an exit code after the message. */
static int host_probe(const vm_args *a, const char *action, tb_vm_host *h)
{
    const char *tmp = getenv("TMPDIR");
    tb_err e;
    if (tb_vm_host_probe_spec(&a->spec, tmp && tmp[0] == '/' ? tmp : "/tmp", a->from, h, &e) < 0)
        return cli_fail(CMD, "%s: --from %s: %s", action, a->from ? a->from : "", e.msg);
    return 0;
}

static int do_dry_run(const vm_args *a, const char *base)
{
    const tb_vm_spec *s = &a->spec;
    tb_vm_host h;
    tb_vm_plan p;
    tb_vm_paths paths;
    tb_vm_cmd cmd;
    tb_err e;
    int rc = host_probe(a, "start", &h);
    if (rc)
        return rc;
    if (tb_vm_plan_make(s, &h, 1, &p, &e) < 0)
        return cli_fail_code(2, CMD, "start: %s", e.msg);
    if (tb_vm_paths_make(base, s->name, &paths, &e) < 0)
        return cli_fail_code(2, CMD, "start: %s", e.msg);
    tb_vm_spec shown = *s;
    if (!shown.ssh_port)
        shown.ssh_port = 2222; /* a real start picks a free port */
    char fmt[16];
    if (shown.image && tb_vm_image_probe(shown.image, fmt, sizeof fmt, &e) == 0)
        shown.image_format = fmt;
    else if (shown.image)
        fprintf(stderr,
                "teebench: vm: NOTE: --image %s: %s; the line leaves its format to QEMU's probe "
                "(a real start reads it from the file)\n",
                shown.image, e.msg);
    if (tb_vm_cmdline(&shown, &p, &paths, &cmd, &e) < 0)
        return cli_fail(CMD, "start: %s", e.msg);
    char **argv = tb_vm_cmd_argv(&cmd);
    char *text = argv ? tb_vm_argv_shell(argv) : NULL;
    tb_vm_argv_free(argv);
    if (!text) {
        tb_vm_cmd_free(&cmd);
        return cli_fail(CMD, "start: out of memory");
    }
    print_notes(&p);
    if (!s->ssh_port)
        fprintf(stderr, "teebench: vm: NOTE: the line shows SSH port 2222; a real start picks a "
                        "free port (--ssh-port to choose)\n");
    printf("%s\n", text);
    free(text);
    if (a->why)
        print_why(&cmd);
    tb_vm_cmd_free(&cmd);
    return 0;
}

static const char *check_status(const tb_vm_check *c)
{
    return c->ok ? "ok" : c->blocking ? "missing" : "note";
}

static int print_checks_json(const tb_vm_spec *s, const tb_vm_host *h, const tb_vm_checks *c)
{
    json_t *arr = json_array();
    for (int i = 0; i < c->n && arr; i++)
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s}", "name", c->c[i].name, "status",
                                             check_status(&c->c[i]), "detail", c->c[i].detail,
                                             "source", c->c[i].source));
    json_t *o =
        json_pack("{s:s, s:s, s:b, s:o, s:s, s:o}", "kind", tb_vm_kind_name(s->kind), "host",
                  h->recorded[0] ? h->recorded : "this machine", "can_start", c->first_missing < 0,
                  "first_missing",
                  c->first_missing < 0 ? json_null() : json_string(c->c[c->first_missing].name),
                  "abi", c->abi, "checks", arr ? arr : json_array());
    char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (!text)
        return cli_fail(CMD, "check: out of memory");
    printf("%s\n", text);
    free(text);
    return c->first_missing < 0 ? 0 : 1;
}

static int do_check(const vm_args *a)
{
    const tb_vm_spec *s = &a->spec;
    if (a->nrest)
        return extra_arg("check", a->rest[0]);
    if (a->from && (s->qemu || s->qemu_kind[0] || s->qemu_kind[1] || s->qemu_kind[2]))
        return cli_fail_code(2, CMD,
                             "check: --qemu and --from: the recording holds that host's QEMU");
    tb_vm_host h;
    int rc = host_probe(a, "check", &h);
    if (rc)
        return rc;
    tb_vm_checks c;
    tb_vm_host_check(s, &h, &c);
    if (a->json)
        return print_checks_json(s, &h, &c);
    printf("vm check --kind %s on %s\n", tb_vm_kind_name(s->kind),
           h.recorded[0] ? h.recorded : "this machine");
    for (int i = 0; i < c.n; i++)
        printf("%-7s  %-14s %s  [%s]\n", check_status(&c.c[i]), c.c[i].name, c.c[i].detail,
               c.c[i].source);
    if (c.abi[0])
        printf("ABI      %s\n", c.abi);
    if (c.first_missing >= 0)
        printf("verdict  --kind %s cannot start here: %s missing\n", tb_vm_kind_name(s->kind),
               c.c[c.first_missing].name);
    else
        printf("verdict  --kind %s can start here%s\n", tb_vm_kind_name(s->kind),
               s->kind == TB_VM_REGULAR && h.kvm != 1 ? " (under TCG emulation: no KVM)" : "");
    return c.first_missing < 0 ? 0 : 1;
}

static void print_started(const tb_vm_state *st)
{
    char url[128];
    tb_vm_ssh_url(st, url, sizeof url);
    printf("vm %s (%s%s): QEMU pid %d, %s\n", st->name,
           st->swiotlb_param[0] ? "regular-swiotlb" : tb_vm_kind_name(st->kind),
           st->tcg ? ", TCG EMULATION" : ", KVM", (int)st->pid, url);
    int reboot = !strcmp(st->swiotlb_how, "seed-reboot");
    printf("booted in %.1f s (%s)\n", (double)st->boot_ns / 1e9,
           reboot ? "the SSH login after the seed's reboot" : "first SSH login");
    if (st->swiotlb_param[0])
        printf("  bounce:     the guest's /proc/cmdline has %s (%s)\n", st->swiotlb_param,
               st->swiotlb_how);
    printf("  ssh:        teebench vm ssh %s [-- CMD]  (key %s, known_hosts %s)\n", st->name,
           st->ssh_key, st->paths.known_hosts);
    printf("  serial log: %s\n  QMP socket: %s\n", st->paths.serial, st->paths.qmp);
}

static int do_start(const vm_args *a, const char *base)
{
    const tb_vm_spec *s = &a->spec;
    tb_err e;
    if (a->why && !a->dry_run)
        return cli_fail_code(2, CMD, "--why: only with --dry-run");
    if (a->from && !a->dry_run)
        return cli_fail_code(2, CMD,
                             "--from: only with --dry-run or vm check (a recorded host starts "
                             "nothing here)");
    if (a->dry_run)
        return do_dry_run(a, base);
    if (tb_vm_spec_check(s, &e) < 0)
        return cli_fail_code(2, CMD, "start: %s", e.msg);
    /* what the host lacks first (the most useful line for a TD on a machine without
       TDX), then the files and the port; the notes only once nothing is refused */
    tb_vm_host h;
    tb_vm_plan p;
    int rc = host_probe(a, "start", &h);
    if (rc)
        return rc;
    if (tb_vm_plan_make(s, &h, 0, &p, &e) < 0)
        return cli_fail(CMD, "start: %s", e.msg);
    if (tb_vm_preflight(s, base, &e) < 0)
        return cli_fail(CMD, "start: %s", e.msg);
    print_notes(&p);
    fflush(stderr);
    tb_vm_state st;
    if (tb_vm_start(s, &p, base, &st, &e) < 0)
        return cli_fail(CMD, "start %s: %s", s->name, e.msg);
    print_started(&st);
    tb_vm_state_free(&st);
    return 0;
}

/* VM name's state (the caller frees it) for action: 0, or exit code 1 with the line
   "<action>: why". */
static int load(const char *base, const char *name, const char *action, tb_vm_state *st)
{
    tb_err e;
    if (tb_vm_load(base, name, st, &e) < 0)
        return cli_fail(CMD, "%s: %s", action, e.msg);
    return 0;
}

static int do_stop(const vm_args *a, const char *base, const char *name)
{
    tb_vm_state st;
    tb_err e;
    if (load(base, name, "stop", &st))
        return 1;
    pid_t pid = st.pid;
    tb_vm_stop_how how;
    int rc = tb_vm_stop(&st, a->timeout_s * 1000, &how, &e);
    tb_vm_state_free(&st);
    if (rc < 0)
        return cli_fail(CMD, "stop %s: %s", name, e.msg);
    static const char *const said[] = {
        "was not running", "stopped: the guest powered off (QMP system_powerdown)",
        "stopped: QMP quit after the guest did not power off in time",
        "stopped: SIGKILL (QMP did not answer)"};
    if (how == TB_VM_STOP_NOT_RUNNING)
        printf("vm %s %s\n", name, said[how]);
    else
        printf("vm %s (QEMU pid %d) %s\n", name, (int)pid, said[how]);
    return 0;
}

static int do_list(const char *base)
{
    char **names;
    tb_err e;
    if (tb_vm_list(base, &names, &e) < 0)
        return cli_fail(CMD, "list: %s", e.msg);
    if (!names[0])
        printf("no VMs in %s\n", base);
    else
        printf("%-16s %-8s %-5s %-8s %-8s %-30s %s\n", "NAME", "KIND", "ACCEL", "STATE", "PID",
               "SSH", "BOOT");
    for (char **n = names; *n; n++) {
        tb_vm_state st;
        if (tb_vm_load(base, *n, &st, &e) < 0) {
            printf("%-16s (unreadable: %s)\n", *n, e.msg);
            continue;
        }
        char url[128], boot[32] = "-";
        tb_vm_ssh_url(&st, url, sizeof url);
        if (st.boot_ns)
            snprintf(boot, sizeof boot, "%.1f s", (double)st.boot_ns / 1e9);
        int alive = tb_vm_alive(&st);
        printf("%-16s %-8s %-5s %-8s %-8d %-30s %s\n", st.name, tb_vm_kind_name(st.kind),
               st.tcg ? "TCG" : "KVM", alive ? "running" : "stopped", alive ? (int)st.pid : 0, url,
               boot);
        tb_vm_state_free(&st);
    }
    tb_vm_argv_free(names);
    return 0;
}

static int do_show(const vm_args *a, const char *base, const char *name)
{
    tb_vm_state st;
    if (load(base, name, "show", &st))
        return 1;
    int alive = tb_vm_alive(&st);
    if (a->json) {
        json_t *o = tb_vm_state_json(&st);
        json_object_set_new(o, "running", json_boolean(alive));
        char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                       JSON_REAL_PRECISION(CLI_JSON_REAL_DIGITS));
        json_decref(o);
        tb_vm_state_free(&st);
        if (!text)
            return cli_fail(CMD, "show: out of memory");
        printf("%s\n", text);
        free(text);
        return 0;
    }
    char url[128];
    tb_vm_ssh_url(&st, url, sizeof url);
    printf("name        %s\n", st.name);
    printf("kind        %s, %s\n", tb_vm_kind_name(st.kind),
           st.tcg ? "TCG EMULATION (no performance figure from it means anything)" : "KVM");
    if (alive)
        printf("state       running (QEMU pid %d)\n", (int)st.pid);
    else
        printf("state       stopped\n");
    printf("ssh         %s (key %s, known_hosts %s)\n", url, st.ssh_key, st.paths.known_hosts);
    if (st.boot_ns)
        printf("boot time   %.1f s (vm start to the first SSH login)\n", (double)st.boot_ns / 1e9);
    printf("started at  %s\n", st.started_at);
    printf("cpus        %d\nmemory      %" PRIu64 " MiB\n", st.cpus, st.memory >> 20);
    if (st.qemu_path[0])
        printf("qemu        %s (%s; sha256 %s)\n", st.qemu_path,
               st.qemu_version[0] ? st.qemu_version : "version unknown",
               st.qemu_sha256[0] ? st.qemu_sha256 : "unknown");
    if (st.firmware[0])
        printf("firmware    %s (sha256 %s)\n", st.firmware,
               st.firmware_sha256[0] ? st.firmware_sha256 : "unknown");
    printf("serial log  %s\nQMP socket  %s\nqemu log    %s\nrun dir     %s\n", st.paths.serial,
           st.paths.qmp, st.paths.qemu_log, st.paths.dir);
    char *text = st.argv ? tb_vm_argv_shell(st.argv) : NULL;
    printf("command line:\n%s\n", text ? text : "(none)");
    free(text);
    tb_vm_state_free(&st);
    return 0;
}

static int do_ssh(const vm_args *a, const char *base)
{
    if (a->nrest < 1)
        return cli_fail_code(2, CMD, "ssh: needs a VM name (teebench vm ssh NAME [-- CMD])");
    tb_vm_state st;
    if (load(base, a->rest[0], "ssh", &st))
        return 1;
    if (!tb_vm_alive(&st)) {
        tb_vm_state_free(&st);
        return cli_fail(CMD, "ssh: VM %s is not running", a->rest[0]);
    }
    char **argv = tb_vm_ssh_argv(&st, a->rest + 1);
    tb_vm_state_free(&st);
    if (!argv)
        return cli_fail(CMD, "ssh: out of memory");
    fflush(stdout);
    execvp(argv[0], argv);
    int err = errno;
    tb_vm_argv_free(argv);
    return cli_fail(CMD, "ssh: cannot run ssh: %s (install openssh-client)", strerror(err));
}

/* vm seed FILE: the cloud-init NoCloud seed alone, for a VM started elsewhere. */
static int do_seed(const vm_args *a)
{
    if (a->nrest != 1)
        return cli_fail_code(2, CMD,
                             "seed: needs one output file (teebench vm seed FILE "
                             "--ssh-key K.pub)");
    if (!a->spec.ssh_key)
        return cli_fail_code(2, CMD, "seed: --ssh-key K.pub: the public key to authorize");
    char pub[PATH_MAX];
    size_t n = strlen(a->spec.ssh_key);
    if (snprintf(pub, sizeof pub, "%s%s", a->spec.ssh_key,
                 n > 4 && !strcmp(a->spec.ssh_key + n - 4, ".pub") ? "" : ".pub") >=
        (int)sizeof pub)
        return cli_fail_code(2, CMD, "seed: --ssh-key: path too long");
    tb_buf key = {0}, img = {0};
    tb_err e;
    if (tb_file_read(pub, 64 << 10, &key, &e) < 0)
        return cli_fail(CMD, "seed: %s", e.msg);
    tb_vm_seed_cfg c = {.user = a->spec.ssh_user,
                        .pubkey = (const char *)key.p,
                        .hostname = a->hostname ? a->hostname : "teebench",
                        .comment = "written by teebench vm seed"};
    int rc = tb_vm_seed_image(&c, (int64_t)time(NULL), &img, &e) < 0 ||
                     tb_file_write_atomic(a->rest[0], img.p, img.len, &e) < 0
                 ? cli_fail(CMD, "seed: %s", e.msg)
                 : 0;
    if (rc == 0)
        printf("wrote %s: a cloud-init NoCloud seed (ISO 9660, label %s, %zu KiB) authorizing "
               "%s for %s\n",
               a->rest[0], TB_VM_SEED_LABEL, img.len >> 10, pub, a->spec.ssh_user);
    tb_buf_clear(&key);
    tb_buf_clear(&img);
    return rc;
}

int cmd_vm(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr, &cli_vm_cmd);
        return 2;
    }
    const char *action = argv[1];
    if (!strcmp(action, "-h") || !strcmp(action, "--help")) {
        usage(stdout, &cli_vm_cmd);
        return 0;
    }
    static const char *const actions[] = {"start", "stop", "list",  "ssh", "show",
                                          "check", "seed", "image", NULL};
    if (strcmp(action, "start") && strcmp(action, "stop") && strcmp(action, "list") &&
        strcmp(action, "ssh") && strcmp(action, "show") && strcmp(action, "check") &&
        strcmp(action, "seed") && strcmp(action, "image"))
        return cli_unknown_subcommand(CMD, action, actions);
    if (!strcmp(action, "image"))
        return cli_vm_image(argc - 1, argv + 1);
    vm_args a = {.timeout_s = 60};
    tb_vm_spec_init(&a.spec);
    int rc = parse_args(argc - 1, argv + 1, &a);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (!strcmp(action, "check"))
        return do_check(&a);
    if (a.from && strcmp(action, "start"))
        return cli_fail_code(2, CMD, "%s: --from is for check and start --dry-run", action);
    char base[PATH_MAX];
    if ((rc = base_dir(&a, base, sizeof base)) != 0)
        return rc;
    const char *name = NULL;
    if (!strcmp(action, "list")) {
        if (a.nrest)
            return extra_arg("list", a.rest[0]);
        return do_list(base);
    }
    if (!strcmp(action, "ssh"))
        return do_ssh(&a, base);
    if (!strcmp(action, "seed"))
        return do_seed(&a);
    if ((rc = one_name(&a, action, &name)) != 0)
        return rc;
    if (!strcmp(action, "start")) {
        if (strlen(name) > TB_VM_NAME_MAX)
            return cli_fail_code(2, CMD, "start: '%s': a VM name has at most %d characters", name,
                                 TB_VM_NAME_MAX);
        snprintf(a.spec.name, sizeof a.spec.name, "%s", name);
        return do_start(&a, base);
    }
    if (!strcmp(action, "stop"))
        return do_stop(&a, base, name);
    return do_show(&a, base, name);
}
