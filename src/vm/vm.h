/* vm: start a regular VM, an Intel TDX trust domain or an AMD SEV-SNP guest with
 * QEMU from one description, so that they differ only in the TEE.
 *
 * Layers (one file each):
 * - spec.c     the description (tb_vm_spec): kinds, sizes, CPU lists, names;
 * - qemu.c     what a QEMU build says it can do (vm/qemu.h: -object help, the TEE
 *              objects' properties through QMP), found per distribution;
 * - firmware.c what an OVMF file can boot (vm/firmware.h: its GUIDed table's TDVF
 *              and SEV metadata), and where distributions put OVMF;
 * - host.c     what the host can do (tb_vm_host: sys/env's KVM facts -- usable,
 *              kvm_intel tdx, kvm_amd sev_snp, the VM types KVM offers, /dev/sev,
 *              CPUID 0x8000001F -- plus each kind's QEMU and firmware), live or from
 *              a recording (`teebench env --record`); the pure checks
 *              (tb_vm_host_check: one line each, ok or missing, and where it was
 *              read) and the pure decision tb_vm_plan_make (accelerator, refusal
 *              with the first missing check, the TEE object's properties, notes);
 * - cmdline.c  the pure command line tb_vm_cmdline(spec, plan, paths): every
 *              option with the reason it is there;
 * - format.c   a disk image's format from its first bytes (QEMU's probes);
 * - seed.c     the cloud-init NoCloud seed (seed.h): user-data, meta-data and
 *              the ISO 9660 image that carries them;
 * - image.c    `vm image`: a guest image built from a distribution's archive
 *              (image.h);
 * - boot.c     the boot's phases from the guest's own account at its first login
 *              (boot.h);
 * - qmp.c      a small QMP client (qmp.h);
 * - state.c    the run directory and its state file (vm.json);
 * - vm.c       start (seed, QEMU -daemonize, pinning, wait until `ssh true`
 *              runs, then the boot probe), stop, ssh argv.
 *
 * Invariants:
 * - The three kinds share every option except the TEE's own: tdx adds the
 *   tdx-guest object and confidential-guest-support, snp the sev-snp-guest
 *   object and confidential-guest-support. Everything else (machine, CPU model,
 *   irqchip, HPET, SMM, memory backend and size, firmware, devices, SSH
 *   forwarding, pinning) comes from the same code path for every kind.
 * - Whether a kind can start is decided by probed capabilities only; a version
 *   number appears in messages, never in a decision.
 * - tdx and snp never run under TCG; regular falls back to TCG only when KVM is
 *   unusable (or --accel tcg), and then the plan carries a loud note and the
 *   state says "tcg": true, so no figure from such a guest passes for real.
 * - Everything a VM touches is under its run directory <dir>/<name>/ (state,
 *   QMP socket, serial log, QEMU's own log, pid file, SSH key, known_hosts);
 *   nothing global is written. The base dir is created 0700.
 * - A failed start leaves nothing running (QEMU is killed) and no vm.json.
 * - A pid counts as this VM's QEMU only while /proc/<pid>/cmdline holds the
 *   VM's own pid file path (pid reuse never makes us signal a stranger).
 * Nothing here prints; errors fill tb_err. */
#ifndef TB_VM_VM_H
#define TB_VM_VM_H

#include <jansson.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "vm/boot.h"
#include "vm/firmware.h"
#include "vm/qemu.h"

typedef enum { TB_VM_REGULAR = 0, TB_VM_TDX = 1, TB_VM_SNP = 2 } tb_vm_kind;
typedef enum { TB_VM_ACCEL_AUTO = 0, TB_VM_ACCEL_KVM = 1, TB_VM_ACCEL_TCG = 2 } tb_vm_accel;
typedef enum { TB_VM_VSOCK_AUTO = -1, TB_VM_VSOCK_OFF = 0, TB_VM_VSOCK_ON = 1 } tb_vm_vsock;

