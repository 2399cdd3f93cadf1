/* env: detection of the machine teebench runs on (see env.h).
 *
 * Owns: the pure parsers of cpuinfo, kernel-log, meminfo and sysfs text; the
 * platform decision; and tb_env_json, which reads the live sources (CPUID,
 * /proc, /sys, the kernel log through klogctl, device nodes, configfs-tsm) and
 * builds the document. Every fact is {"value": ..., "source": "..."}; an
 * unreadable fact has value "unknown" and its source says why. */
#include "sys/env.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define TB_HAVE_CPUID 1
#else
#define TB_HAVE_CPUID 0
#endif

#include "base/buf.h"
#include "base/file.h"

#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define VULN_DIR "/sys/devices/system/cpu/vulnerabilities"

/* ---------- small text helpers ---------- */

static void copy_trim(char *dst, size_t dst_len, const char *src, size_t n)
{
    while (n && isspace((unsigned char)*src)) {
        src++;
        n--;
    }
    while (n && isspace((unsigned char)src[n - 1]))
        n--;
    if (n >= dst_len)
        n = dst_len - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* Does the space-separated word list [p, p+n) contain word? */
static int has_word(const char *p, size_t n, const char *word)
{
    size_t wl = strlen(word);
    const char *end = p + n;
    while (p < end) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        const char *s = p;
        while (p < end && !isspace((unsigned char)*p))
            p++;
        if ((size_t)(p - s) == wl && !memcmp(s, word, wl))
            return 1;
    }
    return 0;
}

/* Finds needle in [p, p+n) (not NUL-bounded). */
static const char *find_in(const char *p, size_t n, const char *needle)
{
    size_t nl = strlen(needle);
    if (nl > n)
        return NULL;
    for (size_t i = 0; i + nl <= n; i++)
        if (p[i] == needle[0] && !memcmp(p + i, needle, nl))
            return p + i;
    return NULL;
}

/* ---------- /proc/cpuinfo ---------- */

#define MAX_PAIRS 4096

