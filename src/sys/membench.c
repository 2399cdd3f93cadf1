/* membench: memory bandwidth, latency and first-touch cost (see membench.h).
 *
 * Owns: the arrays and the chase's working set (fresh anonymous mappings, unmapped on
 * every path), the bandwidth run's worker threads (created and joined within one call;
 * they meet the caller's thread at two barriers per kernel: start and done) and the
 * caller thread's CPU affinity during a chase (restored before returning). The kernels
 * are written here, for this purpose; they take 64-byte aligned slices whose length is
 * a multiple of 8 doubles, so the vector loops need no tail. */
#include "sys/internal.h"
#include "sys/membench.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#define TB_NT_STORES 1
#else
#define TB_NT_STORES 0
#endif

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "stats/summary.h"

#define LINE 64
#define SCALAR 3.0

static const char *const kernel_names[TB_MEM_NKERNELS] = {"copy", "scale", "add", "triad"};
static const unsigned kernel_bytes[TB_MEM_NKERNELS] = {16, 16, 24, 24};

const char *tb_mem_kernel_name(tb_mem_kernel k)
{
    return (unsigned)k < TB_MEM_NKERNELS ? kernel_names[k] : NULL;
}

unsigned tb_mem_kernel_bytes(tb_mem_kernel k)
{
    return (unsigned)k < TB_MEM_NKERNELS ? kernel_bytes[k] : 0;
}

/* ---------- the kernels: [0, n) of 64-byte aligned arrays, n a multiple of 8 ---------- */

#if TB_NT_STORES
/* One line (8 doubles) of each kernel at element i, with non-temporal stores. */
static inline void line_copy(double *restrict c, const double *restrict a, size_t i)
{
    __m128d x0 = _mm_load_pd(a + i), x1 = _mm_load_pd(a + i + 2);
    __m128d x2 = _mm_load_pd(a + i + 4), x3 = _mm_load_pd(a + i + 6);
    _mm_stream_pd(c + i, x0);
    _mm_stream_pd(c + i + 2, x1);
    _mm_stream_pd(c + i + 4, x2);
    _mm_stream_pd(c + i + 6, x3);
}

static inline void line_scale(double *restrict b, const double *restrict c, __m128d v, size_t i)
{
    __m128d x0 = _mm_load_pd(c + i), x1 = _mm_load_pd(c + i + 2);
    __m128d x2 = _mm_load_pd(c + i + 4), x3 = _mm_load_pd(c + i + 6);
    _mm_stream_pd(b + i, _mm_mul_pd(v, x0));
    _mm_stream_pd(b + i + 2, _mm_mul_pd(v, x1));
    _mm_stream_pd(b + i + 4, _mm_mul_pd(v, x2));
    _mm_stream_pd(b + i + 6, _mm_mul_pd(v, x3));
}

static inline void line_add(double *restrict c, const double *restrict a, const double *restrict b,
                            size_t i)
{
    for (size_t k = 0; k < 8; k += 2)
        _mm_stream_pd(c + i + k, _mm_add_pd(_mm_load_pd(a + i + k), _mm_load_pd(b + i + k)));
}

static inline void line_triad(double *restrict a, const double *restrict b,
                              const double *restrict c, __m128d v, size_t i)
{
    for (size_t k = 0; k < 8; k += 2)
        _mm_stream_pd(a + i + k,
                      _mm_add_pd(_mm_load_pd(b + i + k), _mm_mul_pd(v, _mm_load_pd(c + i + k))));
}

/* A slice is walked as four interleaved streams -- one line of each quarter per step --
   so that one thread keeps more lines in flight than one stream's prefetcher asks for
   (on a 2-CPU Xeon VM: 26 GB/s for copy against 19 GB/s walking it straight, and
   glibc's memcpy, which interleaves pages for the same reason, 24 GB/s). */
