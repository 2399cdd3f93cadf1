/* probe: the TEE-sensitive microbenchmarks (see probe.h).
 *
 * Owns: the probe table, CPU pinning for the duration of one run (restored on
 * every exit path), the per-probe sampling loops, and the partner process of
 * the pipe ping-pong (forked, pinned to a second CPU, ended by EOF and reaped
 * before returning). Memory probes map fresh anonymous memory per run and
 * unmap it before returning. */
#include "sys/internal.h"
#include "sys/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <sys/io.h>
#include <x86intrin.h>
#define TB_X86 1
#else
#define TB_X86 0
#endif

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "stats/summary.h"
#include "sys/env.h"

#define KIB 1024UL
#define MIB (1024UL * 1024UL)

static const tb_probe_info probes[] = {
    {"cpuid", "CPUID leaf 0: a VM exit in a VM; a #VE and a TDX-module call in a TD", 1, 10000,
     1000000},
    {"rdtsc", "RDTSC: read the TSC (no exit when the TSC is virtualized in hardware)", 64, 10000,
     1000000},
    {"rdtscp", "RDTSCP: read the TSC and the CPU id, ordered after earlier instructions", 64, 10000,
     1000000},
    {"clock_gettime", "clock_gettime(CLOCK_MONOTONIC): vDSO or system call, per clock source", 64,
     10000, 1000000},
    {"getpid", "syscall(SYS_getpid): one plain system call, for contrast", 64, 10000, 1000000},
    {"page-4k", "first write to fresh anonymous memory, per 4 KiB page (fault + accept in a TD)", 1,
     4096, 262144},
    {"page-2m", "first write to fresh anonymous memory, per 2 MiB transparent huge page", 1, 64,
     512},
    {"mmap", "mmap 64 KiB anonymous, write one byte, munmap (fault, zeroing, TLB flush)", 1, 4096,
     1000000},
    {"sched_yield", "sched_yield(): into the scheduler; switches only if a task waits on this CPU",
     16, 4096, 1000000},
    {"pipe-pingpong", "1-byte pipe round trip between two processes on two CPUs (2 wakeups, IPIs)",
     1, 4096, 1000000},
    {"nanosleep", "overshoot of nanosleep(1 us) with 1 ns timer slack (timer programming)", 1, 1000,
     100000},
    {"ioport",
     "IN from port 0x80 (ioperm, root): an I/O exit to the VMM; a #VE and TDVMCALL in a TD", 1,
     2000, 100000},
    {"msr", "read IA32_MISC_ENABLE (0x1a0) via /dev/cpu/N/msr: a system call and an emulated RDMSR",
     1, 2000, 100000},
};

const tb_probe_info *tb_probe_all(size_t *n)
{
    *n = sizeof probes / sizeof probes[0];
    return probes;
}

const tb_probe_info *tb_probe_find(const char *name)
{
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        if (!strcmp(probes[i].name, name))
            return &probes[i];
    return NULL;
}

void tb_probe_summarize(double *x, size_t n, tb_probe_result *out)
{
    tb_stats_sort(x, n);
    out->samples = n;
    out->median_ns = tb_stats_quantile_sorted(x, n, 1, 2);
    out->p99_ns = tb_stats_quantile_sorted(x, n, 99, 100);
    out->min_ns = x[0];
    out->mean_ns = tb_stats_mean(x, n);
}

/* ---------- timing ---------- */

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Median cost of one clock read (back-to-back pairs). */
static double timer_cost(void)
{
    enum { N = 2001 };
    double d[N];
    for (int i = 0; i < N; i++) {
        uint64_t a = now_ns();
        uint64_t b = now_ns();
        d[i] = (double)(b - a);
    }
    tb_stats_sort(d, N);
    return tb_stats_quantile_sorted(d, N, 1, 2);
}

static double per_op(uint64_t t0, uint64_t t1, double timer, unsigned batch)
{
    double v = ((double)(t1 - t0) - timer) / batch;
    return v > 0 ? v : 0;
}

/* Runs body `warmup` times, then takes reps samples of batch bodies each. */
#define SAMPLE(out, reps, batch, warmup, timer, body)                                              \
    do {                                                                                           \
        for (unsigned w_ = 0; w_ < (warmup); w_++) {                                               \
            body;                                                                                  \
        }                                                                                          \
        for (size_t i_ = 0; i_ < (reps); i_++) {                                                   \
            uint64_t t0_ = now_ns();                                                               \
            for (unsigned b_ = 0; b_ < (batch); b_++) {                                            \
                body;                                                                              \
            }                                                                                      \
            (out)[i_] = per_op(t0_, now_ns(), (timer), (batch));                                   \
        }                                                                                          \
    } while (0)