int tb_env_parse_cpuinfo(const char *text, tb_cpuinfo *out)
{
    memset(out, 0, sizeof *out);
    static const int none = -1;
    int phys = none, core = none;
    /* distinct (physical id, core id) pairs and physical ids */
    long *pairs = calloc(MAX_PAIRS, sizeof *pairs);
    long *socks = calloc(MAX_PAIRS, sizeof *socks);
    int npairs = 0, nsocks = 0, first_flags = 1;
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *colon = memchr(line, ':', len);
        if (colon) {
            char key[64];
            copy_trim(key, sizeof key, line, (size_t)(colon - line));
            const char *val = colon + 1;
            size_t vlen = len - (size_t)(val - line);
            if (!strcmp(key, "processor")) {
                out->logical++;
                phys = core = none;
            } else if (!strcmp(key, "vendor_id") && !out->vendor[0]) {
                copy_trim(out->vendor, sizeof out->vendor, val, vlen);
            } else if (!strcmp(key, "model name") && !out->model[0]) {
                copy_trim(out->model, sizeof out->model, val, vlen);
            } else if (!strcmp(key, "physical id")) {
                phys = atoi(val);
            } else if (!strcmp(key, "core id")) {
                core = atoi(val);
            } else if (!strcmp(key, "flags") && first_flags) {
                first_flags = 0;
                out->hypervisor = has_word(val, vlen, "hypervisor");
                out->tdx_guest = has_word(val, vlen, "tdx_guest");
                out->tdx_host = has_word(val, vlen, "tdx_host_platform");
                out->sev = has_word(val, vlen, "sev");
                out->sev_es = has_word(val, vlen, "sev_es");
                out->sev_snp = has_word(val, vlen, "sev_snp");
                out->vmx = has_word(val, vlen, "vmx");
                out->svm = has_word(val, vlen, "svm");
            }
            if (phys != none && core != none && pairs && socks) {
                long pk = (long)phys * 65536 + core;
                int seen = 0;
                for (int i = 0; i < npairs && !seen; i++)
                    seen = pairs[i] == pk;
                if (!seen && npairs < MAX_PAIRS)
                    pairs[npairs++] = pk;
                seen = 0;
                for (int i = 0; i < nsocks && !seen; i++)
                    seen = socks[i] == phys;
                if (!seen && nsocks < MAX_PAIRS)
                    socks[nsocks++] = phys;
                phys = core = none;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    free(pairs);
    free(socks);
    out->cores = npairs;
    out->sockets = nsocks;
    return out->logical > 0 ? 0 : -1;
}

/* ---------- kernel log ---------- */

static void parse_me_line(const char *p, size_t n, tb_klog *out)
{
    out->mem_encrypt_line = 1;
    out->me_tdx = out->me_tdx || find_in(p, n, "Intel TDX") != NULL;
    out->me_sme = out->me_sme || has_word(p, n, "SME");
    out->me_sev = out->me_sev || has_word(p, n, "SEV");
    out->me_sev_es = out->me_sev_es || has_word(p, n, "SEV-ES");
    out->me_sev_snp = out->me_sev_snp || has_word(p, n, "SEV-SNP");
}

static void parse_tdx_version(const char *p, size_t n, tb_klog *out)
{
    /* Newer kernels: "Initializing TDX module: 1.5.06.00.0744 (build_date ...". */
    const char *v = find_in(p, n, "Initializing TDX module: ");
    if (v) {
        v += strlen("Initializing TDX module: ");
        size_t k = 0;
        while (v + k < p + n && (isdigit((unsigned char)v[k]) || v[k] == '.'))
            k++;
        if (k)
            copy_trim(out->tdx_module, sizeof out->tdx_module, v, k);
        return;
    }
    /* Older: "TDX module: attributes 0x0, vendor_id 0x8086, major_version 1,
       minor_version 5, build_date 20230323, build_num 481". */
    const char *ma = find_in(p, n, "major_version ");
    const char *mi = find_in(p, n, "minor_version ");
    const char *bn = find_in(p, n, "build_num ");
    if (ma && mi) {
        char tmp[64];
        int major = atoi(ma + strlen("major_version "));
        int minor = atoi(mi + strlen("minor_version "));
        if (bn)
            snprintf(tmp, sizeof tmp, "%d.%d build %d", major, minor,
                     atoi(bn + strlen("build_num ")));
        else
            snprintf(tmp, sizeof tmp, "%d.%d", major, minor);
        snprintf(out->tdx_module, sizeof out->tdx_module, "%s", tmp);
    }
}

static void parse_klog_line(const char *p, size_t n, tb_klog *out)
{
    const char *m;
    if (find_in(p, n, "Linux version "))
        out->boot_seen = 1;
    if ((m = find_in(p, n, "Hypervisor detected: ")) != NULL) {
        m += strlen("Hypervisor detected: ");
        copy_trim(out->hypervisor, sizeof out->hypervisor, m, (size_t)(p + n - m));
    }
    if ((m = find_in(p, n, "Memory Encryption Features active:")) != NULL) {
        m += strlen("Memory Encryption Features active:");
        parse_me_line(m, (size_t)(p + n - m), out);
    }
    if (find_in(p, n, "tdx: Guest detected"))
        out->tdx_guest = 1;
    if ((m = find_in(p, n, "SEV: Status:")) != NULL) {
        m += strlen("SEV: Status:");
        size_t k = (size_t)(p + n - m);
        out->sev_status_line = 1;
        out->st_sev = out->st_sev || has_word(m, k, "SEV");
        out->st_sev_es = out->st_sev_es || has_word(m, k, "SEV-ES");
        out->st_sev_snp = out->st_sev_snp || has_word(m, k, "SEV-SNP");
    }
    if (find_in(p, n, "tdx: BIOS enabled"))
        out->tdx_bios_enabled = 1;
    if (find_in(p, n, "tdx: module initialized") || find_in(p, n, "TDX module initialized"))
        out->tdx_module_init = 1;
    if (find_in(p, n, "tdx: module initialization failed") ||
        find_in(p, n, "TDX module initialization failed"))
        out->tdx_module_failed = 1;
    if (find_in(p, n, "TDX module"))
        parse_tdx_version(p, n, out);
    if ((m = find_in(p, n, "software IO TLB:")) != NULL) {
        if (!out->swiotlb_line)
            copy_trim(out->swiotlb_log, sizeof out->swiotlb_log, m, (size_t)(p + n - m));
        out->swiotlb_line = 1;
        /* "software IO TLB: mapped [mem 0x...-0x...] (64MB)" */
        const char *mb = find_in(m, (size_t)(p + n - m), "] (");
        if (find_in(m, (size_t)(p + n - m), "mapped") && mb) {
            mb += 3;
            long long v = 0;
            int digits = 0;
            while (mb < p + n && isdigit((unsigned char)*mb) && v < (1ll << 40)) {
                v = v * 10 + (*mb++ - '0');
                digits = 1;
            }
            if (digits && p + n - mb >= 3 && !memcmp(mb, "MB)", 3))
                out->swiotlb_mapped_mb = v;
        }
    }
    if (find_in(p, n, "swiotlb buffer is full"))
        out->swiotlb_full++;
}

void tb_env_parse_klog(const char *text, tb_klog *out)
{
    memset(out, 0, sizeof *out);
    out->swiotlb_mapped_mb = -1;
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        parse_klog_line(line, len, out);
        line = nl ? nl + 1 : NULL;
    }
}

/* ---------- swiotlb ---------- */

int tb_env_parse_swiotlb_cmdline(const char *cmdline, unsigned long long *nslabs)
{
    int forced = 0;
    *nslabs = 0;
    for (const char *p = cmdline; p && *p;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        size_t n = 0;
        while (p[n] && !isspace((unsigned char)p[n]))
            n++;
        if (n > 8 && !memcmp(p, "swiotlb=", 8)) {
            const char *v = p + 8, *end = p + n;
            unsigned long long slabs = 0;
            int digits = 0;
            while (v < end && isdigit((unsigned char)*v)) {
                if (slabs < 1ull << 50)
                    slabs = slabs * 10 + (unsigned long long)(*v - '0');
                v++;
                digits = 1;
            }
            if (digits)
                *nslabs = slabs;
            if (v < end && *v == ',')
                v++;
            while (v < end && isdigit((unsigned char)*v)) /* nareas */
                v++;
            if (v < end && *v == ',')
                v++;
            if (end - v == 5 && !memcmp(v, "force", 5))
                forced = 1;
            else if (end - v == 7 && !memcmp(v, "noforce", 7))
                forced = 0;
        }
        p += n;
    }
    return forced;
}

#define SWIOTLB_SLAB 2048ll          /* IO_TLB_SIZE: 1 << IO_TLB_SHIFT (11) */
#define SWIOTLB_DEFAULT (64ll << 20) /* IO_TLB_DEFAULT_SIZE */

/* The pool of a TD / SEV guest's kernel: 6 % of memory in [64 MiB, 1 GiB], in whole
   128-slab segments (swiotlb_adjust_size). */
static long long cvm_pool(long long memory)
{
    long long size = memory / 100 * 6 + memory % 100 * 6 / 100;
    size = size < SWIOTLB_DEFAULT ? SWIOTLB_DEFAULT : size > (1ll << 30) ? 1ll << 30 : size;
    long long slabs = (size + SWIOTLB_SLAB - 1) / SWIOTLB_SLAB;
    return (slabs + 127) / 128 * 128 * SWIOTLB_SLAB;
}

json_t *tb_env_swiotlb_value(const tb_swiotlb_in *in)
{
    unsigned long long cl_slabs = 0;
    int cl_forced = in->cmdline ? tb_env_parse_swiotlb_cmdline(in->cmdline, &cl_slabs) : 0;
    char param[64] = "";
    for (const char *p = in->cmdline; p && (p = strstr(p, "swiotlb=")) != NULL; p += 8)
        if (p == in->cmdline || isspace((unsigned char)p[-1]))
            snprintf(param, sizeof param, "%.*s", (int)strcspn(p, " \t\n"), p);
    const tb_klog *k = in->have_klog ? in->klog : NULL;
    long long pool = -1;
    char src[200];
    if (in->debugfs_nslabs > 0) {
        pool = in->debugfs_nslabs * SWIOTLB_SLAB;
        snprintf(src, sizeof src, "debugfs: /sys/kernel/debug/swiotlb/io_tlb_nslabs");
    } else if (cl_slabs > 0) {
        /* the kernel rounds the count up to whole 128-slab segments */
        pool = (long long)((cl_slabs + 127) / 128 * 128) * SWIOTLB_SLAB;
        snprintf(src, sizeof src, "kernel command line: %s", param);
    } else if (k && k->swiotlb_mapped_mb > 0) {
        pool = k->swiotlb_mapped_mb << 20;
        snprintf(src, sizeof src, "kernel log: software IO TLB: mapped ... (%lldMB)",
                 k->swiotlb_mapped_mb);
    } else if (in->cvm && in->memory_bytes > 0) {
        pool = cvm_pool(in->memory_bytes);
        snprintf(src, sizeof src,
                 "a TD / SEV guest's rule: 6 %% of memory in [64 MiB, 1 GiB] "
                 "(arch/x86/mm/mem_encrypt.c), not read");
    } else if (k && k->swiotlb_line) {
        pool = SWIOTLB_DEFAULT;
        snprintf(src, sizeof src, "the kernel's default (IO_TLB_DEFAULT_SIZE 64 MiB), not read");
    } else {
        snprintf(src, sizeof src,
                 k ? "none: no software IO TLB line in the kernel log (no pool was set up)"
                   : "unknown: kernel log and debugfs unreadable");
    }
    const char *by = cl_forced ? "kernel command line" : in->cvm ? "confidential guest" : NULL;
    return json_pack(
        "{s:b, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o}", "forced", by != NULL, "forced_by",
        by ? json_string(by) : json_null(), "param", param[0] ? json_string(param) : json_null(),
        "pool_bytes", pool > 0 ? json_integer(pool) : json_null(), "nslabs",
        pool > 0 ? json_integer(pool / SWIOTLB_SLAB) : json_null(), "pool_source", src, "log_line",
        k && k->swiotlb_line ? json_string(k->swiotlb_log) : json_null(), "used_slabs",
        in->debugfs_used >= 0 ? json_integer(in->debugfs_used) : json_null(), "full_lines",
        k ? json_integer(k->swiotlb_full) : json_null());
}

void tb_env_swiotlb_text(const json_t *v, char *out, size_t len)
{
    if (!json_is_object(v)) {
        snprintf(out, len, "unknown");
        return;
    }
    const char *by = json_string_value(json_object_get(v, "forced_by"));
    const char *param = json_string_value(json_object_get(v, "param"));
    const char *src = json_string_value(json_object_get(v, "pool_source"));
    const json_t *pool = json_object_get(v, "pool_bytes"), *full = json_object_get(v, "full_lines");
    char forced[160], size[160], lines[80];
    if (by)
        snprintf(forced, sizeof forced, "forced (%s%s%s)", by, param ? ": " : "",
                 param ? param : "");
    else
        snprintf(forced, sizeof forced, "not forced%s%s", param ? " (" : "", param ? param : "");
    if (!by && param)
        snprintf(forced + strlen(forced), sizeof forced - strlen(forced), ")");
    if (json_is_integer(pool))
        snprintf(size, sizeof size, "pool %.0f MiB (%s)",
                 (double)json_integer_value(pool) / (1 << 20), src ? src : "?");
    else
        snprintf(size, sizeof size, "pool %s", src ? src : "unknown");
    if (json_is_integer(full))
        snprintf(lines, sizeof lines, "%lld 'swiotlb buffer is full' line%s",
                 (long long)json_integer_value(full), json_integer_value(full) == 1 ? "" : "s");
    else
        snprintf(lines, sizeof lines, "'swiotlb buffer is full' lines unknown");
    snprintf(out, len, "%s, %s, %s", forced, size, lines);
}

/* ---------- small sysfs / procfs values ---------- */

int tb_env_parse_bool(const char *text)
{
    char v[8];
    copy_trim(v, sizeof v, text, strlen(text));
    if (!strcmp(v, "Y") || !strcmp(v, "y") || !strcmp(v, "1"))
        return 1;
    if (!strcmp(v, "N") || !strcmp(v, "n") || !strcmp(v, "0"))
        return 0;
    return -1;
}

long long tb_env_parse_meminfo_total(const char *text)
{
    const char *m = strstr(text, "MemTotal:");
    if (!m || (m != text && m[-1] != '\n'))
        return -1;
    m += strlen("MemTotal:");
    char *end;
    errno = 0;
    long long kb = strtoll(m, &end, 10);
    if (errno || end == m || kb < 0 || kb > (1LL << 50))
        return -1;
    while (*end == ' ' || *end == '\t')
        end++;
    if (strncmp(end, "kB", 2))
        return -1;
    return kb * 1024;
}

const char *tb_env_hypervisor_name(const char sig[12])
{
    static const struct {
        const char sig[13];
        const char *name;
    } known[] = {
        {"KVMKVMKVM\0\0\0", "KVM"},
        {"Microsoft Hv", "Microsoft Hyper-V"},
        {"VMwareVMware", "VMware"},
        {"XenVMMXenVMM", "Xen"},
        {"TCGTCGTCGTCG", "QEMU TCG"},
        {"VBoxVBoxVBox", "VirtualBox"},
        {" lrpepyh  vr", "Parallels"},
        {"ACRNACRNACRN", "ACRN"},
        {"bhyve bhyve ", "bhyve"},
        {"QNXQVMBSQG\0\0", "QNX"},
        {"Linux KVM Hv", "KVM (Hyper-V enlightenments)"},
        {"EVMMEVMMEVMM", "Intel EVMM"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!memcmp(sig, known[i].sig, 12))
            return known[i].name;
    return "unrecognised";
}

/* ---------- platform decision ---------- */

static void add_why(char *why, size_t len, const char *item)
{
    size_t used = strlen(why);
    if (used + 3 >= len)
        return;
    snprintf(why + used, len - used, "%s%s", used ? "; " : "", item);
}

static void classify_tdx(const tb_env_evidence *ev, tb_platform *out)
{
    if (ev->have_cpuinfo && ev->cpu.tdx_guest)
        add_why(out->why, sizeof out->why, "cpuinfo flag tdx_guest");
    if (ev->cpuid_tdx == 1)
        add_why(out->why, sizeof out->why, "CPUID 0x21 \"IntelTDX    \"");
    if (ev->dev_tdx_guest == 1)
        add_why(out->why, sizeof out->why, "/dev/tdx_guest");
    if (!strcmp(ev->tsm_provider, "tdx_guest"))
        add_why(out->why, sizeof out->why, "configfs-tsm provider tdx_guest");
    if (ev->have_klog && (ev->klog.tdx_guest || ev->klog.me_tdx))
        add_why(out->why, sizeof out->why, "kernel log: TDX guest");
    out->tdx = out->why[0] != 0;
}

static void classify_sev(const tb_env_evidence *ev, tb_platform *out)
{
    int level = 0; /* 0 none, 1 sev, 2 sev-es, 3 sev-snp */
    char *w = out->sev_why;
    size_t wl = sizeof out->sev_why;
    if (ev->have_klog && ev->klog.mem_encrypt_line &&
        (ev->klog.me_sev || ev->klog.me_sev_es || ev->klog.me_sev_snp)) {
        int l = ev->klog.me_sev_snp ? 3 : ev->klog.me_sev_es ? 2 : 1;
        level = l > level ? l : level;
        add_why(w, wl, "kernel log: Memory Encryption Features active");
    }
    if (ev->have_klog && ev->klog.sev_status_line &&
        (ev->klog.st_sev || ev->klog.st_sev_es || ev->klog.st_sev_snp)) {
        int l = ev->klog.st_sev_snp ? 3 : ev->klog.st_sev_es ? 2 : 1;
        level = l > level ? l : level;
        add_why(w, wl, "kernel log: SEV: Status");
    }
    if (ev->sev_msr > 0 && (ev->sev_msr & 7)) {
        int l = (ev->sev_msr & 4) ? 3 : (ev->sev_msr & 2) ? 2 : 1;
        level = l > level ? l : level;
        add_why(w, wl, "SEV status MSR 0xc0010131");
    }
    if (ev->dev_sev_guest == 1) {
        level = 3;
        add_why(w, wl, "/dev/sev-guest");
    }
    if (!strcmp(ev->tsm_provider, "sev_guest")) {
        level = 3;
        add_why(w, wl, "configfs-tsm provider sev_guest");
    }
    static const char *const names[] = {"none", "sev", "sev-es", "sev-snp"};
    if (level) {
        out->sev = names[level];
        return;
    }
    /* No positive evidence. Absence is evidence only if a source that would
       show SEV was readable: the boot log, or the MSR. */
    if (ev->sev_msr == 0) {
        out->sev = "none";
        add_why(w, wl, "SEV status MSR 0xc0010131 is 0");
    } else if (ev->have_klog && ev->klog.boot_seen) {
        out->sev = "none";
        add_why(w, wl, "kernel boot log has no SEV line");
    } else if (ev->have_cpuinfo && strcmp(ev->cpu.vendor, "AuthenticAMD") && ev->cpu.vendor[0]) {
        out->sev = "none";
        add_why(w, wl, "cpuinfo: not an AMD CPU");
    } else {
        out->sev = "unknown";
        add_why(w, wl, "boot kernel log and SEV status MSR unreadable");
    }
}

void tb_env_classify(const tb_env_evidence *ev, tb_platform *out)
{
    memset(out, 0, sizeof *out);
    classify_tdx(ev, out);
    classify_sev(ev, out);
    if (out->tdx) {
        out->platform = "tdx-guest";
        return;
    }
    if (!strcmp(out->sev, "sev-snp") || !strcmp(out->sev, "sev-es") || !strcmp(out->sev, "sev")) {
        out->platform = !strcmp(out->sev, "sev-snp")  ? "sev-snp-guest"
                        : !strcmp(out->sev, "sev-es") ? "sev-es-guest"
                                                      : "sev-guest";
        snprintf(out->why, sizeof out->why, "%s", out->sev_why);
        return;
    }
    int hv = ev->cpuid_hv_bit == 1 || (ev->have_cpuinfo && ev->cpu.hypervisor);
    if (hv) {
        out->platform = "vm";
        if (ev->cpuid_hv_bit == 1)
            add_why(out->why, sizeof out->why, "CPUID.1:ECX[31] hypervisor bit set");
        if (ev->have_cpuinfo && ev->cpu.hypervisor)
            add_why(out->why, sizeof out->why, "cpuinfo flag hypervisor");
        if (ev->have_klog && ev->klog.hypervisor[0])
            add_why(out->why, sizeof out->why, "kernel log: Hypervisor detected");
        return;
    }
    if (ev->cpuid_hv_bit == 0 || ev->have_cpuinfo) {
        out->platform = "bare-metal";
        add_why(out->why, sizeof out->why,
                ev->cpuid_hv_bit == 0 ? "CPUID.1:ECX[31] hypervisor bit clear"
                                      : "cpuinfo has no hypervisor flag");
        return;
    }
    out->platform = "unknown";
    add_why(out->why, sizeof out->why, "neither CPUID nor /proc/cpuinfo readable");
}

/* ---------- inputs: the live machine or a recording ----------
 *
 * Every input is read through env_src: live (root NULL) it is the real path or
 * call; from a recording (root = a directory) a file path P is read as root/P (a
 * sysroot: root/proc/cpuinfo, root/sys/module/kvm_intel/parameters/tdx, ...),
 * and inputs that are not files live in named files at the top:
 *   dmesg        the kernel log, as dmesg prints it
 *   cpuid        "LEAF SUBLEAF EAX EBX ECX EDX" lines, hex (leaves 0, 1,
 *                0x21, 0x40000000, 0x80000000, 0x8000001f)
 *   uname        release=, version=, machine=, nodename= lines
 *   cpus_online  sysconf(_SC_NPROCESSORS_ONLN)
 *   kvm          the /dev/kvm verdict text ("absent", "usable (API 12)", ...)
 *   kvm_vm_types KVM_CHECK_EXTENSION(KVM_CAP_VM_TYPES) in hex ("0x1f"), absent when
 *                /dev/kvm could not be asked
 *   dev_sev      /dev/sev's state ("read-write", "absent", "no access: ...")
 *   tsm_provider the configfs-tsm provider name, "" or absent for none
 *   msr_c0010131 the SEV status MSR in hex
 * `teebench env --record DIR` writes exactly this layout, so a machine can be
 * described to another teebench (and to the tests) without being there. A
 * missing recorded input is "unknown", as an unreadable live one is. */

typedef struct env_src {
    const char *root; /* NULL: live */
} env_src;

/* The path to read for live path p: p itself, or root + p. */
static int src_path(const env_src *s, const char *p, char *out, size_t out_len, tb_err *err)
{
    if (!s->root)
        return tb_path_join(out, out_len, p, NULL, err);
    return tb_path_join(out, out_len, s->root, p, err);
}

/* Reads a small text file into out (trimmed); 0 or -1 with err. */
static int read_small(const char *path, char *out, size_t out_len, tb_err *err)
{
    tb_buf b = {0};
    if (tb_file_read(path, 1 << 20, &b, err) < 0)
        return -1;
    copy_trim(out, out_len, b.p ? (const char *)b.p : "", b.len);
    tb_buf_clear(&b);
    return 0;
}

/* Reads live path p (or its recording) into out; where receives the path read. */
static int src_read_small(const env_src *s, const char *p, char *out, size_t out_len, char *where,
                          size_t where_len, tb_err *err)
{
    if (src_path(s, p, where, where_len, err) < 0)
        return -1;
    return read_small(where, out, out_len, err);
}

static int src_exists(const env_src *s, const char *p)
{
    char path[4096];
    tb_err e;
    struct stat st;
    if (src_path(s, p, path, sizeof path, &e) < 0)
        return 0;
    return stat(path, &st) == 0 ? 1 : 0;
}

int tb_env_clocksource(char *out, size_t out_len, tb_err *err)
{
    if (read_small(CLOCKSOURCE_PATH, out, out_len, err) < 0)
        return -1;
    if (!out[0])
        return tb_errf(err, "%s: empty", CLOCKSOURCE_PATH);
    return 0;
}

/* CPUID leaves the detection uses, live or recorded. */
typedef struct env_cpuid {
    int have;              /* CPUID readable (live x86, or a recorded cpuid file) */
    unsigned max, ext_max; /* leaf 0 EAX, leaf 0x80000000 EAX */
    unsigned l1[4], hv[4], l21[4], l8000001f[4];
    int have_hv, have_21, have_8000001f;
} env_cpuid;

static const unsigned cpuid_leaves[] = {0, 1, 0x21, 0x40000000, 0x80000000, 0x8000001f};

static void cpuid_store(env_cpuid *c, unsigned leaf, const unsigned r[4])
{
    switch (leaf) {
    case 0:
        c->max = r[0];
        break;
    case 1:
        memcpy(c->l1, r, sizeof c->l1);
        break;
    case 0x21:
        memcpy(c->l21, r, sizeof c->l21);
        c->have_21 = 1;
        break;
    case 0x40000000:
        memcpy(c->hv, r, sizeof c->hv);
        c->have_hv = 1;
        break;
    case 0x80000000:
        c->ext_max = r[0];
        break;
    case 0x8000001f:
        memcpy(c->l8000001f, r, sizeof c->l8000001f);
        c->have_8000001f = 1;
        break;
    }
}

static void cpuid_live(env_cpuid *c)
{
    memset(c, 0, sizeof *c);
#if TB_HAVE_CPUID
    unsigned r[4];
    c->have = __get_cpuid_max(0, NULL) >= 1;
    if (!c->have)
        return;
    for (size_t i = 0; i < sizeof cpuid_leaves / sizeof cpuid_leaves[0]; i++) {
        unsigned leaf = cpuid_leaves[i];
        if (leaf == 0x21 && (unsigned)__get_cpuid_max(0, NULL) < 0x21u)
            continue;
        if (leaf == 0x8000001f && (unsigned)__get_cpuid_max(0x80000000, NULL) < 0x8000001fu)
            continue;
        __cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
        if (leaf == 0x40000000 && !((c->l1[2] >> 31) & 1))
            continue; /* no hypervisor: leaf 0x40000000 means nothing */
        cpuid_store(c, leaf, r);
    }
#endif
}

/* Parses a recorded cpuid file; leaves it absent ("have" 0) when unreadable. */
static void cpuid_recorded(const env_src *s, env_cpuid *c)
{
    memset(c, 0, sizeof *c);
    char path[4096];
    tb_err e;
    tb_buf b = {0};
    if (tb_path_join(path, sizeof path, s->root, "cpuid", &e) < 0 ||
        tb_file_read(path, 1 << 16, &b, &e) < 0 || !b.p)
        return;
    const char *p = (const char *)b.p;
    while (*p) {
        unsigned leaf, sub, r[4];
        if (sscanf(p, "%x %x %x %x %x %x", &leaf, &sub, &r[0], &r[1], &r[2], &r[3]) == 6 &&
            sub == 0) {
            cpuid_store(c, leaf, r);
            c->have = 1;
        }
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    tb_buf_clear(&b);
}

static void evidence_cpuid(const env_cpuid *c, tb_env_evidence *ev)
{
    ev->cpuid_hv_bit = -1;
    ev->cpuid_tdx = -1;
    if (!c->have)
        return;
    ev->cpuid_hv_bit = (c->l1[2] >> 31) & 1;
    if (ev->cpuid_hv_bit && c->have_hv) {
        memcpy(ev->hv_sig, &c->hv[1], 4);
        memcpy(ev->hv_sig + 4, &c->hv[2], 4);
        memcpy(ev->hv_sig + 8, &c->hv[3], 4);
        ev->hv_sig[12] = 0;
    }
    ev->cpuid_tdx = 0;
    if (c->have_21) {
        char sig[12];
        memcpy(sig, &c->l21[1], 4);
        memcpy(sig + 4, &c->l21[3], 4);
        memcpy(sig + 8, &c->l21[2], 4);
        ev->cpuid_tdx = !memcmp(sig, "IntelTDX    ", 12);
    }
}

/* configfs-tsm: creating a report entry and reading its provider is the
   kernel's documented way to learn which TSM backs it; the entry is removed.
   Recorded: the tsm_provider file. */
static void read_tsm_provider(const env_src *s, char *out, size_t out_len)
{
    out[0] = 0;
    tb_err e;
    if (s->root) {
        char path[4096];
        if (tb_path_join(path, sizeof path, s->root, "tsm_provider", &e) == 0 &&
            read_small(path, out, out_len, &e) < 0)
            out[0] = 0;
        return;
    }
    const char *base = "/sys/kernel/config/tsm/report";
    if (!src_exists(s, base))
        return;
    char dir[128], file[160];
    snprintf(dir, sizeof dir, "%s/teebench-env-%ld-%ld", base, (long)getpid(), (long)gettid());
    if (mkdir(dir, 0700) < 0)
        return;
    if (tb_path_join(file, sizeof file, dir, "provider", &e) < 0 ||
        read_small(file, out, out_len, &e) < 0)
        out[0] = 0;
    rmdir(dir);
}

/* The kernel log through klogctl (no external dmesg), or the recorded dmesg file.
   0, or -1 with err. */
static int read_klog(const env_src *s, tb_buf *out, tb_err *err)
{
    if (s->root) {
        char path[4096];
        if (tb_path_join(path, sizeof path, s->root, "dmesg", err) < 0)
            return -1;
        return tb_file_read(path, 64u << 20, out, err);
    }
    int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
    if (size <= 0)
        return tb_errno(err, "klogctl(SIZE_BUFFER)");
    if (tb_buf_reserve(out, (size_t)size + 1) < 0)
        return tb_errf(err, "kernel log: out of memory");
    int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, (char *)out->p, size);
    if (n < 0)
        return tb_errno(err, "klogctl(READ_ALL)");
    out->len = (size_t)n;
    out->p[n] = 0;
    return 0;
}

static long long read_sev_msr(const env_src *s)
{
    if (s->root) {
        char path[4096], v[64];
        tb_err e;
        if (tb_path_join(path, sizeof path, s->root, "msr_c0010131", &e) < 0 ||
            read_small(path, v, sizeof v, &e) < 0)
            return -1;
        char *end;
        unsigned long long x = strtoull(v, &end, 16);
        return end != v && !*end ? (long long)(x & 0x7fffffffffffffffULL) : -1;
    }
    int fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned long long v;
    ssize_t n = pread(fd, &v, sizeof v, 0xc0010131);
    close(fd);
    return n == (ssize_t)sizeof v ? (long long)(v & 0x7fffffffffffffffULL) : -1;
}

/* ---------- JSON facts ---------- */

static void fact(json_t *o, const char *key, json_t *value, const char *source)
{
    json_t *f = json_object();
    json_object_set_new(f, "value", value ? value : json_string("unknown"));
    json_object_set_new(f, "source", json_string(source));
    json_object_set_new(o, key, f);
}

static void fact_str(json_t *o, const char *key, const char *value, const char *source)
{
    fact(o, key, value ? json_string(value) : NULL, source);
}

static void fact_unknown(json_t *o, const char *key, const char *why)
{
    fact(o, key, NULL, why);
}

/* The fact key of a recording: its file (at most len - 1 bytes of it, trimmed) with the
   file's path as the source; unknown, "not recorded", when absent or empty. */
static void recorded_str(const env_src *s, json_t *o, const char *key, const char *file, size_t len)
{
    char path[4096], val[256];
    tb_err e;
    if (len > sizeof val)
        len = sizeof val;
    if (src_read_small(s, file, val, len, path, sizeof path, &e) < 0 || !val[0])
        fact_unknown(o, key, "not recorded");
    else
        fact_str(o, key, val, path);
}

/* A kvm module parameter: true/false, false when the module or parameter is absent
   (this kernel cannot host such guests now), unknown when unreadable. */
static void add_sysfs_bool(const env_src *s, json_t *o, const char *key, const char *module,
                           const char *param)
{
    char path[512], mod[128], where[4096], v[16], why[600];
    tb_err e;
    snprintf(mod, sizeof mod, "/sys/module/%s", module);
    snprintf(path, sizeof path, "%s/parameters/%s", mod, param);
    if (!src_exists(s, mod)) {
        snprintf(why, sizeof why, "%s absent (module %s not loaded)", mod, module);
        fact(o, key, json_false(), why);
        return;
    }
    if (!src_exists(s, path)) {
        snprintf(why, sizeof why, "%s absent (kernel without this support)", path);
        fact(o, key, json_false(), why);
        return;
    }
    if (src_read_small(s, path, v, sizeof v, where, sizeof where, &e) < 0) {
        fact_unknown(o, key, e.msg);
        return;
    }
    int b = tb_env_parse_bool(v);
    fact(o, key, b < 0 ? NULL : json_boolean(b), where);
}

/* Vulnerability files, in name order (readdir order is arbitrary). */
static void add_vulnerabilities(const env_src *s, json_t *o)
{
    char dir[4096];
    tb_err e;
    if (src_path(s, VULN_DIR, dir, sizeof dir, &e) < 0) {
        fact_unknown(o, "vulnerabilities", e.msg);
        return;
    }
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    if (n < 0) {
        char why[4200];
        snprintf(why, sizeof why, "%s: %s", dir, strerror(errno));
        fact_unknown(o, "vulnerabilities", why);
        return;
    }
    json_t *v = json_object();
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        char path[4096], val[256];
        if (name[0] != '.') {
            if (tb_path_join(path, sizeof path, dir, name, &e) == 0 &&
                read_small(path, val, sizeof val, &e) == 0)
                json_object_set_new(v, name, json_string(val));
            else
                json_object_set_new(v, name, json_string("unknown"));
        }
        free(list[i]);
    }
    free(list);
    fact(o, "vulnerabilities", v, dir);
}

/* /dev/kvm: opened and asked its API version; recorded: the verdict text. */
static void add_kvm(const env_src *s, json_t *o)
{
    char val[64], why[4200];
    if (s->root) {
        recorded_str(s, o, "kvm", "kvm", 64);
        return;
    }
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, sizeof why, "/dev/kvm: %s", strerror(errno));
        fact(o, "kvm", json_string(errno == ENOENT ? "absent" : "not usable"), why);
        return;
    }
    int api = ioctl(fd, _IO(0xAE, 0x00) /* KVM_GET_API_VERSION */, 0);
    close(fd);
    snprintf(val, sizeof val, "%s (API %d)", api == 12 ? "usable" : "not usable", api);
    fact(o, "kvm", json_string(val), "/dev/kvm ioctl KVM_GET_API_VERSION");
}