#define TB_VM_MAX_CPUS 256
#define TB_VM_NAME_MAX 32
#define TB_VM_KINDS 3
#define TB_VM_SNP_DEFAULT_POLICY 0x30000u /* bit 17 must be one, bit 16 allows SMT */
/* The guest's reduced-phys-bits: 1 whatever the host's CPUID says (AMD APM vol. 2
   15.34.6; QEMU's SNP examples; kata-containers#5007). */
#define TB_VM_SNP_REDUCED_PHYS_BITS 1

/* The description of one VM. Strings are borrowed: they must outlive every call
 * that receives the spec. tb_vm_spec_init sets the defaults. */
typedef struct tb_vm_spec {
    char name[TB_VM_NAME_MAX + 1]; /* [A-Za-z0-9_.-], not starting with '.' or '-' */
    tb_vm_kind kind;
    tb_vm_accel accel;
    const char *qemu;                   /* binary for every kind; NULL: found per distribution
                                           (qemu-system-x86_64 in PATH, /usr/libexec/qemu-kvm) */
    const char *qemu_kind[TB_VM_KINDS]; /* --qemu KIND=BIN: that kind's, over qemu */
    const char *image;                  /* disk image (any format QEMU reads), or NULL */
    const char *image_format; /* its format from its content (tb_vm_image_probe; the caller
                                 fills it: the command line stays pure); NULL: not known,
                                 the line leaves it to QEMU's probe */
    const char *kernel;       /* direct kernel boot, or NULL (image or kernel required) */
    const char *initrd;       /* only with kernel */
    const char *append;       /* extra kernel command line, only with kernel */
    const char *firmware;     /* OVMF for every kind; NULL: found per distribution (the first
                                 place whose file suits the kind); "none": QEMU's own BIOS */
    const char *firmware_kind[TB_VM_KINDS]; /* --firmware KIND=FILE */
    const char *cpu;                        /* -cpu model; NULL: "host" (KVM) or "max" (TCG) */
    int cpus;                               /* vCPUs, default 2 */
    uint64_t memory;                        /* bytes, a multiple of 1 MiB; default 4 GiB */
    int pin[TB_VM_MAX_CPUS];                /* host CPU of vCPU i, when npin == cpus */
    int npin;                               /* 0: no pinning */
    int prealloc;                           /* preallocate guest memory (prealloc=on) */
    int snapshot;          /* image writes go to a temporary overlay (snapshot=on) */
    int ssh_port;          /* host port forwarded to the guest's 22; 0: pick a free one */
    const char *ssh_user;  /* default "root" */
    const char *ssh_key;   /* private key the guest accepts; NULL: a fresh one in the run dir */
    int seed;              /* attach the cloud-init NoCloud seed (seed.iso in the run dir,
                              the key's public half for ssh_user); default 1 */
    tb_vm_vsock vsock;     /* vhost-vsock-pci: auto = when the host has /dev/vhost-vsock */
    unsigned vsock_cid;    /* guest CID; 0: the SSH port (unique on this host) */
    int cbitpos;           /* SNP C-bit position; -1: from the host's CPUID 0x8000001F */
    int reduced_phys_bits; /* SNP; -1: TB_VM_SNP_REDUCED_PHYS_BITS */
    uint32_t snp_policy;   /* default TB_VM_SNP_DEFAULT_POLICY */
    int boot_timeout_s;    /* wait for the first `ssh true` to run; default 300 */
    int auth_grace_s;      /* once the guest's sshd answers but refuses the key, how long
                              to keep trying before saying so; default 60 */
    /* NULL, or a caller's flag (a signal handler sets it): once *stop is non-zero a
       tb_vm_start in progress gives up like any failed start (QEMU killed). */
    const volatile sig_atomic_t *stop;
    /* Forced bounce buffering (kind regular only: "regular-swiotlb"): 0 none; else the
       guest boots with swiotlb=<nslabs>,force, a pool of this many bytes (rounded up to
       whole 128-slab segments of 2 KiB slabs); TB_VM_SWIOTLB_AUTO: the pool a TD or SEV
       guest of this memory size gets (tb_vm_swiotlb_pool). */
    uint64_t swiotlb;
} tb_vm_spec;