/* ---------- the probes ---------- */

typedef struct run {
    const tb_probe_info *p;
    size_t reps;
    unsigned warmup;
    double timer;
    double *x;
    tb_probe_result *out;
} run;

/* The probe cannot measure here: available 0, and why in its note. Returns 0 (a
   probe's own verdict, not an error). */
static int unavailable(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int unavailable(run *r, const char *fmt, ...)
{
    r->out->available = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->out->note, sizeof r->out->note, fmt, ap);
    va_end(ap);
    return 0;
}

static int probe_cpuid(run *r, tb_err *err)
{
#if TB_X86
    unsigned a, b, c, d;
    volatile unsigned sink = 0;
    SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, {
        __cpuid(0, a, b, c, d);
        sink += a;
    });
    (void)sink;
    return 0;
#else
    return unavailable(r, "not an x86 CPU");
#endif
}

static int probe_rdtsc(run *r, int with_p, tb_err *err)
{
#if TB_X86
    volatile uint64_t sink = 0;
    unsigned aux;
    if (with_p)
        SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, sink += __rdtscp(&aux));
    else
        SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, sink += __rdtsc());
    (void)sink;
    return 0;
#else
    return unavailable(r, "not an x86 CPU");
#endif
}

static int probe_clock(run *r, tb_err *err)
{
    struct timespec ts;
    SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, clock_gettime(CLOCK_MONOTONIC, &ts));
    /* the same call as a real system call, to tell whether libc went through the vDSO */
    size_t n = r->reps < 2000 ? r->reps : 2000;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return tb_errf(err, "out of memory");
    SAMPLE(s, n, 16u, 100u, r->timer, syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts));
    tb_stats_sort(s, n);
    double sys_med = tb_stats_quantile_sorted(s, n, 1, 2);
    free(s);
    double *y = malloc(r->reps * sizeof *y);
    if (!y)
        return tb_errf(err, "out of memory");
    memcpy(y, r->x, r->reps * sizeof *y);
    tb_stats_sort(y, r->reps);
    double libc_med = tb_stats_quantile_sorted(y, r->reps, 1, 2);
    free(y);
    char cs[64];
    tb_err e;
    if (tb_env_clocksource(cs, sizeof cs, &e) < 0)
        snprintf(cs, sizeof cs, "unknown");
    int vdso_mapped = getauxval(AT_SYSINFO_EHDR) != 0;
    int via_vdso = vdso_mapped && libc_med < 0.6 * sys_med;
    snprintf(r->out->note, sizeof r->out->note,
             "clock source %s; %s (libc %.1f ns vs system call %.1f ns per call)", cs,
             via_vdso      ? "through the vDSO"
             : vdso_mapped ? "vDSO falls back to the system call"
                           : "no vDSO",
             libc_med, sys_med);
    return 0;
}

static int probe_getpid(run *r, tb_err *err)
{
    SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, syscall(SYS_getpid));
    return 0;
}

static int probe_yield(run *r, tb_err *err)
{
    SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, sched_yield());
    return 0;
}

static int probe_page4k(run *r, tb_err *err)
{
    size_t len = (r->reps + r->warmup) * 4 * KIB;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return tb_errno(err, "mmap %zu bytes", len);
    madvise(m, len, MADV_NOHUGEPAGE);
    volatile char *v = m;
    for (size_t i = 0; i < r->warmup; i++)
        v[i * 4 * KIB] = 1;
    v += r->warmup * 4 * KIB;
    for (size_t i = 0; i < r->reps; i++) {
        uint64_t t0 = now_ns();
        v[i * 4 * KIB] = 1;
        r->x[i] = per_op(t0, now_ns(), r->timer, 1);
    }
    munmap(m, len);
    snprintf(r->out->note, sizeof r->out->note, "%zu fresh pages, huge pages disabled (madvise)",
             r->reps);
    return 0;
}