/* KVM_CHECK_EXTENSION(KVM_CAP_VM_TYPES) on /dev/kvm: the VM types this KVM creates, a
   bit per type (upstream arch/x86/include/uapi/asm/kvm.h: 0 default, 1 SW_PROTECTED,
   2 SEV, 3 SEV_ES, 4 SNP, 5 TDX; Intel's pre-upstream TDX patches made TDX 2). The
   capability is 235 since Linux 6.8; an older kernel answers 0 (not offered).
   Debian 12's linux-libc-dev predates it, hence the numbers here. Recorded: the
   kvm_vm_types file ("0x1f"). */
#define ENV_KVM_CHECK_EXTENSION _IO(0xAE, 0x03)
#define ENV_KVM_CAP_VM_TYPES 235
static void add_kvm_vm_types(const env_src *s, json_t *o)
{
    char why[4200];
    if (s->root) {
        char path[4096], v[64];
        tb_err e;
        char *end = NULL;
        long long x = -1;
        if (src_read_small(s, "kvm_vm_types", v, sizeof v, path, sizeof path, &e) == 0 && v[0])
            x = strtoll(v, &end, 0);
        if (x < 0 || !end || *end || x > 0xffffffffLL)
            fact_unknown(o, "kvm_vm_types", "not recorded");
        else
            fact(o, "kvm_vm_types", json_integer(x), path);
        return;
    }
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, sizeof why, "/dev/kvm: %s", strerror(errno));
        fact_unknown(o, "kvm_vm_types", why);
        return;
    }
    int r = ioctl(fd, ENV_KVM_CHECK_EXTENSION, ENV_KVM_CAP_VM_TYPES);
    int saved = errno;
    close(fd);
    if (r < 0) {
        snprintf(why, sizeof why, "/dev/kvm KVM_CHECK_EXTENSION(KVM_CAP_VM_TYPES): %s",
                 strerror(saved));
        fact_unknown(o, "kvm_vm_types", why);
        return;
    }
    fact(o, "kvm_vm_types", json_integer(r),
         r ? "/dev/kvm ioctl KVM_CHECK_EXTENSION(KVM_CAP_VM_TYPES = 235), a bit per VM type"
           : "/dev/kvm ioctl KVM_CHECK_EXTENSION(KVM_CAP_VM_TYPES = 235): 0, the kernel does "
             "not offer the capability (Linux before 6.8)");
}