#define STREAMS4(n, body)                                                                          \
    do {                                                                                           \
        size_t q_ = (n) / 32 * 8;                                                                  \
        for (size_t j_ = 0; j_ < q_; j_ += 8) {                                                    \
            size_t i = j_;                                                                         \
            body;                                                                                  \
            i = j_ + q_;                                                                           \
            body;                                                                                  \
            i = j_ + 2 * q_;                                                                       \
            body;                                                                                  \
            i = j_ + 3 * q_;                                                                       \
            body;                                                                                  \
        }                                                                                          \
        for (size_t i = 4 * q_; i < (n); i += 8) {                                                 \
            body;                                                                                  \
        }                                                                                          \
    } while (0)

static void k_copy(double *restrict c, const double *restrict a, size_t n)
{
    STREAMS4(n, line_copy(c, a, i));
}

static void k_scale(double *restrict b, const double *restrict c, double s, size_t n)
{
    __m128d v = _mm_set1_pd(s);
    STREAMS4(n, line_scale(b, c, v, i));
}

static void k_add(double *restrict c, const double *restrict a, const double *restrict b, size_t n)
{
    STREAMS4(n, line_add(c, a, b, i));
}

static void k_triad(double *restrict a, const double *restrict b, const double *restrict c,
                    double s, size_t n)
{
    __m128d v = _mm_set1_pd(s);
    STREAMS4(n, line_triad(a, b, c, v, i));
}

static void store_fence(void)
{
    _mm_sfence(); /* the streamed lines are in memory before the barrier says done */
}
#else
static void k_copy(double *restrict c, const double *restrict a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i];
}

static void k_scale(double *restrict b, const double *restrict c, double s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = s * c[i];
}

static void k_add(double *restrict c, const double *restrict a, const double *restrict b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

static void k_triad(double *restrict a, const double *restrict b, const double *restrict c,
                    double s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

static void store_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

/* ---------- bandwidth: the workers ---------- */

enum { OP_INIT = TB_MEM_NKERNELS, OP_QUIT };

typedef struct bw_shared {
    double *a, *b, *c;
    pthread_barrier_t start, done;
    int op; /* written by the caller before start, read by the workers after it */
    /* the gate every worker passes before its first barrier: opened (go 1) once all of
       them run, or (go -1) to send them home when one could not be started */
    pthread_mutex_t gate_mu;
    pthread_cond_t gate_cv;
    int go;
} bw_shared;

typedef struct bw_worker {
    bw_shared *sh;
    size_t lo, n; /* the slice: [lo, lo + n), lo and n multiples of 8 */
    pthread_t tid;
} bw_worker;

static void run_op(bw_worker *w, int op)
{
    double *a = w->sh->a + w->lo, *b = w->sh->b + w->lo, *c = w->sh->c + w->lo;
    switch (op) {
    case OP_INIT: /* first touch: by the thread that will use the pages */
        for (size_t i = 0; i < w->n; i++) {
            a[i] = 1.0;
            b[i] = 2.0;
            c[i] = 0.0;
        }
        break;
    case TB_MEM_COPY:
        k_copy(c, a, w->n);
        break;
    case TB_MEM_SCALE:
        k_scale(b, c, SCALAR, w->n);
        break;
    case TB_MEM_ADD:
        k_add(c, a, b, w->n);
        break;
    case TB_MEM_TRIAD:
        k_triad(a, b, c, SCALAR, w->n);
        break;
    }
    store_fence();
}

static void *bw_main(void *arg)
{
    bw_worker *w = arg;
    pthread_mutex_lock(&w->sh->gate_mu);
    while (!w->sh->go)
        pthread_cond_wait(&w->sh->gate_cv, &w->sh->gate_mu);
    int go = w->sh->go;
    pthread_mutex_unlock(&w->sh->gate_mu);
    if (go < 0)
        return NULL;
    for (;;) {
        pthread_barrier_wait(&w->sh->start);
        int op = __atomic_load_n(&w->sh->op, __ATOMIC_ACQUIRE);
        if (op == OP_QUIT)
            return NULL;
        run_op(w, op);
        pthread_barrier_wait(&w->sh->done);
    }
}

/* Runs op on every worker; its wall time in ns. */
static uint64_t bw_op(bw_shared *sh, int op)
{
    __atomic_store_n(&sh->op, op, __ATOMIC_RELEASE);
    pthread_barrier_wait(&sh->start);
    uint64_t t0 = tb_mono_ns();
    pthread_barrier_wait(&sh->done);
    return tb_mono_ns() - t0;
}

/* The CPUs this process may use, in order, into cpus (at most max); their count. */
static int allowed_cpus(int *cpus, int max)
{
    cpu_set_t s;
    int n = 0;
    if (sched_getaffinity(0, sizeof s, &s) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &s))
            cpus[n++] = c;
    return n;
}

/* The values the arrays must hold after `iterations` passes of the four kernels. */
static void expected(int iterations, double *ea, double *eb, double *ec)
{
    double a = 1.0, b = 2.0, c = 0.0;
    for (int k = 0; k < iterations; k++) {
        c = a;
        b = SCALAR * c;
        c = a + b;
        a = b + SCALAR * c;
    }
    *ea = a;
    *eb = b;
    *ec = c;
}

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want) + 1e-300;
}