/* ---- forced bounce buffering (regular-swiotlb) ----
 *
 * Every virtio device on the line has iommu_platform=on for every kind (cmdline.c), so
 * a regular VM's virtio drivers already go through the DMA API; what makes a regular
 * VM's I/O take the bounce path a TD's or SNP guest's takes is the guest kernel
 * parameter swiotlb=<nslabs>,force (Documentation/admin-guide/kernel-parameters.txt:
 * "swiotlb= [ARM,PPC,MIPS,X86,S390,EARLY] Format: { <int> [,<int>] | force | noforce
 * }"; the first number is the pool in slabs of 2 KiB, IO_TLB_SHIFT 11, rounded up to
 * IO_TLB_SEGSIZE 128). A TD's or SEV guest's kernel sizes its pool to 6 % of its
 * memory, clamped to [64 MiB, 1 GiB] (arch/x86/mm/mem_encrypt.c
 * mem_encrypt_setup_arch), so that is the default pool here. With --kernel the
 * parameter is appended to -append ("append"); with an image booted by its own boot
 * loader the seed's user-data sets it in the boot loader's configuration and reboots
 * once ("seed-reboot"). Either way tb_vm_start reads the guest's /proc/cmdline and
 * fails unless it carries the parameter. */
#define TB_VM_SWIOTLB_AUTO UINT64_MAX
#define TB_VM_SWIOTLB_SLAB 2048u   /* bytes (IO_TLB_SIZE) */
#define TB_VM_SWIOTLB_SEGSIZE 128u /* slabs (IO_TLB_SEGSIZE) */
/* The pool of spec s in bytes (its nslabs * 2 KiB); 0 when s forces none. */
uint64_t tb_vm_swiotlb_pool(const tb_vm_spec *s);
/* The pool a TD / SEV guest of memory bytes gets: 6 %, clamped to [64 MiB, 1 GiB]. */
uint64_t tb_vm_swiotlb_cvm_pool(uint64_t memory);
/* Slabs for a pool of bytes: whole 2 KiB slabs, rounded up to 128-slab segments. */
uint64_t tb_vm_swiotlb_nslabs(uint64_t bytes);
/* "swiotlb=32768,force" for s into out ("" when s forces none). */
void tb_vm_swiotlb_param(const tb_vm_spec *s, char *out, size_t len);
/* How s's guest gets the parameter: "append" (--kernel), "seed-reboot" (an image and
   the seed), NULL (none forced). */
const char *tb_vm_swiotlb_how(const tb_vm_spec *s);
/* A kind as the user writes it: "regular", "tdx", "snp", "regular-swiotlb" or
   "regular-swiotlb:SIZE" (SIZE as tb_vm_parse_size: 256M). *swiotlb: 0, the size, or
   TB_VM_SWIOTLB_AUTO. 0, or -1 with err. */
int tb_vm_kind_parse_ext(const char *s, tb_vm_kind *kind, uint64_t *swiotlb, tb_err *err);
/* "regular-swiotlb" when s forces bounce buffering, else tb_vm_kind_name. */
const char *tb_vm_spec_kind_label(const tb_vm_spec *s);

void tb_vm_spec_init(tb_vm_spec *s);
/* 1 when name is a valid VM name (it is also a directory name under the run dir). */
int tb_vm_name_ok(const char *name);
/* Checks the spec alone (no host access): name, kind/accel combination, boot
 * source, sizes, pin list length. Returns 0, or -1 with one line in err. */
int tb_vm_spec_check(const tb_vm_spec *s, tb_err *err);

const char *tb_vm_kind_name(tb_vm_kind k); /* "regular", "tdx", "snp" */
int tb_vm_kind_parse(const char *s, tb_vm_kind *out);
int tb_vm_accel_parse(const char *s, tb_vm_accel *out); /* "auto", "kvm", "tcg" */
/* "4G", "512M", "1073741824B", "4096" (bare: MiB, like QEMU's -m). */
int tb_vm_parse_size(const char *s, uint64_t *out, tb_err *err);
/* "2,3", "4-7", "0,2-3": into cpus (at most max); duplicates refused. */
int tb_vm_parse_cpulist(const char *s, int *cpus, int max, int *n, tb_err *err);
/* The size as QEMU reads it back: "4G", "1536M". out needs 32 bytes. */
void tb_vm_size_text(uint64_t bytes, char *out, size_t len);
/* The QEMU / firmware the spec names for kind k (its KIND= value, else the common
   one); NULL: found per distribution. */