/* /dev/sev, the SEV firmware's device QEMU opens read-write (its sev-device default)
   for an SEV-SNP guest: "read-write", "read-only", "absent", "no access: ...".
   Opening it has no effect on the firmware. Recorded: the dev_sev file. */
static void add_sev_device(const env_src *s, json_t *o)
{
    char why[4200];
    if (s->root) {
        recorded_str(s, o, "sev_device", "dev_sev", 256);
        return;
    }
    int fd = open("/dev/sev", O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        fact_str(o, "sev_device", "read-write", "/dev/sev opened O_RDWR");
        return;
    }
    int rw = errno;
    if (rw == ENOENT) {
        fact_str(o, "sev_device", "absent", "/dev/sev: No such file or directory");
        return;
    }
    fd = open("/dev/sev", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        snprintf(why, sizeof why, "/dev/sev opened O_RDONLY; O_RDWR: %s", strerror(rw));
        fact_str(o, "sev_device", "read-only", why);
        return;
    }
    char v[300];
    snprintf(v, sizeof v, "no access: %s", strerror(rw));
    fact_str(o, "sev_device", v, "/dev/sev opened O_RDWR and O_RDONLY");
}

/* The C-bit position of SEV page-table entries, CPUID 0x8000001F EBX[5:0], when
   EAX says SEV (bit 1); the host's physical-address reduction is EBX[11:6]. */
