/* vm/boot: the boot's phases from what the guest says at its first login (see
 * boot.h for the phases and why each bound holds).
 *
 * Invariants: the parser reads untrusted bytes (a guest's output) and never reads
 * past len, never trusts a number it did not fully parse (a timestamp is digits,
 * a point and digits; a span is number-unit pairs); the phases it makes are
 * either known and consecutive, summing to the total exactly, or -1. */
#include "vm/boot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECTION "teebench-boot: "

const char *tb_vm_boot_probe_cmd(void)
{
    return "echo '" SECTION "uptime'; cat /proc/uptime; "
           "echo '" SECTION "klog'; { dmesg 2>/dev/null || sudo -n dmesg 2>/dev/null; } | "
           "grep -E 'Run .* as init process|Freeing unused kernel' | head -n 8; "
           "echo '" SECTION "analyze'; systemd-analyze time 2>&1 | head -n 3; exit 0";
}

const char *tb_vm_boot_phase_name(int phase)
{
    static const char *const names[] = {"firmware", "kernel", "userspace", "ssh"};
    return phase >= 0 && phase < TB_VM_BOOT_NPHASES ? names[phase] : "?";
}

/* A decimal number at p (digits, optionally '.' and digits) within end: its value
   and the bytes it used (0: none). */
static size_t number_at(const char *p, const char *end, double *v)
{
    const char *q = p;
    double x = 0, scale = 0.1;
    int digits = 0;
    while (q < end && *q >= '0' && *q <= '9' && digits < 15) {
        x = x * 10 + (*q++ - '0');
        digits++;
    }
    if (!digits)
        return 0;
    if (q < end && *q == '.') {
        const char *f = q + 1;
        int fd = 0;
        while (f < end && *f >= '0' && *f <= '9' && fd < 12) {
            x += (*f++ - '0') * scale;
            scale /= 10;
            fd++;
        }
        if (fd)
            q = f;
    }
    *v = x;
    return (size_t)(q - p);
}

double tb_vm_boot_timespan(const char *text, size_t len)
{
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"min", 60},         {"ms", 1e-3}, {"us", 1e-6},
                 {"\xce\xbcs", 1e-6}, {"h", 3600},  {"s", 1}};
    const char *p = text, *end = text + len;
    double total = 0;
    int parts = 0;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        if (p == end)
            break;
        double v;
        size_t n = number_at(p, end, &v);
        if (!n)
            return -1;
        p += n;
        size_t u, ul = 0;
        for (u = 0; u < sizeof units / sizeof units[0]; u++) {
            ul = strlen(units[u].unit);
            if ((size_t)(end - p) >= ul && !memcmp(p, units[u].unit, ul))
                break;
        }
        if (u == sizeof units / sizeof units[0])
            return -1;
        total += v * units[u].s;
        p += ul;
        parts++;
    }
    return parts ? total : -1;
}

/* The end of the line that starts at p (its '\n', or end). */
static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* "[    5.300439] Run /init as init process": the timestamp, or -1. */
static double klog_stamp(const char *l, const char *le)
{
    if (l == le || *l != '[')
        return -1;
    const char *p = l + 1;
    while (p < le && *p == ' ')
        p++;
    double v;
    size_t n = number_at(p, le, &v);
    if (!n || p + n >= le || p[n] != ']')
        return -1;
    return v;
}

static const char *find_in(const char *l, const char *le, const char *needle)
{
    size_t nl = strlen(needle);
    for (const char *p = l; p + nl <= le; p++)
        if (!memcmp(p, needle, nl))
            return p;
    return NULL;
}

static void parse_klog_line(const char *l, const char *le, tb_vm_boot_guest *g, int *have_run)
{
    double t = klog_stamp(l, le);
    if (t < 0)
        return;
    const char *run = find_in(l, le, "] Run ");
    int is_run = run && find_in(run, le, " as init process");
    if (!is_run && (*have_run || !find_in(l, le, "Freeing unused kernel")))
        return;
    if (is_run && *have_run)
        return; /* the first process is the first such line */
    g->init_s = t;
    const char *msg = memchr(l, ']', (size_t)(le - l));
    msg = msg ? msg + 1 : l;
    while (msg < le && *msg == ' ')
        msg++;
    size_t n = (size_t)(le - msg);
    if (n >= sizeof g->init_line)
        n = sizeof g->init_line - 1;
    memcpy(g->init_line, msg, n);
    g->init_line[n] = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)g->init_line[i] < 0x20 || (unsigned char)g->init_line[i] >= 0x7f)
            g->init_line[i] = '?';
    *have_run |= is_run;
}

/* "Startup finished in 53.921s (firmware) + 2.643s (loader) + ... = 1min13.233s" */
static void parse_analyze_line(const char *l, const char *le, tb_vm_boot_guest *g)
{
    if (find_in(l, le, "not yet finished")) {
        g->analyze_pending = 1;
        return;
    }
    const char *p = find_in(l, le, "Startup finished in ");
    if (!p)
        return;
    p += strlen("Startup finished in ");
    const char *stop = find_in(p, le, " = ");
    if (!stop)
        stop = le;
    int any = 0;
    while (p < stop) {
        const char *open = find_in(p, stop, " (");
        if (!open)
            break;
        const char *close = memchr(open, ')', (size_t)(stop - open));
        if (!close)
            break;
        double v = tb_vm_boot_timespan(p, (size_t)(open - p));
        const char *label = open + 2;
        size_t ll = (size_t)(close - label);
        struct {
            const char *name;
            double *to;
        } k[] = {{"firmware", &g->an_firmware},
                 {"loader", &g->an_loader},
                 {"kernel", &g->an_kernel},
                 {"initrd", &g->an_initrd},
                 {"userspace", &g->an_userspace}};
        for (size_t i = 0; v >= 0 && i < sizeof k / sizeof k[0]; i++)
            if (strlen(k[i].name) == ll && !memcmp(label, k[i].name, ll)) {
                *k[i].to = v;
                any = 1;
            }
        p = close + 1;
        if ((size_t)(stop - p) >= 3 && !memcmp(p, " + ", 3))
            p += 3;
        else
            break;
    }
    g->analyze = any;
}