const char *tb_vm_spec_qemu(const tb_vm_spec *s, tb_vm_kind k);
const char *tb_vm_spec_firmware(const tb_vm_spec *s, tb_vm_kind k);

/* ---- the host ---- */

/* What the host offers. -1 means unknown. Gathered by tb_vm_host_probe_spec (live
 * or from a recording), or filled by hand (tests). */
typedef struct tb_vm_host {
    char recorded[1024]; /* "": this machine; else the recording's directory */
    int kvm;             /* /dev/kvm usable: 1/0 */
    char kvm_why[200];   /* the fact: "usable (API 12)", "absent", ... */
    char kvm_src[240];   /* where it was read: "/dev/kvm: No such file or directory" */
    int tdx;             /* KVM can host TDs (kvm_intel tdx=Y): 1/0/-1 */
    char tdx_why[240];
    int snp; /* KVM can host SNP guests (kvm_amd sev_snp=Y) */
    char snp_why[240];
    long long vm_types; /* KVM_CAP_VM_TYPES bits; 0: not offered; -1: unknown */
    char vm_types_why[240];
    int intel, amd;                          /* the CPU's vendor (cpu_vendor) */
    int dev_sev;                             /* /dev/sev read-write: 1/0/-1 */
    char dev_sev_why[240], dev_sev_src[240]; /* the fact ("absent", ...), where */
    int cbitpos;                             /* CPUID 0x8000001F EBX[5:0]; -1: none */
    char cbitpos_why[240];
    int vhost_vsock;               /* /dev/vhost-vsock usable: 1/0 */
    tb_vm_qemu qemu[TB_VM_KINDS];  /* each kind's QEMU */
    tb_vm_fw fw[TB_VM_KINDS];      /* each kind's firmware (path "none": QEMU's BIOS) */
    char fw_how[TB_VM_KINDS][400]; /* how it was chosen */
} tb_vm_host;

/* Fills the kernel facts (kvm, tdx, snp, vm_types, vendor, dev_sev, cbitpos and their
 * reasons) from a `teebench env --json` document (sys/env's tb_env_json): facts
 * "kvm", "tdx_host", "sev_snp_host", "kvm_vm_types", "cpu_vendor", "sev_device",
 * "sev_cbitpos". Pure. */
void tb_vm_host_from_env(const json_t *env, tb_vm_host *h);
/* The host for spec: the kernel facts (sys/env), each kind's QEMU (vm/qemu: found,
 * probed) and firmware (vm/firmware: given, or chosen among the distributions'
 * places), /dev/vhost-vsock. With from (a directory `teebench env --record` wrote)
 * everything comes from that recording instead (spec's QEMU is then ignored: the
 * recording holds that host's). Fails only for a recording that is missing, of
 * another schema version, or malformed. */
int tb_vm_host_probe_spec(const tb_vm_spec *s, const char *tmpdir, const char *from, tb_vm_host *h,
                          tb_err *err);
/* Records what tb_vm_host_probe_spec reads beyond sys/env into dir/vm/: the QEMU
 * found per distribution (its probe answers), the firmware at the distributions'
 * places (their facts, firmware.json), /dev/vhost-vsock, a schema line. */
int tb_vm_host_record(const char *dir, tb_err *err);
/* "teebench-vm-host 1", the recording's schema line. */
#define TB_VM_HOST_SCHEMA "teebench-vm-host 1"