static void add_sev_cbitpos(json_t *o, const env_cpuid *c)
{
    if (!c->have) {
        fact_unknown(o, "sev_cbitpos", "CPUID not available");
        return;
    }
    if (!c->have_8000001f || !(c->l8000001f[0] & (1u << 1))) {
        fact_str(o, "sev_cbitpos", "none", "CPUID 0x8000001F: no SEV");
        return;
    }
    char src[160];
    snprintf(src, sizeof src,
             "CPUID 0x8000001F EBX[5:0] (EBX[11:6], the host's physical address bits lost to "
             "encryption: %u)",
             (c->l8000001f[1] >> 6) & 0x3f);
    fact(o, "sev_cbitpos", json_integer(c->l8000001f[1] & 0x3f), src);
}

static void add_platform(json_t *o, const tb_env_evidence *ev)
{
    tb_platform p;
    tb_env_classify(ev, &p);
    fact_str(o, "platform", p.platform, p.why);
    if (ev->hv_sig[0] || ev->cpuid_hv_bit == 1) {
        char sig[13];
        memcpy(sig, ev->hv_sig, sizeof sig);
        json_t *h = json_object();
        json_object_set_new(h, "value", json_string(tb_env_hypervisor_name(ev->hv_sig)));
        for (int i = 0; i < 12; i++)
            if (!isprint((unsigned char)sig[i]))
                sig[i] = sig[i] ? '?' : ' ';
        json_object_set_new(h, "signature", json_string(sig));
        json_object_set_new(h, "source", json_string("CPUID 0x40000000"));
        json_object_set_new(o, "hypervisor", h);
    } else if (ev->cpuid_hv_bit == 0) {
        fact_str(o, "hypervisor", "none", "CPUID.1:ECX[31] clear");
    } else if (ev->have_cpuinfo && ev->cpu.hypervisor && ev->have_klog && ev->klog.hypervisor[0]) {
        fact_str(o, "hypervisor", ev->klog.hypervisor, "kernel log: Hypervisor detected");
    } else {
        fact_unknown(o, "hypervisor", "CPUID not available");
    }
    fact(o, "tdx_guest", json_boolean(p.tdx),
         p.tdx ? p.why
               : "no tdx_guest flag, no CPUID 0x21 IntelTDX, no /dev/tdx_guest, no TDX "
                 "configfs-tsm provider");
    fact_str(o, "sev_guest", p.sev, p.sev_why);
    if (ev->tsm_provider[0])
        fact_str(o, "tsm_provider", ev->tsm_provider, "/sys/kernel/config/tsm/report/*/provider");
    else
        fact_str(o, "tsm_provider", "none", "/sys/kernel/config/tsm/report absent or no provider");
}