/* THP mode from sysfs: the bracketed word of "always [madvise] never". */
static void thp_mode(char *out, size_t len)
{
    tb_buf b = {0};
    tb_err e;
    snprintf(out, len, "unknown");
    if (tb_file_read("/sys/kernel/mm/transparent_hugepage/enabled", 4096, &b, &e) == 0 && b.p) {
        char *o = strchr((char *)b.p, '['), *c = o ? strchr(o, ']') : NULL;
        if (o && c && (size_t)(c - o - 1) < len) {
            memcpy(out, o + 1, (size_t)(c - o - 1));
            out[c - o - 1] = 0;
        }
    }
    tb_buf_clear(&b);
}

/* kB of AnonHugePages in the mapping of /proc/self/smaps that contains addr; -1 unknown. */
static long anon_huge_kb(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "re");
    if (!f)
        return -1;
    char line[512];
    int inside = 0;
    long kb = -1;
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (inside)
                break;
            inside = a >= lo && a < hi;
            continue;
        }
        if (inside && !strncmp(line, "AnonHugePages:", 14)) {
            kb = strtol(line + 14, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

static int probe_page2m(run *r, tb_err *err)
{
    char mode[32];
    thp_mode(mode, sizeof mode);
    if (!strcmp(mode, "never")) {
        return unavailable(r, "transparent huge pages are disabled "
                              "(/sys/kernel/mm/transparent_hugepage/enabled: never)");
    }
    size_t huge = 2 * MIB, n = r->reps;
    size_t len = (n + 1) * huge;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return tb_errno(err, "mmap %zu bytes", len);
    char *base = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
    madvise(base, n * huge, MADV_HUGEPAGE);
    volatile char *v = base;
    for (size_t i = 0; i < n; i++) {
        uint64_t t0 = now_ns();
        v[i * huge] = 1;
        r->x[i] = per_op(t0, now_ns(), r->timer, 1);
    }
    long kb = anon_huge_kb(base);
    munmap(m, len);
    long got = kb < 0 ? -1 : kb / 2048;
    if (got == 0) {
        unavailable(r, "no touch got a huge page (THP mode %s; memory fragmented or THP off)",
                    mode);
    } else if (got < 0) {
        snprintf(r->out->note, sizeof r->out->note,
                 "THP mode %s; huge pages obtained: unknown (/proc/self/smaps unreadable)", mode);
    } else {
        snprintf(r->out->note, sizeof r->out->note,
                 "THP mode %s; %ld of %zu touches got a 2 MiB page (no warm-up: each page "
                 "is new)",
                 mode, got, n);
    }
    return 0;
}

static int probe_mmap(run *r, tb_err *err)
{
    size_t len = 64 * KIB;
    int failed = 0;
    SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, {
        char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            failed = 1;
        } else {
            *(volatile char *)m = 1;
            munmap(m, len);
        }
    });
    if (failed)
        return tb_errno(err, "mmap");
    return 0;
}

static int probe_nanosleep(run *r, tb_err *err)
{
    int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    int slack_set = prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0;
    struct timespec req = {0, 1000};
    for (unsigned w = 0; w < r->warmup; w++)
        nanosleep(&req, NULL);
    for (size_t i = 0; i < r->reps; i++) {
        uint64_t t0 = now_ns();
        nanosleep(&req, NULL);
        double d = (double)(now_ns() - t0) - r->timer - 1000.0;
        r->x[i] = d > 0 ? d : 0;
    }
    if (slack_set && old > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)old, 0, 0, 0);
    snprintf(r->out->note, sizeof r->out->note,
             "overshoot beyond the 1000 ns asked; timer slack %s",
             slack_set ? "1 ns during the probe" : "unchanged (prctl failed)");
    return 0;
}

/* ---------- port I/O and MSRs: exits a probe can only take with privileges ---------- */

#define PROBE_PORT 0x80 /* the POST code port: writes are harmless, reads return junk */
#define PROBE_MSR 0x1a0 /* IA32_MISC_ENABLE: architectural, readable on every x86-64 CPU */