/* Pure: picks kind k's firmware among the places' facts cands[0..n) (in
 * tb_vm_fw_places order): tdx the first with TDVF metadata, snp the first with SNP
 * pages, regular the one the TEE kind this host runs would pick (so firmware is no
 * difference), else any OVMF. host_tee: 0 none, TB_VM_TDX, TB_VM_SNP. Returns the
 * index, or -1 when no file is there; how says why. */
int tb_vm_fw_choose(tb_vm_kind k, const tb_vm_fw *cands, int n, int host_tee, char *how,
                    size_t how_len);

/* One check of `teebench vm check` (and of every start). */
typedef struct tb_vm_check {
    const char *name; /* "kvm", "kvm-tdx", "qemu-tdx", "firmware", ... (static) */
    int ok;
    int blocking;     /* a missing one refuses the start (else: a note, e.g. TCG) */
    char detail[600]; /* what was found, or what is missing and what to do */
    char source[400]; /* where it was read */
} tb_vm_check;
typedef struct tb_vm_checks {
    tb_vm_check c[16];
    int n;
    int first_missing; /* index of the first blocking missing check, -1: can start */
    char abi[300];     /* tdx/snp: the KVM ABI found ("" for regular) */
} tb_vm_checks;
/* Pure: the checks of spec's kind on h, in order (the host's kernel, then QEMU, then
 * firmware). */
void tb_vm_host_check(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_checks *out);

/* The decision for one spec on one host. */
typedef struct tb_vm_plan {
    int tcg;                        /* run under TCG (never for tdx/snp) */
    int vsock;                      /* include vhost-vsock-pci */
    int cbitpos, reduced_phys_bits; /* the values used for snp */
    int cbit_placeholder; /* 1: no CPUID 0x8000001F and no flag: a placeholder (dry run) */
    char qemu[1024];      /* the binary */
    char qemu_version[200], qemu_sha256[65]; /* its first --version line, its hash */
    char firmware[1024]; /* the OVMF file; "": QEMU's own BIOS (--firmware none) */
    char firmware_sha256[65];
    char firmware_how[400];
    const char *cpu;                   /* the -cpu model */
    int tdx_qgs, tdx_sept, snp_policy; /* the TEE object's optional properties to pass */
    int props_assumed;  /* dry run: the build's list is unknown, upstream QEMU's shown */
    char notes[6][480]; /* loud notes the cli prints on stderr (TCG, vsock left out) */
    int nnotes;
} tb_vm_plan;

/* Pure. With dry_run, missing host support is not an error (the command line is
 * still made, e.g. to show a TD's on any machine); without it, a spec whose checks
 * (tb_vm_host_check) have a blocking missing one is refused with one line naming
 * that check, what it found and where. tdx/snp with --accel tcg is refused either
 * way. */
int tb_vm_plan_make(const tb_vm_spec *s, const tb_vm_host *h, int dry_run, tb_vm_plan *p,
                    tb_err *err);

/* ---- images ---- */

/* Pure: the format QEMU's probes find in an image's first bytes (len: up to 2048,
   fewer for a shorter file): "qcow2", "qcow", "qed", "vmdk", "vdi", "vhdx", "vpc",
   "parallels", "bochs", "cloop" or "raw" (a static string). NULL with err for an
   encrypted image (LUKS, encrypted qcow2), which QEMU opens only with a key
   teebench does not have. */
const char *tb_vm_image_format(const uint8_t *head, size_t len, tb_err *err);
/* Reads path's first bytes and names its format into fmt. -1 with err when the
   file cannot be read, is a directory, is smaller than one 512-byte sector, or is
   refused by tb_vm_image_format. */
int tb_vm_image_probe(const char *path, char *fmt, size_t len, tb_err *err);

/* ---- the command line ---- */

/* Paths of one VM's run directory (<dir>/<name>/...). */
typedef struct tb_vm_paths {
    char dir[1024];         /* <base>/<name> */
    char state[1100];       /* vm.json */
    char qmp[108];          /* qmp.sock (sun_path limit) */
    char serial[1100];      /* serial.log */
    char qemu_log[1100];    /* qemu.log: QEMU's stderr until it daemonizes */
    char pidfile[1100];     /* qemu.pid */
    char key[1100];         /* id_ed25519 (when teebench makes the key) */
    char seed[1100];        /* seed.iso: the cloud-init NoCloud seed */
    char known_hosts[1100]; /* known_hosts */
} tb_vm_paths;
/* Fails when a path would be too long (the QMP socket must fit in 107 bytes). */
int tb_vm_paths_make(const char *base, const char *name, tb_vm_paths *p, tb_err *err);