/* CPUID 0x8000001F EAX: the SEV features the CPU (or the hypervisor) reports. A
   capability, not proof that this kernel runs encrypted. */
static void add_sev_cpuid(json_t *o, const env_cpuid *c)
{
    if (!c->have) {
        fact_unknown(o, "sev_cpuid", "CPUID not available");
        return;
    }
    if (!c->have_8000001f) {
        fact_str(o, "sev_cpuid", "none", "CPUID: no leaf 0x8000001F");
        return;
    }
    unsigned a = c->l8000001f[0];
    char v[64] = "";
    if (a & (1u << 1))
        strcat(v, "SEV ");
    if (a & (1u << 3))
        strcat(v, "SEV-ES ");
    if (a & (1u << 4))
        strcat(v, "SEV-SNP ");
    size_t n = strlen(v);
    if (n)
        v[n - 1] = 0;
    fact_str(o, "sev_cpuid", n ? v : "none",
             "CPUID 0x8000001F EAX (capability reported, not proof of an encrypted guest)");
}

static void add_tdx_host(const env_src *s, json_t *o, const tb_env_evidence *ev, const env_cpuid *c,
                         const char *klog_why)
{
    add_sysfs_bool(s, o, "tdx_host", "kvm_intel", "tdx");
    if (ev->have_cpuinfo && ev->cpu.tdx_host)
        fact(o, "tdx_bios_enabled", json_true(), "/proc/cpuinfo flag tdx_host_platform");
    else if (ev->have_klog && ev->klog.tdx_bios_enabled)
        fact(o, "tdx_bios_enabled", json_true(), "kernel log: virt/tdx: BIOS enabled");
    else if (ev->have_cpuinfo && ev->have_klog && ev->klog.boot_seen)
        fact(o, "tdx_bios_enabled", json_false(),
             "no tdx_host_platform flag, no virt/tdx BIOS line in the boot log");
    else
        fact_unknown(o, "tdx_bios_enabled", klog_why);
    if (ev->have_klog && ev->klog.tdx_module[0])
        fact_str(o, "tdx_module", ev->klog.tdx_module, "kernel log (virt/tdx)");
    else if (ev->have_klog && ev->klog.boot_seen)
        fact_str(o, "tdx_module", "none", "kernel boot log has no TDX module line");
    else
        fact_unknown(o, "tdx_module", klog_why);
    add_sysfs_bool(s, o, "sev_host", "kvm_amd", "sev");
    add_sysfs_bool(s, o, "sev_es_host", "kvm_amd", "sev_es");
    add_sysfs_bool(s, o, "sev_snp_host", "kvm_amd", "sev_snp");
    add_sev_cpuid(o, c);
}

static long read_cpus_online(const env_src *s, char *where, size_t where_len)
{
    if (!s->root) {
        snprintf(where, where_len, "sysconf(_SC_NPROCESSORS_ONLN)");
        return sysconf(_SC_NPROCESSORS_ONLN);
    }
    char v[32];
    tb_err e;
    if (tb_path_join(where, where_len, s->root, "cpus_online", &e) < 0 ||
        read_small(where, v, sizeof v, &e) < 0)
        return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return end != v && !*end ? n : -1;
}

static void add_cpu_mem(const env_src *s, json_t *o, const tb_env_evidence *ev, const char *cpu_src,
                        const char *cpu_why)
{
    char src[4200];
    if (ev->have_cpuinfo) {
        fact_str(o, "cpu_vendor", ev->cpu.vendor[0] ? ev->cpu.vendor : NULL, cpu_src);
        fact_str(o, "cpu_model", ev->cpu.model[0] ? ev->cpu.model : NULL, cpu_src);
        snprintf(src, sizeof src, "%s processor entries", cpu_src);
        fact(o, "cpus", json_integer(ev->cpu.logical), src);
        snprintf(src, sizeof src, "%s distinct (physical id, core id)", cpu_src);
        fact(o, "cores", ev->cpu.cores ? json_integer(ev->cpu.cores) : NULL, src);
        snprintf(src, sizeof src, "%s distinct physical id", cpu_src);
        fact(o, "sockets", ev->cpu.sockets ? json_integer(ev->cpu.sockets) : NULL, src);
    } else {
        fact_unknown(o, "cpu_vendor", cpu_why);
        fact_unknown(o, "cpu_model", cpu_why);
        fact_unknown(o, "cpus", cpu_why);
        fact_unknown(o, "cores", cpu_why);
        fact_unknown(o, "sockets", cpu_why);
    }
    long on = read_cpus_online(s, src, sizeof src);
    fact(o, "cpus_online", on > 0 ? json_integer(on) : NULL, on > 0 ? src : "not recorded");
    tb_buf b = {0};
    tb_err e;
    if (src_path(s, "/proc/meminfo", src, sizeof src, &e) == 0 &&
        tb_file_read(src, 1 << 20, &b, &e) == 0 && b.p) {
        long long mt = tb_env_parse_meminfo_total((const char *)b.p);
        char msrc[4300];
        snprintf(msrc, sizeof msrc, "%s MemTotal", src);
        fact(o, "memory_bytes", mt >= 0 ? json_integer(mt) : NULL, msrc);
    } else {
        fact_unknown(o, "memory_bytes", b.p ? e.msg : "meminfo empty");
    }
    tb_buf_clear(&b);
}

/* uname(2), or the recorded uname file's key=value lines. */
typedef struct env_uname {
    char release[256], version[256], machine[64], nodename[256];
    char source[4096];
    int ok;
} env_uname;

static void uname_recorded_line(env_uname *u, const char *line, size_t n)
{
    static const struct {
        const char *key;
        size_t off, len;
    } keys[] = {
        {"release=", offsetof(env_uname, release), sizeof u->release},
        {"version=", offsetof(env_uname, version), sizeof u->version},
        {"machine=", offsetof(env_uname, machine), sizeof u->machine},
        {"nodename=", offsetof(env_uname, nodename), sizeof u->nodename},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        size_t kl = strlen(keys[i].key);
        if (n >= kl && !memcmp(line, keys[i].key, kl)) {
            copy_trim((char *)u + keys[i].off, keys[i].len, line + kl, n - kl);
            u->ok = 1;
        }
    }
}