int tb_probe_port_trial(unsigned port, int grant)
{
#if TB_X86
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) { /* only system calls and the instruction: the parent may have threads */
        struct sigaction dfl = {.sa_handler = SIG_DFL}; /* a fault ends it, whoever hooked it */
        sigaction(SIGSEGV, &dfl, NULL);
        sigaction(SIGBUS, &dfl, NULL);
        if (grant && ioperm(port, 1, 1) != 0)
            _exit(2);
        volatile unsigned char v = inb((unsigned short)port);
        (void)v;
        _exit(0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFSIGNALED(st) ? WTERMSIG(st) : WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
#else
    (void)port;
    (void)grant;
    return -1;
#endif
}

static int probe_ioport(run *r, tb_err *err)
{
#if TB_X86
    /* A TD's kernel does not emulate port I/O from user space: its #VE becomes SIGSEGV.
       A child takes the first IN, so that this process never does what kills it. */
    int sig = tb_probe_port_trial(PROBE_PORT, 1);
    if (sig > 0) {
        return unavailable(
            r,
            "IN from port 0x%x killed a test process with %s (a TD's kernel does not "
            "emulate port I/O from user space)",
            PROBE_PORT, strsignal(sig));
    }
    if (ioperm(PROBE_PORT, 1, 1) != 0) {
        int e = errno;
        return unavailable(
            r, "ioperm(0x%x): %s", PROBE_PORT,
            e == EPERM    ? "not permitted (root only: CAP_SYS_RAWIO; refused under kernel "
                            "lockdown)"
            : e == ENOSYS ? "not in this kernel (built without CONFIG_X86_IOPL_IOPERM)"
                          : strerror(e));
    }
    volatile unsigned char sink = 0;
    SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer, sink += inb(PROBE_PORT));
    (void)sink;
    ioperm(PROBE_PORT, 1, 0);
    snprintf(r->out->note, sizeof r->out->note, "IN AL, 0x%x: each one an I/O instruction exit",
             PROBE_PORT);
    return 0;
#else
    return unavailable(r, "not an x86 CPU (no port I/O)");
#endif
}

static int probe_msr(run *r, const char *path_given, tb_err *err)
{
    char path[160];
    if (path_given)
        snprintf(path, sizeof path, "%s", path_given);
    else
        snprintf(path, sizeof path, "/dev/cpu/%d/msr", r->out->cpu);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return unavailable(r, "%s: %s", path,
                           e == ENOENT
                               ? "absent (the msr driver is not loaded -- modprobe msr -- or not "
                                 "in this kernel)"
                           : e == EACCES || e == EPERM ? "not permitted (root only: CAP_SYS_RAWIO)"
                                                       : strerror(e));
    }
    uint64_t v;
    if (pread(fd, &v, sizeof v, PROBE_MSR) != (ssize_t)sizeof v) {
        int e = errno;
        close(fd);
        return unavailable(r, "%s: reading MSR 0x%x: %s", path, PROBE_MSR,
                           e == EIO ? "refused (the CPU or the hypervisor has no such MSR)"
                                    : strerror(e));
    }
    int failed = 0;
    SAMPLE(r->x, r->reps, r->p->batch, r->warmup, r->timer,
           failed |= pread(fd, &v, sizeof v, PROBE_MSR) != (ssize_t)sizeof v);
    close(fd);
    if (failed) /* some reads failed: no figure for what was not measured */
        return unavailable(r, "%s: a read of MSR 0x%x failed midway", path, PROBE_MSR);
    snprintf(r->out->note, sizeof r->out->note, "MSR 0x%x through %s, pinned to CPU %d", PROBE_MSR,
             path, r->out->cpu);
    return 0;
}

/* ---------- pipe ping-pong ---------- */

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s);
}