/* Every thread's slice was run: a sample of elements across the arrays, the last one too. */
static int bw_check(const bw_shared *sh, size_t n, int iterations, tb_err *err)
{
    double ea, eb, ec;
    expected(iterations, &ea, &eb, &ec);
    size_t step = n / 4099 ? n / 4099 : 1;
    for (size_t i = 0; i < n; i = i + step < n || i == n - 1 ? i + step : n - 1) {
        if (!close_to(sh->a[i], ea) || !close_to(sh->b[i], eb) || !close_to(sh->c[i], ec))
            return tb_errf(err,
                           "memory bandwidth: element %zu holds %g %g %g after %d passes, not "
                           "%g %g %g",
                           i, sh->a[i], sh->b[i], sh->c[i], iterations, ea, eb, ec);
    }
    return 0;
}

static void *map_fresh(size_t len)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

/* Starts the workers (pinned one a CPU when there are enough); the count started. */
static int bw_start(bw_shared *sh, bw_worker *w, int threads, size_t n, int *pinned, tb_err *err)
{
    int cpus[1024];
    int ncpu = allowed_cpus(cpus, 1024);
    *pinned = ncpu >= threads;
    size_t blocks = n / 8;
    for (int i = 0; i < threads; i++) {
        size_t b0 = blocks * (size_t)i / (size_t)threads;
        size_t b1 = blocks * (size_t)(i + 1) / (size_t)threads;
        w[i] = (bw_worker){.sh = sh, .lo = b0 * 8, .n = (b1 - b0) * 8};
        pthread_attr_t at;
        pthread_attr_init(&at);
        if (*pinned) {
            cpu_set_t s;
            CPU_ZERO(&s);
            CPU_SET(cpus[i], &s);
            pthread_attr_setaffinity_np(&at, sizeof s, &s);
        }
        int rc = pthread_create(&w[i].tid, &at, bw_main, &w[i]);
        pthread_attr_destroy(&at);
        if (rc != 0) {
            errno = rc;
            tb_errno(err, "memory bandwidth: starting thread %d of %d", i + 1, threads);
            return i;
        }
    }
    return threads;
}