static void read_uname(const env_src *s, env_uname *u)
{
    memset(u, 0, sizeof *u);
    if (!s->root) {
        struct utsname x;
        if (uname(&x) == 0) {
            copy_trim(u->release, sizeof u->release, x.release, strlen(x.release));
            copy_trim(u->version, sizeof u->version, x.version, strlen(x.version));
            copy_trim(u->machine, sizeof u->machine, x.machine, strlen(x.machine));
            copy_trim(u->nodename, sizeof u->nodename, x.nodename, strlen(x.nodename));
            u->ok = 1;
        }
        snprintf(u->source, sizeof u->source, "uname");
        return;
    }
    tb_err e;
    tb_buf b = {0};
    if (tb_path_join(u->source, sizeof u->source, s->root, "uname", &e) < 0 ||
        tb_file_read(u->source, 1 << 16, &b, &e) < 0 || !b.p)
        return;
    const char *p = (const char *)b.p;
    while (*p) {
        size_t n = strcspn(p, "\n");
        uname_recorded_line(u, p, n);
        p += n + (p[n] == '\n');
    }
    tb_buf_clear(&b);
}

static void add_kernel(const env_src *s, json_t *o)
{
    env_uname u;
    read_uname(s, &u);
    const char *why = u.ok ? u.source : "uname unreadable";
    fact_str(o, "kernel_release", u.ok && u.release[0] ? u.release : NULL, why);
    fact_str(o, "kernel_version", u.ok && u.version[0] ? u.version : NULL, why);
    fact_str(o, "machine", u.ok && u.machine[0] ? u.machine : NULL, why);
    fact_str(o, "hostname", u.ok && u.nodename[0] ? u.nodename : NULL, why);
    char line[4096], where[4096];
    tb_err e;
    if (src_read_small(s, "/proc/cmdline", line, sizeof line, where, sizeof where, &e) == 0)
        fact_str(o, "kernel_cmdline", line, where);
    else
        fact_unknown(o, "kernel_cmdline", e.msg);
    char cs[64];
    if (src_read_small(s, CLOCKSOURCE_PATH, cs, sizeof cs, where, sizeof where, &e) == 0 && cs[0])
        fact_str(o, "clocksource", cs, where);
    else
        fact_unknown(o, "clocksource", cs[0] ? e.msg : "clock source empty");
}

/* A debugfs number (-1 when unreadable: debugfs not mounted, or no root). */
static long long read_debugfs_num(const env_src *s, const char *p)
{
    char v[64], where[4096];
    tb_err e;
    if (src_read_small(s, p, v, sizeof v, where, sizeof where, &e) < 0)
        return -1;
    char *end;
    long long x = strtoll(v, &end, 10);
    return end != v && !*end && x >= 0 ? x : -1;
}

static void add_swiotlb(const env_src *s, json_t *o, const tb_env_evidence *ev)
{
    char line[4096], where[4096];
    tb_err e;
    int have_cmdline =
        src_read_small(s, "/proc/cmdline", line, sizeof line, where, sizeof where, &e) == 0;
    json_t *mem = json_object_get(json_object_get(o, "memory_bytes"), "value");
    tb_platform p;
    tb_env_classify(ev, &p);
    tb_swiotlb_in in = {
        .cmdline = have_cmdline ? line : NULL,
        .debugfs_nslabs = read_debugfs_num(s, "/sys/kernel/debug/swiotlb/io_tlb_nslabs"),
        .debugfs_used = read_debugfs_num(s, "/sys/kernel/debug/swiotlb/io_tlb_used"),
        .have_klog = ev->have_klog,
        .klog = &ev->klog,
        .cvm = p.tdx || (p.sev && strcmp(p.sev, "none") && strcmp(p.sev, "unknown")),
        .memory_bytes = json_is_integer(mem) ? json_integer_value(mem) : -1};
    json_t *v = tb_env_swiotlb_value(&in);
    fact(o, "swiotlb", v,
         have_cmdline ? "/proc/cmdline swiotlb=; the kernel log (software IO TLB, swiotlb "
                        "buffer is full); /sys/kernel/debug/swiotlb when mounted"
                      : "/proc/cmdline unreadable; the kernel log; /sys/kernel/debug/swiotlb");
}

long long tb_env_swiotlb_full_now(tb_err *err)
{
    env_src s = {NULL};
    tb_buf b = {0};
    if (read_klog(&s, &b, err) < 0) {
        tb_buf_clear(&b);
        return -1;
    }
    tb_klog *k = malloc(sizeof *k);
    if (!k) {
        tb_buf_clear(&b);
        return tb_errf(err, "out of memory");
    }
    tb_env_parse_klog(b.p ? (const char *)b.p : "", k);
    long long n = k->swiotlb_full;
    free(k);
    tb_buf_clear(&b);
    return n;
}

/* Builds the document from one source. */
static json_t *env_json(const env_src *s, tb_err *err)
{
    tb_env_evidence *ev = calloc(1, sizeof *ev);
    env_cpuid *c = calloc(1, sizeof *c);
    json_t *o = json_object();
    if (!ev || !c || !o) {
        free(ev);
        free(c);
        json_decref(o);
        tb_errf(err, "env: out of memory");
        return NULL;
    }
    if (s->root)
        cpuid_recorded(s, c);
    else
        cpuid_live(c);
    evidence_cpuid(c, ev);
    ev->dev_tdx_guest = src_exists(s, "/dev/tdx_guest");
    ev->dev_sev_guest = src_exists(s, "/dev/sev-guest");
    read_tsm_provider(s, ev->tsm_provider, sizeof ev->tsm_provider);
    ev->sev_msr = read_sev_msr(s);

    char cpu_src[4096] = "/proc/cpuinfo", cpu_why[TB_ERR_MAX] = "/proc/cpuinfo",
         klog_why[TB_ERR_MAX] = "kernel log";
    tb_buf b = {0};
    tb_err e;
    if (src_path(s, "/proc/cpuinfo", cpu_src, sizeof cpu_src, &e) == 0 &&
        tb_file_read(cpu_src, 64u << 20, &b, &e) == 0 && b.p)
        ev->have_cpuinfo = tb_env_parse_cpuinfo((const char *)b.p, &ev->cpu) == 0;
    else
        snprintf(cpu_why, sizeof cpu_why, "%s", b.p || e.msg[0] ? e.msg : "cpuinfo empty");
    tb_buf_clear(&b);
    e.msg[0] = 0;
    if (read_klog(s, &b, &e) == 0 && b.p) {
        ev->have_klog = 1;
        tb_env_parse_klog((const char *)b.p, &ev->klog);
    } else {
        snprintf(klog_why, sizeof klog_why, "kernel log unreadable: %.400s",
                 e.msg[0] ? e.msg : "empty");
    }
    tb_buf_clear(&b);

    json_object_set_new(o, "schema", json_string("teebench-env/1"));
    if (s->root)
        json_object_set_new(o, "recorded", json_string(s->root));
    add_platform(o, ev);
    add_tdx_host(s, o, ev, c, klog_why);
    add_cpu_mem(s, o, ev, cpu_src, cpu_why);
    add_kernel(s, o);
    add_swiotlb(s, o, ev);
    add_vulnerabilities(s, o);
    add_kvm(s, o);
    add_kvm_vm_types(s, o);
    add_sev_device(s, o);
    add_sev_cbitpos(o, c);
    free(ev);
    free(c);
    return o;
}

json_t *tb_env_json(tb_err *err)
{
    env_src s = {NULL};
    return env_json(&s, err);
}

const char *tb_env_platform_tee(const char *platform)
{
    static const struct {
        const char *platform, *tee;
    } map[] = {{"tdx-guest", "tdx"}, {"sev-snp-guest", "snp"}, {"sev-es-guest", "sev-es"},
               {"sev-guest", "sev"}, {"vm", "none"},           {"bare-metal", "none"}};
    for (size_t i = 0; platform && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(platform, map[i].platform))
            return map[i].tee;
    return "unknown";
}

const char *tb_env_json_tee(const json_t *env)
{
    return tb_env_platform_tee(
        json_string_value(json_object_get(json_object_get(env, "platform"), "value")));
}

json_t *tb_env_json_recorded(const char *dir, tb_err *err)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return tb_errno(err, "%s", dir), NULL;
    if (!S_ISDIR(st.st_mode))
        return tb_errf(err, "%s: not a directory (a recording made by `teebench env --record`)",
                       dir),
               NULL;
    env_src s = {dir};
    return env_json(&s, err);
}

/* ---------- recording the live inputs ---------- */

/* A recording: the private directory it is written into (tb_dir_open_private's
   rule), opened once; every file and directory below it is made relative to that
   descriptor, never through a symlink. */
typedef struct recording {
    int fd;
    const char *dir;
} recording;

