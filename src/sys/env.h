/* env: what machine this is -- bare metal, a VM (and whose), a TDX guest, an
 * SEV / SEV-ES / SEV-SNP guest; whether it can host TDs or SNP guests; CPU,
 * memory, kernel, clock source, vulnerability mitigations, /dev/kvm and the VM types
 * its KVM offers, /dev/sev.
 *
 * Invariants: every fact carries the place it was read from ("source"), and a
 * fact that could not be read is the string "unknown" (with the reason in its
 * source), never a guess. Detection never fails hard and runs no external
 * program. The parsers below are pure functions of text (cpuinfo, kernel log,
 * sysfs values), so tests feed them recorded samples; tb_env_json gathers the
 * live inputs and combines them with the same functions. */
#ifndef TB_SYS_ENV_H
#define TB_SYS_ENV_H

#include <jansson.h>

#include "base/err.h"

/* Detects this machine and returns a new JSON object (caller json_decref()s it), the same
   document `teebench env --json` prints. Never fails hard: unreadable facts are "unknown".
   Returns NULL (with err filled) only when out of memory. */
json_t *tb_env_json(tb_err *err);

/* The same document for a recorded machine: dir holds the inputs that
   `teebench env --record` writes (a sysroot -- dir/proc/cpuinfo, dir/sys/... --
   plus dmesg, cpuid, uname, cpus_online, kvm, kvm_vm_types, dev_sev, tsm_provider,
   msr_c0010131 files;
   see env.c). Inputs missing from the recording are "unknown". The document gets
   "recorded": dir. Caller json_decref()s. NULL with err when dir is no directory. */
json_t *tb_env_json_recorded(const char *dir, tb_err *err);

/* The TEE an env document (either function above) says the machine runs in, from its
   platform: "tdx" (a TDX guest), "snp" (an SEV-SNP guest), "sev-es", "sev", "none" (a VM
   or bare metal without one), "unknown" (no document or no platform). Pure. */
const char *tb_env_json_tee(const json_t *env);
/* The same from the platform's value itself (NULL: "unknown"). */
const char *tb_env_platform_tee(const char *platform);

/* Records this machine's inputs into dir (created), in the layout above, so that
   tb_env_json_recorded(dir) says what tb_env_json says here. 0, or -1 with err. */
int tb_env_record(const char *dir, tb_err *err);

/* ---- parsers (pure; exposed for tests) ---- */

/* What /proc/cpuinfo says. Counts are 0 when absent. */
typedef struct tb_cpuinfo {
    char vendor[32];          /* vendor_id of the first processor, "" when absent */
    char model[128];          /* model name of the first processor, "" when absent */
    int logical;              /* number of "processor" entries */
    int cores;                /* distinct (physical id, core id) pairs; 0 when not listed */
    int sockets;              /* distinct physical ids; 0 when not listed */
    int hypervisor;           /* flag "hypervisor" (CPUID.1:ECX[31]) */
    int tdx_guest;            /* flag "tdx_guest" (the kernel runs as a TD) */
    int tdx_host;             /* flag "tdx_host_platform" (TDX enabled by the BIOS) */
    int sev, sev_es, sev_snp; /* flags "sev", "sev_es", "sev_snp" */
    int vmx, svm;             /* hardware virtualization flags */
} tb_cpuinfo;

/* Parses /proc/cpuinfo text (NUL-terminated). Returns 0, or -1 when the text has no
   "processor" entry (nothing recognisable). */
int tb_env_parse_cpuinfo(const char *text, tb_cpuinfo *out);

/* What the kernel log (dmesg) says about the platform. */
typedef struct tb_klog {
    int boot_seen;        /* the "Linux version" banner is in the log (boot lines kept) */
    char hypervisor[64];  /* from "Hypervisor detected: <name>", "" when absent */
    int mem_encrypt_line; /* a "Memory Encryption Features active:" line was found */
    int me_tdx, me_sme, me_sev, me_sev_es, me_sev_snp; /* features it lists */
    int tdx_guest;                                     /* "tdx: Guest detected" */
    int sev_status_line;                               /* a "SEV: Status:" line was found */
    int st_sev, st_sev_es, st_sev_snp;                 /* features it lists */
    int tdx_bios_enabled;  /* "virt/tdx: BIOS enabled: private KeyID range ..." */
    int tdx_module_init;   /* "virt/tdx: module initialized" / "TDX module initialized" */
    int tdx_module_failed; /* "virt/tdx: module initialization failed" */
    char tdx_module[64];   /* TDX module version, e.g. "1.5.06.00.0744" or "1.5 build 481" */
    /* swiotlb (kernel/dma/swiotlb.c): */
    int swiotlb_line;            /* a "software IO TLB:" line was found (the pool was set up) */
    char swiotlb_log[160];       /* the first such line, from "software IO TLB:" on */
    long long swiotlb_mapped_mb; /* "software IO TLB: mapped [mem ...] (64MB)": 64; -1 none */
    int swiotlb_full;            /* lines with "swiotlb buffer is full" (the pool ran out: a DMA
                                    mapping failed, swiotlb_tbl_map_single's warning) */
} tb_klog;