int tb_mem_bandwidth(const tb_mem_bw_opts *o, tb_mem_bw_result *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    if (o->threads < 1 || o->threads > 1024)
        return tb_errf(err, "memory bandwidth: %d threads (1..1024)", o->threads);
    if (o->passes < 1 || o->passes > TB_MEM_PASSES_MAX)
        return tb_errf(err, "memory bandwidth: %d passes (1..%d)", o->passes, TB_MEM_PASSES_MAX);
    size_t n = o->array_bytes / sizeof(double) / 8 * 8;
    if (n < (size_t)o->threads * 8)
        return tb_errf(err, "memory bandwidth: arrays of %zu bytes: at least 64 per thread",
                       o->array_bytes);
    size_t len = n * sizeof(double);
    bw_shared sh = {0};
    sh.a = map_fresh(len);
    sh.b = map_fresh(len);
    sh.c = map_fresh(len);
    bw_worker *w = calloc((size_t)o->threads, sizeof *w);
    int rc = -1, started = 0;
    if (!sh.a || !sh.b || !sh.c || !w) {
        tb_errno(err, "memory bandwidth: three arrays of %zu bytes", len);
        goto out;
    }
    pthread_barrier_init(&sh.start, NULL, (unsigned)o->threads + 1);
    pthread_barrier_init(&sh.done, NULL, (unsigned)o->threads + 1);
    pthread_mutex_init(&sh.gate_mu, NULL);
    pthread_cond_init(&sh.gate_cv, NULL);
    started = bw_start(&sh, w, o->threads, n, &out->pinned, err);
    pthread_mutex_lock(&sh.gate_mu);
    sh.go = started < o->threads ? -1 : 1; /* with one missing, the barriers never open */
    pthread_cond_broadcast(&sh.gate_cv);
    pthread_mutex_unlock(&sh.gate_mu);
    if (started < o->threads) {
        for (int i = 0; i < started; i++)
            pthread_join(w[i].tid, NULL);
        started = 0;
        goto barriers;
    }
    bw_op(&sh, OP_INIT);
    double sum[TB_MEM_NKERNELS] = {0};
    int iterations = 0;
    for (int pass = 0; pass <= o->passes && !out->stopped; pass++) {
        for (int k = 0; k < TB_MEM_NKERNELS; k++) {
            if (o->stop && *o->stop) {
                out->stopped = 1;
                break;
            }
            double s = (double)bw_op(&sh, k) / 1e9;
            if (pass == 0)
                continue; /* the warm-up */
            sum[k] += s;
            if (out->best_s[k] == 0 || s < out->best_s[k])
                out->best_s[k] = s;
        }
        if (!out->stopped)
            iterations++;
    }
    __atomic_store_n(&sh.op, OP_QUIT, __ATOMIC_RELEASE);
    pthread_barrier_wait(&sh.start);
    for (int i = 0; i < started; i++)
        pthread_join(w[i].tid, NULL);
    started = 0;
    out->elements = n;
    out->threads = o->threads;
    out->passes = o->passes;
    out->nt_stores = TB_NT_STORES;
    for (int k = 0; k < TB_MEM_NKERNELS && !out->stopped; k++) {
        double s = out->best_s[k] > 0 ? out->best_s[k] : 1e-9; /* below the clock's grain */
        out->best_Bps[k] = (double)kernel_bytes[k] * (double)n / s;
        out->mean_s[k] = sum[k] / o->passes;
    }
    rc = out->stopped ? 0 : bw_check(&sh, n, iterations, err);
barriers:
    pthread_barrier_destroy(&sh.start);
    pthread_barrier_destroy(&sh.done);
    pthread_mutex_destroy(&sh.gate_mu);
    pthread_cond_destroy(&sh.gate_cv);
out:
    free(w);
    if (sh.a)
        munmap(sh.a, len);
    if (sh.b)
        munmap(sh.b, len);
    if (sh.c)
        munmap(sh.c, len);
    return rc;
}

/* ---------- latency: the pointer chase ---------- */

void tb_mem_chase_order(uint32_t *next, size_t n, uint64_t seed)
{
    uint64_t st = seed ? seed : 0x74656562656e6368ull; /* "teebench" */
    for (size_t i = 0; i < n; i++)
        next[i] = (uint32_t)i;
    /* Sattolo: swapping i only with an earlier j leaves one cycle through all of them */
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(((unsigned __int128)tb_stats_splitmix64(&st) * i) >> 64);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}

#define CHASE_CHUNK 65536 /* loads between two reads of the clock */
#define CHASE_MAX_BYTES (64ull << 30)