static void partner(int in, int out, int cpu)
{
    if (cpu >= 0)
        pin(cpu);
    char c;
    for (;;) {
        ssize_t n = read(in, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (write(out, &c, 1) != 1)
            break;
    }
    _exit(0);
}

static int round_trip(int wr, int rd)
{
    char c = 'x';
    if (write(wr, &c, 1) != 1)
        return -1;
    for (;;) {
        ssize_t n = read(rd, &c, 1);
        if (n == 1)
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

static int probe_pipe(run *r, int cpu2, tb_err *err)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0)
        return tb_errno(err, "pipe");
    if (pipe2(from, O_CLOEXEC) != 0) {
        int e = errno;
        close(to[0]);
        close(to[1]);
        errno = e;
        return tb_errno(err, "pipe");
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        errno = e;
        return tb_errno(err, "fork");
    }
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        partner(to[0], from[1], cpu2);
    }
    close(to[0]);
    close(from[1]);
    int rc = 0;
    for (unsigned w = 0; w < r->warmup && !rc; w++)
        rc = round_trip(to[1], from[0]);
    for (size_t i = 0; i < r->reps && !rc; i++) {
        uint64_t t0 = now_ns();
        rc = round_trip(to[1], from[0]);
        r->x[i] = per_op(t0, now_ns(), r->timer, 1);
    }
    close(to[1]); /* partner sees EOF and leaves */
    close(from[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (rc)
        return tb_errf(err, "pipe ping-pong: partner process stopped answering");
    r->out->cpu2 = cpu2;
    if (cpu2 == r->out->cpu)
        snprintf(r->out->note, sizeof r->out->note,
                 "only one CPU available: both processes on CPU %d (context switches, no IPI)",
                 cpu2);
    else
        snprintf(r->out->note, sizeof r->out->note, "per round trip; processes on CPUs %d and %d",
                 r->out->cpu, cpu2);
    return 0;
}

/* ---------- driver ---------- */

/* cpu = want (or the first CPU of mask when want < 0), -1 when not in mask;
   cpu2 = another CPU of mask, or cpu itself when it is the only one. */
static void pick_cpus(const cpu_set_t *mask, int want, int *cpu, int *cpu2)
{
    *cpu = -1;
    if (want >= 0 && want < CPU_SETSIZE && CPU_ISSET(want, mask))
        *cpu = want;
    for (int c = 0; c < CPU_SETSIZE && want < 0 && *cpu < 0; c++)
        if (CPU_ISSET(c, mask))
            *cpu = c;
    *cpu2 = *cpu;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, mask) && c != *cpu) {
            *cpu2 = c;
            break;
        }
}

static int dispatch(run *r, int cpu2, const tb_probe_opts *o, tb_err *err)
{
    const char *n = r->p->name;
    if (!strcmp(n, "cpuid"))
        return probe_cpuid(r, err);
    if (!strcmp(n, "rdtsc"))
        return probe_rdtsc(r, 0, err);
    if (!strcmp(n, "rdtscp"))
        return probe_rdtsc(r, 1, err);
    if (!strcmp(n, "clock_gettime"))
        return probe_clock(r, err);
    if (!strcmp(n, "getpid"))
        return probe_getpid(r, err);
    if (!strcmp(n, "page-4k"))
        return probe_page4k(r, err);
    if (!strcmp(n, "page-2m"))
        return probe_page2m(r, err);
    if (!strcmp(n, "mmap"))
        return probe_mmap(r, err);
    if (!strcmp(n, "sched_yield"))
        return probe_yield(r, err);
    if (!strcmp(n, "pipe-pingpong"))
        return probe_pipe(r, cpu2, err);
    if (!strcmp(n, "nanosleep"))
        return probe_nanosleep(r, err);
    if (!strcmp(n, "ioport"))
        return probe_ioport(r, err);
    if (!strcmp(n, "msr"))
        return probe_msr(r, o->msr_path, err);
    return tb_errf(err, "%s: no such probe", n);
}

size_t tb_probe_reps(const tb_probe_info *p, unsigned requested)
{
    size_t reps = requested ? requested : p->default_reps;
    return reps > p->max_reps ? p->max_reps : reps;
}

int tb_probe_run(const tb_probe_info *p, const tb_probe_opts *o, tb_probe_result *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    out->name = p->name;
    out->batch = p->batch;
    out->available = 1;
    out->cpu2 = -1;
    size_t reps = tb_probe_reps(p, o->reps);
    unsigned warmup = o->warmup ? o->warmup : (unsigned)(reps / 10 < 10 ? 10 : reps / 10);

    cpu_set_t saved;
    if (sched_getaffinity(0, sizeof saved, &saved) != 0)
        return tb_errno(err, "sched_getaffinity");
    int cpu = -1, cpu2 = -1;
    pick_cpus(&saved, o->cpu, &cpu, &cpu2);
    if (cpu < 0)
        return tb_errf(err, "CPU %d: not one this process may run on", o->cpu);
    if (pin(cpu) != 0)
        return tb_errno(err, "pinning to CPU %d", cpu);
    out->cpu = cpu;

    double *x = calloc(reps, sizeof *x);
    if (!x) {
        sched_setaffinity(0, sizeof saved, &saved);
        return tb_errf(err, "out of memory");
    }
    run r = {p, reps, warmup, timer_cost(), x, out};
    out->timer_ns = r.timer;
    int rc = dispatch(&r, cpu2, o, err);
    if (rc == 0 && out->available)
        tb_probe_summarize(x, reps, out);
    free(x);
    sched_setaffinity(0, sizeof saved, &saved);
    if (rc < 0)
        return tb_err_wrap(err, "%s", p->name);
    return 0;
}