/* One option: flag and the properties of its value, each with a reason. The
 * value is the properties joined with ','; a flag without value has none. */
typedef struct tb_vm_prop {
    char *text;         /* "kernel-irqchip=split" (owned) */
    const char *reason; /* static text: why this is here */
    int tee;            /* 1: only the TEE kind has it */
} tb_vm_prop;
typedef struct tb_vm_opt {
    const char *flag; /* "-machine" (static) */
    tb_vm_prop props[8];
    int nprops;
    const char *reason; /* for flags without value, or for the option as a whole */
    int tee;            /* 1: the whole option exists only for the TEE kind */
    char sep;           /* joins the properties: 0 is ',' (QemuOpts); ' ' for -append */
} tb_vm_opt;
typedef struct tb_vm_cmd {
    char *qemu; /* argv[0] (owned) */
    tb_vm_opt *opts;
    int nopts, cap;
} tb_vm_cmd;

/* Pure: the QEMU command line of spec under plan, with paths of its run dir.
 * The ssh key's public half is <key>.pub (spec->ssh_key or paths->key); with
 * spec->seed the line attaches paths->seed (tb_vm_start writes it). On
 * success the caller owns cmd (tb_vm_cmd_free). */
int tb_vm_cmdline(const tb_vm_spec *s, const tb_vm_plan *p, const tb_vm_paths *paths,
                  tb_vm_cmd *cmd, tb_err *err);
void tb_vm_cmd_free(tb_vm_cmd *cmd);
/* A NULL-terminated argv (caller frees with tb_vm_argv_free). NULL when out of memory. */
char **tb_vm_cmd_argv(const tb_vm_cmd *cmd);
/* Frees an argv of this module (base/argv's tb_argv_free). */
void tb_vm_argv_free(char **argv);
/* argv as one shell line, each word quoted when needed, options on their own
 * continuation lines ("\\\n  "); NUL-terminated into a new string (caller frees). */
char *tb_vm_argv_shell(char *const *argv);

/* ---- state ---- */

/* What vm.json says about one VM. Owns argv. */
typedef struct tb_vm_state {
    char name[TB_VM_NAME_MAX + 1];
    tb_vm_kind kind;
    int tcg;
    pid_t pid; /* QEMU's pid (0 when it never ran) */
    int ssh_port;
    char ssh_user[64];
    char ssh_key[1100]; /* private key path */
    tb_vm_paths paths;
    int cpus;
    uint64_t memory;
    char started_at[32]; /* ISO 8601 UTC */
    uint64_t boot_ns;    /* vm start to the first `ssh true` that ran; 0 when unknown */
    /* boot_ns's phases (vm/boot.h; -1: unknown; all -1 in a vm.json without them) and
       how they were split */
    int64_t boot_phase_ns[TB_VM_BOOT_NPHASES];
    char boot_note[400];
    char **argv; /* QEMU's argv (owned, NULL-terminated) or NULL */
    /* what ran, for a result's environment facts ("" when unknown; optional in vm.json) */
    char qemu_path[1024], qemu_version[200], qemu_sha256[65];
    char firmware[1024], firmware_sha256[65]; /* firmware "": QEMU's own BIOS */
    /* forced bounce buffering (optional in vm.json): the parameter asked for ("" none),
       how it was set ("append" | "seed-reboot"), the pool in bytes, and the guest's
       /proc/cmdline read once it booted (the proof) */
    char swiotlb_param[64], swiotlb_how[16];
    uint64_t swiotlb_pool;
    char guest_cmdline[1024];
} tb_vm_state;