/* CHASE_CHUNK dependent loads from p; the pointer reached. */
static void *chase_chunk(void *p)
{
    void **q = p;
    for (int i = 0; i < CHASE_CHUNK; i += 8) {
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
    }
    return q;
}

static int pin_self(int want, int *cpu, cpu_set_t *saved, tb_err *err)
{
    if (sched_getaffinity(0, sizeof *saved, saved) != 0)
        return tb_errno(err, "sched_getaffinity");
    *cpu = -1;
    if (want >= 0 && want < CPU_SETSIZE && CPU_ISSET(want, saved))
        *cpu = want;
    for (int c = 0; c < CPU_SETSIZE && want < 0 && *cpu < 0; c++)
        if (CPU_ISSET(c, saved))
            *cpu = c;
    if (*cpu < 0)
        return tb_errf(err, "CPU %d: not one this process may run on", want);
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(*cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0)
        return tb_errno(err, "pinning to CPU %d", *cpu);
    return 0;
}

int tb_mem_chase(const tb_mem_chase_opts *o, tb_mem_chase_result *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    if (o->bytes < 2 * LINE || o->bytes > CHASE_MAX_BYTES)
        return tb_errf(err, "memory latency: a working set of %zu bytes (128 B .. 64 GiB)",
                       o->bytes);
    if (!(o->seconds > 0))
        return tb_errf(err, "memory latency: chase time must be > 0");
    size_t n = o->bytes / LINE, len = n * LINE;
    char *m = map_fresh(len);
    uint32_t *next = malloc(n * sizeof *next);
    if (!m || !next) {
        free(next);
        if (m)
            munmap(m, len);
        return tb_errno(err, "memory latency: a working set of %zu bytes", len);
    }
    tb_mem_chase_order(next, n, o->seed);
    for (size_t i = 0; i < n; i++)
        *(void **)(m + i * LINE) = m + (size_t)next[i] * LINE;
    free(next);
    cpu_set_t saved;
    if (pin_self(o->cpu, &out->cpu, &saved, err) < 0) {
        munmap(m, len);
        return -1;
    }
    void *p = m;
    /* warm-up: the whole cycle once (at most 2^20 loads), into the caches and TLBs */
    size_t warm = n < (1u << 20) ? n : (1u << 20);
    for (size_t i = 0; i < warm; i++)
        p = *(void **)p;
    uint64_t limit = (uint64_t)(o->seconds * 1e9), t0 = tb_mono_ns(), t;
    uint64_t loads = 0;
    do {
        p = chase_chunk(p);
        loads += CHASE_CHUNK;
        t = tb_mono_ns() - t0;
        if (o->stop && *o->stop) {
            out->stopped = 1;
            break;
        }
    } while (t < limit);
    /* the chain ends where it must: p stays a line of the set (and the loads are used) */
    int inside = (char *)p >= m && (char *)p < m + len && ((char *)p - m) % LINE == 0;
    sched_setaffinity(0, sizeof saved, &saved);
    munmap(m, len);
    if (!inside)
        return tb_errf(err, "memory latency: the chase left its working set");
    out->loads = loads;
    out->lines = n;
    out->seconds = (double)t / 1e9;
    out->ns_per_load = (double)t / (double)loads;
    return 0;
}

/* ---------- first touch ---------- */