/* Parses kernel log text (dmesg output with or without "[ time]" prefixes, or
   /dev/kmsg records). Never fails; fields stay 0/"" when nothing matched. */
void tb_env_parse_klog(const char *text, tb_klog *out);

/* swiotlb= on a kernel command line (kernel/dma/swiotlb.c setup_io_tlb_npages:
   "swiotlb=[<nslabs>][,<nareas>][,force|noforce]"; each occurrence overrides the one
   before). Returns 1 when the last one says force, else 0; *nslabs gets the last slab
   count given (0: none). Pure. */
int tb_env_parse_swiotlb_cmdline(const char *cmdline, unsigned long long *nslabs);

/* The "swiotlb" fact: whether bounce buffering is forced and the pool's size, from the
   inputs below (-1: unread). The pool comes from the first source that has it:
   debugfs (io_tlb_nslabs), the command line's slab count, the kernel log's "mapped"
   line, the rule of a TD / SEV guest's kernel (6 % of memory in [64 MiB, 1 GiB],
   arch/x86/mm/mem_encrypt.c), the kernel's default (64 MiB, IO_TLB_DEFAULT_SIZE) when
   the log shows a pool was set up; else none. */
typedef struct tb_swiotlb_in {
    const char *cmdline;      /* /proc/cmdline, NULL: unreadable */
    long long debugfs_nslabs; /* /sys/kernel/debug/swiotlb/io_tlb_nslabs */
    long long debugfs_used;   /* .../io_tlb_used */
    int have_klog;            /* klog is filled */
    const tb_klog *klog;
    int cvm;                /* a TD or SEV guest (its kernel forces bouncing) */
    long long memory_bytes; /* MemTotal */
} tb_swiotlb_in;
/* The fact's value, a new object: {"forced" (bool: swiotlb=force, or a TD / SEV guest,
   whose kernel bounces every DMA whatever the command line), "forced_by"
   ("kernel command line" | "confidential guest" | null), "param" (the swiotlb= word or
   null), "pool_bytes", "nslabs" (or null), "pool_source" (text), "log_line" (the kernel
   log's first "software IO TLB:" line, or null), "used_slabs" (debugfs or null),
   "full_lines" (the count of "swiotlb buffer is full" lines in the kernel
   log, null when it is unreadable)}. NULL when out of memory. */
json_t *tb_env_swiotlb_value(const tb_swiotlb_in *in);

/* The fact's value as one line: "forced (kernel command line: swiotlb=32768,force), pool
   64 MiB (kernel command line: ...), 0 'swiotlb buffer is full' lines" or "not forced,
   ...". Into out. */
void tb_env_swiotlb_text(const json_t *value, char *out, size_t len);

/* The count of "swiotlb buffer is full" lines in this machine's kernel log now, or -1
   (with err) when it cannot be read. The suite reads it at the start and the end of a
   run: a count that grew means some DMA found the pool exhausted during the run. */
long long tb_env_swiotlb_full_now(tb_err *err);

/* A sysfs boolean module parameter ("Y", "N", "1", "0", with or without newline):
   1, 0, or -1 when the text is none of these. */
int tb_env_parse_bool(const char *text);

/* MemTotal from /proc/meminfo text in bytes, or -1 when absent or malformed. */
long long tb_env_parse_meminfo_total(const char *text);

/* A hypervisor's name from its 12-byte CPUID 0x40000000 signature
   (EBX, ECX, EDX); "unrecognised" for others. */
const char *tb_env_hypervisor_name(const char sig[12]);

/* The evidence the platform decision is made from. -1 means "could not read". */
typedef struct tb_env_evidence {
    int cpuid_hv_bit;      /* CPUID.1:ECX[31] */
    char hv_sig[13];       /* CPUID 0x40000000 signature, NUL-terminated, "" if none */
    int cpuid_tdx;         /* CPUID 0x21 says "IntelTDX    " */
    int dev_tdx_guest;     /* /dev/tdx_guest exists */
    int dev_sev_guest;     /* /dev/sev-guest exists */
    char tsm_provider[32]; /* configfs-tsm report provider, "" if none/unreadable */
    int have_cpuinfo;      /* cpu is filled */
    tb_cpuinfo cpu;
    int have_klog; /* klog is filled */
    tb_klog klog;
    long long sev_msr; /* SEV status MSR 0xc0010131, -1 when unreadable */
} tb_env_evidence;

/* The platform decision. platform is one of "bare-metal", "vm", "tdx-guest",
   "sev-guest", "sev-es-guest", "sev-snp-guest"; sev is "none", "sev", "sev-es",
   "sev-snp" or "unknown"; tdx is 1/0. why receives a one-line list of the evidence
   used (truncated to why_len). */
typedef struct tb_platform {
    const char *platform;
    int tdx;
    const char *sev;
    char why[512];
    char sev_why[256];
} tb_platform;
void tb_env_classify(const tb_env_evidence *ev, tb_platform *out);

/* The kernel's current clock source (sysfs), e.g. "tsc" or "kvm-clock", into out;
   0, or -1 with err filled when unreadable. */
int tb_env_clocksource(char *out, size_t out_len, tb_err *err);

#endif