/* The directory rel (a relative path, "a/b") below the recording, each component
   created or opened by tb_dir_open_at. Returns its fd (caller closes; for "" a copy
   of the recording's own), or -1 with err. */
static int record_subdir(const recording *r, const char *rel, tb_err *err)
{
    char path[4096], label[4096];
    if (snprintf(path, sizeof path, "%s", rel) >= (int)sizeof path)
        return tb_errf(err, "%s/%s: path too long", r->dir, rel);
    snprintf(label, sizeof label, "%s", r->dir);
    int fd = fcntl(r->fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return tb_errno(err, "%s", r->dir);
    for (char *part = strtok(path, "/"); part; part = strtok(NULL, "/")) {
        int next = tb_dir_open_at(fd, label, part, 0755, err);
        close(fd);
        if (next < 0)
            return -1;
        fd = next;
        size_t n = strlen(label);
        snprintf(label + n, sizeof label - n, "/%s", part);
    }
    return fd;
}

/* Writes data at the path p (absolute, as the live file's: "/proc/cpuinfo") below
   the recording. */
static int record_write(const recording *r, const char *p, const void *data, size_t len,
                        tb_err *err)
{
    char parent[4096], label[4096];
    while (*p == '/')
        p++;
    const char *slash = strrchr(p, '/'), *leaf = slash ? slash + 1 : p;
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - p) : 0, p);
    if (tb_path_join(label, sizeof label, r->dir, parent[0] ? parent : NULL, err) < 0)
        return -1;
    int fd = record_subdir(r, parent, err);
    if (fd < 0)
        return -1;
    int rc = tb_file_write_at(fd, label, leaf, data, len, 0644, err);
    close(fd);
    return rc;
}

/* Copies live file p to dir + p (missing or unreadable files are skipped: they are
   "unknown" when the recording is read, as they were here). */
static int record_copy(const recording *r, const char *p, tb_err *err)
{
    tb_buf b = {0};
    tb_err ignore;
    if (tb_file_read(p, 64u << 20, &b, &ignore) < 0)
        return 0;
    int rc = record_write(r, p, b.p ? (const char *)b.p : "", b.len, err);
    tb_buf_clear(&b);
    return rc;
}

static int record_text(const recording *r, const char *name, const char *text, tb_err *err)
{
    return record_write(r, name, text, strlen(text), err);
}

static int record_cpuid(const recording *rec, tb_err *err)
{
    env_cpuid c;
    cpuid_live(&c);
    if (!c.have)
        return 0;
    tb_buf b = {0};
    const unsigned *regs[] = {NULL,
                              c.l1,
                              c.have_21 ? c.l21 : NULL,
                              c.have_hv ? c.hv : NULL,
                              NULL,
                              c.have_8000001f ? c.l8000001f : NULL};
    for (size_t i = 0; i < sizeof cpuid_leaves / sizeof cpuid_leaves[0]; i++) {
        unsigned zero[4] = {0, 0, 0, 0}, r[4];
        const unsigned *x = regs[i];
        if (cpuid_leaves[i] == 0 || cpuid_leaves[i] == 0x80000000) {
            memcpy(r, zero, sizeof r);
            r[0] = cpuid_leaves[i] == 0 ? c.max : c.ext_max;
            x = r;
        }
        if (x)
            tb_buf_printf(&b, "0x%08x 0 0x%08x 0x%08x 0x%08x 0x%08x\n", cpuid_leaves[i], x[0], x[1],
                          x[2], x[3]);
    }
    int rc = record_text(rec, "cpuid", b.p ? (const char *)b.p : "", err);
    tb_buf_clear(&b);
    return rc;
}

static int record_dir(const recording *r, const char *live_dir, tb_err *err)
{
    struct dirent **list = NULL;
    int n = scandir(live_dir, &list, NULL, alphasort), rc = 0;
    for (int i = 0; i < n; i++) {
        char p[4096];
        tb_err e;
        if (rc == 0 && list[i]->d_name[0] != '.' &&
            tb_path_join(p, sizeof p, live_dir, list[i]->d_name, &e) == 0)
            rc = record_copy(r, p, err);
        free(list[i]);
    }
    free(list);
    return rc;
}

/* tb_env_record into the opened recording r. */
static int record_into(const recording *r, tb_err *err)
{
    static const char *const files[] = {
        "/proc/cpuinfo",
        "/proc/meminfo",
        "/proc/cmdline",
        CLOCKSOURCE_PATH,
        "/sys/module/kvm_intel/parameters/tdx",
        "/sys/module/kvm_amd/parameters/sev",
        "/sys/module/kvm_amd/parameters/sev_es",
        "/sys/module/kvm_amd/parameters/sev_snp",
        "/sys/kernel/debug/swiotlb/io_tlb_nslabs", /* the swiotlb fact, when debugfs is */
        "/sys/kernel/debug/swiotlb/io_tlb_used",   /* mounted and readable */
    };
    env_src live = {NULL};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (record_copy(r, files[i], err) < 0)
            return -1;
    char sub[4096];
    static const char *const mods[] = {"sys/module/kvm_intel", "sys/module/kvm_amd"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(sub, sizeof sub, "/%s", mods[i]);
        int fd = src_exists(&live, sub) ? record_subdir(r, mods[i], err) : INT_MAX;
        if (fd < 0)
            return -1;
        if (fd != INT_MAX)
            close(fd);
    }
    static const char *const devs[] = {"/dev/tdx_guest", "/dev/sev-guest"};
    for (size_t i = 0; i < 2; i++)
        if (src_exists(&live, devs[i]) && record_write(r, devs[i], "", 0, err) < 0)
            return -1;
    if (record_dir(r, VULN_DIR, err) < 0 || record_cpuid(r, err) < 0)
        return -1;
    tb_buf b = {0};
    tb_err e;
    int rc = 0;
    if (read_klog(&live, &b, &e) == 0)
        rc = record_text(r, "dmesg", b.p ? (const char *)b.p : "", err);
    tb_buf_clear(&b);
    if (rc < 0)
        return -1;
    env_uname u;
    read_uname(&live, &u);
    char text[2048];
    snprintf(text, sizeof text, "release=%s\nversion=%s\nmachine=%s\nnodename=%s\n", u.release,
             u.version, u.machine, u.nodename);
    char tsm[64];
    read_tsm_provider(&live, tsm, sizeof tsm);
    snprintf(sub, sizeof sub, "%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    json_t *kvm = json_object();
    add_kvm(&live, kvm);
    const char *kv = json_string_value(json_object_get(json_object_get(kvm, "kvm"), "value"));
    char kvm_text[80];
    snprintf(kvm_text, sizeof kvm_text, "%s\n", kv ? kv : "unknown");
    json_decref(kvm);
    json_t *facts = json_object();
    add_kvm_vm_types(&live, facts);
    add_sev_device(&live, facts);
    const json_t *vt = json_object_get(json_object_get(facts, "kvm_vm_types"), "value");
    const char *sd =
        json_string_value(json_object_get(json_object_get(facts, "sev_device"), "value"));
    char vt_text[32], sd_text[320];
    snprintf(vt_text, sizeof vt_text, "0x%llx\n",
             json_is_integer(vt) ? (unsigned long long)json_integer_value(vt) : 0ull);
    snprintf(sd_text, sizeof sd_text, "%s\n", sd ? sd : "unknown");
    int have_vt = json_is_integer(vt);
    json_decref(facts);
    if ((have_vt && record_text(r, "kvm_vm_types", vt_text, err) < 0) ||
        record_text(r, "dev_sev", sd_text, err) < 0)
        return -1;
    long long msr = read_sev_msr(&live);
    char msr_text[32];
    snprintf(msr_text, sizeof msr_text, "%llx\n", msr);
    if (record_text(r, "uname", text, err) < 0 || record_text(r, "tsm_provider", tsm, err) < 0 ||
        record_text(r, "cpus_online", sub, err) < 0 || record_text(r, "kvm", kvm_text, err) < 0 ||
        (msr >= 0 && record_text(r, "msr_c0010131", msr_text, err) < 0))
        return -1;
    return 0;
}

int tb_env_record(const char *dir, tb_err *err)
{
    recording r = {tb_dir_open_private(dir, 0700, err), dir};
    if (r.fd < 0)
        return -1;
    int rc = record_into(&r, err);
    close(r.fd);
    return rc;
}