int tb_vm_boot_parse(const char *text, size_t len, tb_vm_boot_guest *g)
{
    memset(g, 0, sizeof *g);
    g->uptime_s = g->init_s = -1;
    g->an_firmware = g->an_loader = g->an_kernel = g->an_initrd = g->an_userspace = -1;
    enum { NONE, UPTIME, KLOG, ANALYZE } sec = NONE;
    const char *p = text, *end = text + len;
    int have_run = 0;
    while (p < end) {
        const char *le = line_end(p, end);
        size_t sl = strlen(SECTION);
        if ((size_t)(le - p) > sl && !memcmp(p, SECTION, sl)) {
            const char *name = p + sl;
            size_t nl = (size_t)(le - name);
            sec = nl == 6 && !memcmp(name, "uptime", 6)    ? UPTIME
                  : nl == 4 && !memcmp(name, "klog", 4)    ? KLOG
                  : nl == 7 && !memcmp(name, "analyze", 7) ? ANALYZE
                                                           : NONE;
        } else if (sec == UPTIME && g->uptime_s < 0) {
            double v;
            size_t n = number_at(p, le, &v);
            if (n && (p + n == le || p[n] == ' '))
                g->uptime_s = v;
        } else if (sec == KLOG) {
            parse_klog_line(p, le, g, &have_run);
        } else if (sec == ANALYZE && !g->analyze) {
            parse_analyze_line(p, le, g);
        }
        p = le < end ? le + 1 : end;
    }
    return g->uptime_s >= 0;
}

/* Seconds to nanoseconds, saturating at 2^62 (about 146 years): a guest may say any
   number, and the phases subtract these (fuzz_vm_boot found the overflow). */
static int64_t ns_of(double s)
{
    const double max_s = (double)((int64_t)1 << 62) / 1e9;
    return s >= max_s ? (int64_t)1 << 62 : (int64_t)llround(s * 1e9);
}

void tb_vm_boot_phases_make(uint64_t total_ns, uint64_t probe_end_ns, const tb_vm_boot_guest *g,
                            tb_vm_boot_phases *out)
{
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++)
        out->ns[i] = -1;
    out->note[0] = 0;
    int64_t total = (int64_t)total_ns;
    if (g->uptime_s < 0) {
        snprintf(out->note, sizeof out->note, "the guest gave no /proc/uptime: no phases");
        return;
    }
    if (probe_end_ns < total_ns) {
        snprintf(out->note, sizeof out->note, "the probe ended before the login: no phases");
        return;
    }
    /* the guest's uptime at the first login's end */
    int64_t up = ns_of(g->uptime_s) - (int64_t)(probe_end_ns - total_ns);
    if (up <= 0 || up > total) {
        snprintf(out->note, sizeof out->note,
                 "the guest's uptime (%.3f s, %.3f s after the login) does not fit in the "
                 "boot (%.3f s): no phases",
                 g->uptime_s, (double)(probe_end_ns - total_ns) / 1e9, (double)total_ns / 1e9);
        return;
    }
    out->ns[TB_VM_BOOT_FIRMWARE] = total - up;
    double kernel_s = g->init_s >= 0 ? g->init_s : g->an_kernel;
    int64_t kernel = kernel_s >= 0 ? ns_of(kernel_s) : -1;
    if (kernel < 0 || kernel > up) {
        snprintf(out->note, sizeof out->note,
                 kernel < 0 ? "the kernel log had no first-process line and no systemd-analyze: "
                              "the kernel's phase and those after it are unknown"
                            : "the kernel's first-process time is past the uptime: the phases "
                              "after the firmware are unknown");
        return;
    }
    out->ns[TB_VM_BOOT_KERNEL] = kernel;
    int64_t rest = up - kernel;
    double us_s = -1;
    if (g->analyze && g->an_userspace >= 0)
        us_s = g->an_userspace + (g->an_initrd > 0 ? g->an_initrd : 0);
    int64_t us = us_s >= 0 ? ns_of(us_s) : -1;
    if (us >= 0 && us <= rest) {
        out->ns[TB_VM_BOOT_USERSPACE] = us;
        out->ns[TB_VM_BOOT_SSH] = rest - us;
        snprintf(out->note, sizeof out->note,
                 "kernel from %s; userspace from systemd-analyze (initrd + userspace)",
                 g->init_s >= 0 ? "the kernel log" : "systemd-analyze");
        return;
    }
    out->ns[TB_VM_BOOT_USERSPACE] = rest;
    snprintf(out->note, sizeof out->note,
             "kernel from %s; userspace is the first process's start to the first SSH login "
             "(%s)",
             g->init_s >= 0 ? "the kernel log" : "systemd-analyze",
             us >= 0              ? "the boot target came after the login"
             : g->analyze_pending ? "the boot target was not reached at the login"
                                  : "no systemd-analyze");
}