void tb_vm_state_free(tb_vm_state *st);
/* The state as JSON (new reference). */
json_t *tb_vm_state_json(const tb_vm_state *st);
/* Reads <base>/<name>/vm.json. Fails with one line when absent or malformed. */
int tb_vm_load(const char *base, const char *name, tb_vm_state *st, tb_err *err);
/* Parses a state document (pure; strict: wrong types and missing keys fail). */
int tb_vm_state_parse(const char *text, size_t len, tb_vm_state *st, tb_err *err);
/* Writes st to its paths.state atomically. */
int tb_vm_state_save(const tb_vm_state *st, tb_err *err);
/* Names of the VMs under base (directories with a vm.json), sorted; *names is a
 * NULL-terminated array the caller frees with tb_vm_argv_free. A missing base
 * gives an empty list. */
int tb_vm_list(const char *base, char ***names, tb_err *err);
/* 1 when st->pid is alive and is this VM's QEMU, else 0. */
int tb_vm_alive(const tb_vm_state *st);
/* The default base dir: $XDG_RUNTIME_DIR/teebench/vm, else
 * $HOME/.local/state/teebench/vm (base/paths' rule). */
int tb_vm_default_dir(char *out, size_t len, tb_err *err);

/* ---- lifecycle ---- */

/* Checks that need the host but start nothing: the name is not running, the
 * SSH port is free on 127.0.0.1 (when given), boot files and firmware are
 * readable, the run dir paths fit. */
int tb_vm_preflight(const tb_vm_spec *s, const char *base, tb_err *err);

/* Starts the VM: run dir, SSH key (unless given), the cloud-init seed (with
 * spec->seed: written before QEMU starts; a seed that cannot be written fails
 * the start), QEMU -daemonize with the command line, pinning (vCPU threads
 * one-to-one to spec->pin through QMP query-cpus-fast, QEMU's other threads off
 * those CPUs; QEMU starts paused with -S and continues after pinning), then waits
 * until `ssh ... true` runs in the guest (BatchMode, the VM's key and user) up to
 * spec->boot_timeout_s: a banner alone is not a boot, a login is. st->boot_ns is
 * the time from the call to that first successful login. A guest whose sshd
 * answers but refuses the key for spec->auth_grace_s fails with one line naming
 * the three ways to give it a key (cloud-init reading the seed, a guest reading
 * the fw_cfg key, --ssh-key of a key it accepts). On failure -- also when
 * *spec->stop becomes non-zero ("interrupted") -- QEMU is killed and vm.json
 * removed; err says why (QEMU's own first error line, ssh's, or where the serial
 * log is). On success st is filled and saved (caller frees). */
int tb_vm_start(const tb_vm_spec *s, const tb_vm_plan *p, const char *base, tb_vm_state *st,
                tb_err *err);

/* How tb_vm_stop ended the VM. */
typedef enum {
    TB_VM_STOP_NOT_RUNNING = 0, /* it was not running */
    TB_VM_STOP_POWERDOWN = 1,   /* the guest powered off after system_powerdown */
    TB_VM_STOP_QUIT = 2,        /* QMP quit after the timeout */
    TB_VM_STOP_KILLED = 3       /* SIGKILL */
} tb_vm_stop_how;
/* QMP system_powerdown, up to timeout_ms for QEMU to exit, then QMP quit, then
 * SIGKILL. Removes the QMP socket and pid file; vm.json stays (pid 0). */
int tb_vm_stop(tb_vm_state *st, int timeout_ms, tb_vm_stop_how *how, tb_err *err);

/* "ssh://root@127.0.0.1:PORT" into out. */
int tb_vm_ssh_url(const tb_vm_state *st, char *out, size_t len);
/* The ssh(1) argv to run cmd (NULL-terminated, may be empty: a login shell) in
 * the VM: BatchMode, the VM's key (IdentitiesOnly), its own known_hosts with
 * StrictHostKeyChecking=accept-new (the first answer pins the guest's key).
 * Caller frees with tb_vm_argv_free; NULL when out of memory. */
char **tb_vm_ssh_argv(const tb_vm_state *st, char *const *cmd);

#endif