int tb_mem_first_touch(size_t bytes, tb_mem_touch_result *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    if (bytes < 4096)
        return tb_errf(err, "first touch: a region of %zu bytes (at least 4096)", bytes);
    size_t len = (bytes + page - 1) / page * page;
    unsigned char *vec = malloc(len / page);
    if (!vec)
        return tb_errf(err, "out of memory");
    uint64_t t0 = tb_mono_ns();
    void *m =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    uint64_t t1 = tb_mono_ns();
    if (m == MAP_FAILED) {
        free(vec);
        return tb_errno(err, "first touch: mmap(MAP_POPULATE) of %zu bytes", len);
    }
    size_t missing = 0;
    if (mincore(m, len, vec) == 0) {
        for (size_t i = 0; i < len / page; i++)
            missing += !(vec[i] & 1);
    } else {
        missing = len / page;
    }
    uint64_t t2 = tb_mono_ns();
    munmap(m, len);
    uint64_t t3 = tb_mono_ns();
    free(vec);
    if (missing)
        return tb_errf(err,
                       "first touch: MAP_POPULATE left %zu of %zu pages of %zu bytes not "
                       "resident (a memory limit?): no figure for it",
                       missing, len / page, len);
    out->seconds = (double)(t1 - t0) / 1e9;
    out->pages = len / 4096;
    out->ns_per_page = (double)(t1 - t0) / (double)out->pages;
    out->munmap_s = (double)(t3 - t2) / 1e9;
    return 0;
}

/* ---------- facts ---------- */

/* A sysfs file's first line into out ("" when unreadable). */
static void read_line(const char *path, char *out, size_t n)
{
    tb_buf b = {0};
    tb_err e;
    out[0] = 0;
    if (tb_file_read(path, 4096, &b, &e) == 0 && b.p) {
        char *s = (char *)b.p;
        s[strcspn(s, "\n")] = 0;
        snprintf(out, n, "%s", s);
    }
    tb_buf_clear(&b);
}

/* "307200K", "32M", "1024" -> bytes; 0 when it is not a size. */
static uint64_t cache_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    uint64_t mul = *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : *end == 'G' ? 1ull << 30 : 1;
    if (mul > 1)
        end++;
    return *end ? 0 : (uint64_t)v * mul;
}

#define MAX_INSTANCES 256

typedef struct llc_scan {
    int level;
    uint64_t total;
    char seen[MAX_INSTANCES][64]; /* shared_cpu_list of the instances counted */
    int n_seen;
} llc_scan;

static void scan_cache(llc_scan *s, const char *dir)
{
    char path[1024], level[16], type[32], size[32], shared[64];
    snprintf(path, sizeof path, "%s/level", dir);
    read_line(path, level, sizeof level);
    snprintf(path, sizeof path, "%s/type", dir);
    read_line(path, type, sizeof type);
    snprintf(path, sizeof path, "%s/size", dir);
    read_line(path, size, sizeof size);
    snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
    read_line(path, shared, sizeof shared);
    int lv = atoi(level);
    uint64_t bytes = cache_size(size);
    if (lv <= 0 || !bytes || !strcmp(type, "Instruction") || lv < s->level)
        return;
    if (lv > s->level) {
        s->level = lv;
        s->total = 0;
        s->n_seen = 0;
    }
    for (int i = 0; i < s->n_seen; i++)
        if (!strcmp(s->seen[i], shared))
            return;
    if (s->n_seen < MAX_INSTANCES)
        snprintf(s->seen[s->n_seen++], sizeof s->seen[0], "%s", shared);
    s->total += bytes;
}

uint64_t tb_mem_llc_bytes(const char *sysfs_cpu)
{
    DIR *d = opendir(sysfs_cpu);
    if (!d)
        return 0;
    llc_scan *s = calloc(1, sizeof *s);
    if (!s) {
        closedir(d);
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
            continue;
        for (int i = 0; i < 16; i++) {
            char dir[768];
            snprintf(dir, sizeof dir, "%s/%s/cache/index%d", sysfs_cpu, e->d_name, i);
            if (access(dir, F_OK) == 0)
                scan_cache(s, dir);
        }
    }
    closedir(d);
    uint64_t total = s->total;
    free(s);
    return total;
}

void tb_mem_thp_mode(char *out, size_t n)
{
    char line[128];
    read_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line);
    char *o = strchr(line, '['), *c = o ? strchr(o, ']') : NULL;
    if (o && c && (size_t)(c - o - 1) < n)
        snprintf(out, n, "%.*s", (int)(c - o - 1), o + 1);
    else
        snprintf(out, n, "unknown");
}
