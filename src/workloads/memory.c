/* workloads/memory: the memory workload -- sys/membench in process: bandwidth
 * (STREAM's four kernels over three arrays well beyond the last-level cache, per
 * thread count), latency (a dependent pointer chase per working set, 4 KiB to
 * 1 GiB) and first touch (mmap MAP_POPULATE of a fresh region: where a TD's lazy
 * page acceptance shows, the first time the guest uses its memory).
 *
 * Metrics, the sweeps' values in the names: memory.bw.<kernel>.t<N> (B/s; N the
 * thread count, "n" for one thread per CPU online), memory.latency.<size> (ns per
 * load; "4kib", "1mib", "1gib": a sweep, the report's line chart by working set),
 * memory.first_touch (ns per 4 KiB page). One sample per name and round; each part (bandwidth,
 * latency, first-touch) is one step.
 *
 * Memory is taken per step and given back before the step returns. Nothing asks
 * for more than half of MemAvailable: arrays shrink (a warning says so) and a
 * working set or region that does not fit is left out with the reason. */
#include "workloads/internal.h"
#include "workloads/memory.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "sys/membench.h"

_Static_assert(sizeof(tb_wl_memory_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_memory_params, f)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static const char *const part_names[TB_WL_MEM_PARTS] = {"bandwidth", "latency", "first-touch"};

const char *tb_wl_memory_part_name(tb_wl_memory_part part)
{
    return (unsigned)part < TB_WL_MEM_PARTS ? part_names[part] : NULL;
}

/* ---- sizes ---- */

int tb_wl_memory_size_parse(const char *key, const char *v, uint64_t *out, tb_err *err)
{
    uint64_t x;
    tb_num_status st = tb_wl_size(v, 0, UINT64_MAX, &x);
    if (st == TB_NUM_RANGE)
        return tb_errf(err, "%s: %.40s is too large", key, v);
    if (st != TB_NUM_OK || x == 0)
        return tb_errf(err, "%s: '%.40s' is not a size (e.g. 4k, 64m, 1g)", key, v);
    *out = x;
    return 0;
}

void tb_wl_memory_size_name(uint64_t b, char *out, size_t n)
{
    if (b && b % GIB == 0)
        snprintf(out, n, "%" PRIu64 "g", b / GIB);
    else if (b && b % MIB == 0)
        snprintf(out, n, "%" PRIu64 "m", b / MIB);
    else if (b && b % 1024 == 0)
        snprintf(out, n, "%" PRIu64 "k", b / 1024);
    else
        snprintf(out, n, "%" PRIu64, b);
}

/* ---- parameters ---- */

/* memory.parts: "first_touch" is another spelling of first-touch */
static const tb_wl_name_set part_set = {.what = "part",
                                        .names = part_names,
                                        .n = TB_WL_MEM_PARTS,
                                        .alias = "first_touch",
                                        .alias_of = TB_WL_MEM_FIRST_TOUCH};

static int parse_array(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_memory_params *m = params;
    if (!strcmp(v, "auto"))
        return m->array_bytes = 0, 0;
    uint64_t b;
    if (tb_wl_memory_size_parse(key, v, &b, err) < 0)
        return -1;
    if (b < 64 * 1024 || b > 1024 * GIB)
        return tb_errf(err, "%s: %.40s is out of range (64k .. 1t, or auto)", key, v);
    m->array_bytes = b;
    return 0;
}

static json_t *size_json(uint64_t b)
{
    char s[32];
    tb_wl_memory_size_name(b, s, sizeof s);
    return json_string(s);
}

static json_t *array_json(const void *params)
{
    const tb_wl_memory_params *m = params;
    return m->array_bytes ? size_json(m->array_bytes) : json_string("auto");
}

static int thread_token(void *ctx, const char *t, tb_err *err)
{
    tb_wl_memory_params *m = ctx;
    int n = 0;
    if (strcmp(t, "n") && tb_wl_parse_int("", t, 1, 1024, &n, err) < 0)
        return tb_errf(err, "'%.40s': want a thread count (1..1024) or n (one per CPU online)", t);
    for (int i = 0; i < m->n_threads; i++)
        if (m->threads[i] == n)
            return 0;
    if (m->n_threads == TB_WL_MEMORY_MAX_THREADS)
        return tb_errf(err, "more than %d thread counts", TB_WL_MEMORY_MAX_THREADS);
    m->threads[m->n_threads++] = n;
    return 0;
}

static json_t *thread_item(const void *params, int i)
{
    const tb_wl_memory_params *m = params;
    char s[16];
    snprintf(s, sizeof s, "%d", m->threads[i]);
    return json_string(m->threads[i] ? s : "n");
}

static int size_token(void *ctx, const char *t, tb_err *err)
{
    tb_wl_memory_params *m = ctx;
    uint64_t b;
    if (tb_wl_memory_size_parse("", t, &b, err) < 0)
        return tb_errf(err, "'%.40s' is not a size (e.g. 4k, 64m, 1g)", t);
    if (b < 4096 || b > 64 * GIB)
        return tb_errf(err, "%.40s is out of range (4k .. 64g)", t);
    int k = m->n_sizes;
    for (int i = 0; i < m->n_sizes; i++)
        if (m->sizes[i] == b)
            return 0;
    if (m->n_sizes == TB_WL_MEMORY_MAX_SIZES)
        return tb_errf(err, "more than %d working sets", TB_WL_MEMORY_MAX_SIZES);
    while (k > 0 && m->sizes[k - 1] > b) { /* ascending */
        m->sizes[k] = m->sizes[k - 1];
        k--;
    }
    m->sizes[k] = b;
    m->n_sizes++;
    return 0;
}

static json_t *size_item(const void *params, int i)
{
    return size_json(((const tb_wl_memory_params *)params)->sizes[i]);
}

static int parse_touch(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_memory_params *m = params;
    uint64_t b;
    if (tb_wl_memory_size_parse(key, v, &b, err) < 0)
        return -1;
    if (b < 1 * MIB || b > 1024 * GIB)
        return tb_errf(err, "%s: %.40s is out of range (1m .. 1t)", key, v);
    m->touch_bytes = b;
    return 0;
}

static json_t *touch_json(const void *params)
{
    return size_json(((const tb_wl_memory_params *)params)->touch_bytes);
}

static const tb_wl_param param_table[] = {
    {"parts", "bandwidth, latency and/or first-touch", TB_WLP_NAMES, P(part), .names = &part_set,
     .def = {"bandwidth,latency,first-touch"}},
    {"array", "bandwidth: bytes of each of the 3 arrays (auto: 4 x the last-level cache)",
     TB_WLP_CUSTOM, .parse = parse_array, .json = array_json, .def = {"16m", "auto"}},
    {"passes", "bandwidth: timed passes of the 4 kernels (the best counts)", TB_WLP_INT, P(passes),
     .lo = 1, .hi = TB_MEM_PASSES_MAX, .def = {"2", "2", "10"}},
    {"threads", "bandwidth: thread counts (n: one per CPU online)", TB_WLP_LIST, P(n_threads),
     .token = thread_token, .item = thread_item, .def = {"1", "1,n"}},
    {"sizes", "latency: the pointer chase's working sets (4k .. 64g)", TB_WLP_LIST, P(n_sizes),
     .token = size_token, .item = size_item,
     .def = {"4k,64k,1m,16m", "4k,16k,64k,256k,1m,4m,16m,64m,256m,1g"}},
    {"chase", "latency: seconds of chasing per working set", TB_WLP_SECONDS, P(chase_s),
     .lo = 0.001, .hi = 600, .def = {"50ms", "100ms", "200ms"}},
    {"first_touch", "first touch: the region mapped with MAP_POPULATE", TB_WLP_CUSTOM,
     .parse = parse_touch, .json = touch_json, .def = {"64m", "1g"}},
};

static int check(const void *params, tb_err *err)
{
    const tb_wl_memory_params *m = params;
    int any = 0;
    for (int i = 0; i < TB_WL_MEM_PARTS; i++)
        any |= m->part[i];
    if (!any)
        return tb_errf(err, "memory.parts: none selected");
    return 0;
}

/* ---- the metric table ---- */

#define BW(k)                                                                                      \
    {                                                                                              \
        "memory.bw." k ".*", "B/s", TB_WL_HIGHER, TB_CAT_MEMORY, 0, NULL, 0, 0                     \
    }

static const tb_wl_metric metrics[] = {
    BW("copy"),
    BW("scale"),
    BW("add"),
    BW("triad"),
    {"memory.latency.*", "ns", TB_WL_LOWER, TB_CAT_MEMORY, 0, NULL, 0, 0},
    {"memory.first_touch", "ns", TB_WL_LOWER, TB_CAT_MEMORY, 0, NULL, 0, 0},
};

/* "t1", "t4", "tn" */
static void thread_label(int threads, char *out, size_t n)
{
    if (threads)
        snprintf(out, n, "t%d", threads);
    else
        snprintf(out, n, "tn");
}

/* memory.latency.<size> with the size in binary units ("4kib", "1gib", a bare count of
   bytes otherwise): the segment the report's working-set sweep reads (family.c: "4k"
   would be 4000 there). */
static void latency_name(const char *label, char *out, size_t n)
{
    size_t l = strlen(label);
    int binary = l > 1 && strchr("kmgt", label[l - 1]);
    snprintf(out, n, "memory.latency.%s%s", label, binary ? "ib" : "");
}

static const tb_wl_family families[] = {
    {.kind = TB_WLF_SWEEP,
     .title = "latency by working set",
     .metric = "memory.latency.*",
     .prefix = "",
     .axis = "working set",
     .unit = "B",
     .log = 1},
};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_memory_params *m = params;
    char name[128], label[32];
    for (int t = 0; m->part[TB_WL_MEM_BANDWIDTH] && t < m->n_threads; t++)
        for (int k = 0; k < TB_MEM_NKERNELS; k++) {
            thread_label(m->threads[t], label, sizeof label);
            snprintf(name, sizeof name, "memory.bw.%s.%s", tb_mem_kernel_name(k), label);
            if (emit(ctx, name) < 0)
                return -1;
        }
    for (int i = 0; m->part[TB_WL_MEM_LATENCY] && i < m->n_sizes; i++) {
        tb_wl_memory_size_name(m->sizes[i], label, sizeof label);
        latency_name(label, name, sizeof name);
        if (emit(ctx, name) < 0)
            return -1;
    }
    if (m->part[TB_WL_MEM_FIRST_TOUCH] && emit(ctx, "memory.first_touch") < 0)
        return -1;
    return 0;
}

/* ---- steps and their estimates ---- */

uint64_t tb_wl_memory_array_auto(const tb_wl_memory_params *p, uint64_t llc)
{
    if (p->array_bytes)
        return p->array_bytes;
    if (!llc)
        return 256 * MIB;
    return 4 * llc > 64 * MIB ? 4 * llc : 64 * MIB;
}

/* The last-level cache's bytes (0: unknown), read where p says. */
static uint64_t llc_bytes(const tb_wl_memory_params *p)
{
    return tb_mem_llc_bytes(p->sysfs_cpu ? p->sysfs_cpu : "/sys/devices/system/cpu");
}

/* Seconds a part takes on a 2-CPU VM (~15 GB/s, chases built at ~100 ns a line). */
static double part_estimate(const tb_wl_memory_params *m, int part)
{
    if (part == TB_WL_MEM_BANDWIDTH) {
        double a = (double)tb_wl_memory_array_auto(m, llc_bytes(m));
        /* the first touch of the 3 arrays at ~2 GB/s, then the warm-up and the timed
           passes, each moving 10 x an array's bytes (2 + 2 + 3 + 3) */
        return m->n_threads * (3 * a / 2e9 + (m->passes + 1) * 10 * a / 15e9);
    }
    if (part == TB_WL_MEM_LATENCY) {
        double s = 0;
        for (int i = 0; i < m->n_sizes; i++)
            s += m->chase_s + (double)m->sizes[i] / 64 * 100e-9;
        return s;
    }
    return (double)m->touch_bytes / 2e9;
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_memory_params *m = params;
    size_t n = 0;
    for (int i = 0; i < TB_WL_MEM_PARTS; i++)
        if (m->part[i])
            out[n++] = (tb_wl_step){part_names[i], part_estimate(m, i)};
    return n;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_memory_params *m = params;
    char a[32], lo[32], hi[32], t[32];
    if (!strcmp(target, "bandwidth")) {
        t[0] = 0;
        for (int i = 0; i < m->n_threads; i++) {
            json_t *v = thread_item(m, i);
            size_t k = strlen(t);
            snprintf(t + k, sizeof t - k, "%s%s", i ? "," : "", json_string_value(v));
            json_decref(v);
        }
        if (m->array_bytes)
            tb_wl_memory_size_name(m->array_bytes, a, sizeof a);
        snprintf(out, n, "copy, scale, add, triad over 3 arrays of %s, %s thread(s), best of %d",
                 m->array_bytes ? a : "4 x the LLC", t, m->passes);
    } else if (!strcmp(target, "latency")) {
        tb_wl_memory_size_name(m->n_sizes ? m->sizes[0] : 0, lo, sizeof lo);
        tb_wl_memory_size_name(m->n_sizes ? m->sizes[m->n_sizes - 1] : 0, hi, sizeof hi);
        snprintf(out, n, "pointer chase over %d working sets, %s .. %s, %gs each", m->n_sizes, lo,
                 hi, m->chase_s);
    } else {
        tb_wl_memory_size_name(m->touch_bytes, a, sizeof a);
        snprintf(out, n, "mmap(MAP_POPULATE) of %s", a);
    }
}

/* ---- runs ---- */

/* MemAvailable in bytes, 0 when unknown. */
static uint64_t mem_available(void)
{
    tb_buf b = {0};
    tb_err e;
    uint64_t v = 0;
    if (tb_file_read("/proc/meminfo", 1 << 16, &b, &e) == 0 && b.p) {
        const char *s = strstr((const char *)b.p, "MemAvailable:");
        unsigned long long kb;
        if (s && sscanf(s + 13, "%llu", &kb) == 1)
            v = (uint64_t)kb * 1024;
    }
    tb_buf_clear(&b);
    return v;
}

static void warn(json_t *doc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(json_t *doc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_array_append_new(tb_wl_doc_array(doc, "warnings"), json_vsprintf(fmt, ap));
    va_end(ap);
}

/* The array member name of doc, created when missing. */
json_t *tb_wl_memory_doc(const tb_wl_memory_params *p, int ncpu)
{
    char thp[32];
    tb_mem_thp_mode(thp, sizeof thp);
    uint64_t llc = llc_bytes(p);
    json_t *opt = tb_wl_params_json(&tb_wl_memory, p);
    if (!opt)
        return NULL;
    json_object_set_new(opt, "chase_s", json_real(p->chase_s));
    json_object_del(opt, "chase");
    return json_pack("{s:o, s:I, s:i, s:s, s:b}", "options", opt, "llc_bytes", (json_int_t)llc,
                     "cpus", ncpu, "thp", thp, "nt_stores",
#if defined(__x86_64__)
                     1
#else
                     0
#endif
    );
}

static int run_bandwidth(const tb_wl_memory_params *p, int ncpu, const volatile sig_atomic_t *stop,
                         json_t *doc, int *stopped, tb_err *err)
{
    uint64_t avail = mem_available();
    uint64_t want = tb_wl_memory_array_auto(p, llc_bytes(p));
    uint64_t a = want;
    char ws[32], as[32], ms[32];
    if (avail && 3 * a > avail / 2) {
        a = avail / 6 / MIB * MIB;
        tb_wl_memory_size_name(want, ws, sizeof ws);
        tb_wl_memory_size_name(a, as, sizeof as);
        tb_wl_memory_size_name(avail / MIB * MIB, ms, sizeof ms);
        warn(doc,
             "bandwidth: arrays of %s instead of %s (3 of them in at most half of the %s "
             "available)",
             as, ws, ms);
        if (a < 64 * 1024)
            return tb_errf(err, "memory bandwidth: only %s of memory available", ms);
    }
    json_t *list = tb_wl_doc_array(doc, "bandwidth");
    for (int t = 0; t < p->n_threads; t++) {
        int threads = p->threads[t] ? p->threads[t] : (ncpu > 0 ? ncpu : 1);
        tb_mem_bw_opts o = {
            .array_bytes = a, .threads = threads, .passes = p->passes, .stop = stop};
        tb_mem_bw_result r;
        if (tb_mem_bandwidth(&o, &r, err) < 0)
            return -1;
        if (r.stopped)
            return *stopped = 1, 0;
        char label[32];
        thread_label(p->threads[t], label, sizeof label);
        json_t *k = json_object();
        for (int i = 0; i < TB_MEM_NKERNELS; i++)
            json_object_set_new(k, tb_mem_kernel_name(i),
                                json_pack("{s:f, s:f, s:f, s:i}", "best_Bps", r.best_Bps[i],
                                          "best_s", r.best_s[i], "mean_s", r.mean_s[i],
                                          "bytes_per_element", tb_mem_kernel_bytes(i)));
        json_array_append_new(list, json_pack("{s:s, s:i, s:I, s:i, s:b, s:b, s:o}", "label", label,
                                              "threads", threads, "array_bytes",
                                              (json_int_t)(r.elements * sizeof(double)), "passes",
                                              r.passes, "pinned", r.pinned, "nt_stores",
                                              r.nt_stores, "kernels", k));
    }
    return 0;
}

static int run_latency(const tb_wl_memory_params *p, const volatile sig_atomic_t *stop, json_t *doc,
                       int *stopped, tb_err *err)
{
    uint64_t avail = mem_available();
    json_t *list = tb_wl_doc_array(doc, "latency");
    for (int i = 0; i < p->n_sizes; i++) {
        char label[32], ms[32];
        tb_wl_memory_size_name(p->sizes[i], label, sizeof label);
        if (avail && p->sizes[i] > avail / 2) {
            tb_wl_memory_size_name(avail / MIB * MIB, ms, sizeof ms);
            warn(doc, "latency: working set %s left out (more than half of the %s available)",
                 label, ms);
            continue;
        }
        tb_mem_chase_opts o = {.bytes = p->sizes[i],
                               .seconds = p->chase_s,
                               .seed = p->sizes[i], /* the same cycle in every run */
                               .cpu = -1,
                               .stop = stop};
        tb_mem_chase_result r;
        if (tb_mem_chase(&o, &r, err) < 0)
            return -1;
        if (r.stopped)
            return *stopped = 1, 0;
        json_array_append_new(list, json_pack("{s:s, s:I, s:f, s:I, s:f, s:i}", "label", label,
                                              "bytes", (json_int_t)p->sizes[i], "ns_per_load",
                                              r.ns_per_load, "loads", (json_int_t)r.loads,
                                              "seconds", r.seconds, "cpu", r.cpu));
    }
    return 0;
}

static int run_touch(const tb_wl_memory_params *p, json_t *doc, tb_err *err)
{
    uint64_t avail = mem_available();
    char label[32], ms[32];
    tb_wl_memory_size_name(p->touch_bytes, label, sizeof label);
    if (avail && p->touch_bytes > avail / 2) {
        tb_wl_memory_size_name(avail / MIB * MIB, ms, sizeof ms);
        warn(doc, "first touch: a region of %s left out (more than half of the %s available)",
             label, ms);
        return 0;
    }
    tb_mem_touch_result r;
    if (tb_mem_first_touch(p->touch_bytes, &r, err) < 0)
        return -1;
    json_object_set_new(doc, "first_touch",
                        json_pack("{s:s, s:I, s:f, s:f, s:I, s:f}", "label", label, "bytes",
                                  (json_int_t)p->touch_bytes, "seconds", r.seconds, "ns_per_page",
                                  r.ns_per_page, "pages", (json_int_t)r.pages, "munmap_s",
                                  r.munmap_s));
    return 0;
}

int tb_wl_memory_run(const tb_wl_memory_params *p, tb_wl_memory_part part, int ncpu,
                     const volatile sig_atomic_t *stop, json_t *doc, int *stopped, tb_err *err)
{
    int dummy = 0;
    if (!stopped)
        stopped = &dummy;
    *stopped = 0;
    switch (part) {
    case TB_WL_MEM_BANDWIDTH:
        return run_bandwidth(p, ncpu, stop, doc, stopped, err);
    case TB_WL_MEM_LATENCY:
        return run_latency(p, stop, doc, stopped, err);
    case TB_WL_MEM_FIRST_TOUCH:
        return run_touch(p, doc, err);
    default:
        return tb_errf(err, "memory: no part %d", (int)part);
    }
}

/* ---- the teebench-memory/1 document: its samples ---- */

/* A string member that names a metric segment, made safe. */
static int label_of(const json_t *o, const char *what, char *out, size_t n, tb_err *err)
{
    const char *s = json_string_value(json_object_get(o, "label"));
    if (!s)
        return tb_errf(err, "%s: missing \"label\"", what);
    tb_wl_name_part(s, out, n);
    return 0;
}

static int bandwidth_samples(const json_t *list, tb_wl_sink *sink, tb_err *err)
{
    size_t i;
    const json_t *e;
    if (!json_is_array(list))
        return tb_errf(err, "memory JSON: \"bandwidth\" must be an array");
    json_array_foreach(list, i, e)
    {
        char what[48], label[64], name[160], note[320], as[32];
        snprintf(what, sizeof what, "memory JSON: bandwidth[%zu]", i);
        double threads, bytes;
        if (label_of(e, what, label, sizeof label, err) < 0 ||
            tb_wl_doc_number(e, what, "threads", NULL, &threads, err) < 0 ||
            tb_wl_doc_number(e, what, "array_bytes", NULL, &bytes, err) < 0)
            return -1;
        if (bytes > 0x1p62)
            return tb_errf(err, "%s: \"array_bytes\" %g is no size", what, bytes);
        const json_t *k = json_object_get(e, "kernels");
        if (!json_is_object(k))
            return tb_errf(err, "%s: missing \"kernels\"", what);
        tb_wl_memory_size_name((uint64_t)bytes, as, sizeof as);
        for (int j = 0; j < TB_MEM_NKERNELS; j++) {
            const char *kn = tb_mem_kernel_name(j);
            double v;
            char kwhat[96];
            snprintf(kwhat, sizeof kwhat, "%s.kernels", what);
            if (tb_wl_doc_number(k, kwhat, kn, "best_Bps", &v, err) < 0)
                return -1;
            snprintf(name, sizeof name, "memory.bw.%s.%s", kn, label);
            snprintf(note, sizeof note,
                     "%s over 3 arrays of %s, %g thread%s%s: bytes read and written per second "
                     "(as STREAM counts them), the best pass",
                     kn, as, threads, threads == 1 ? "" : "s",
                     json_is_true(json_object_get(e, "nt_stores")) ? ", non-temporal stores" : "");
            if (tb_wl_sample(sink, name, v, 0, note, err) < 0)
                return -1;
        }
    }
    return 0;
}

static int latency_samples(const json_t *list, tb_wl_sink *sink, tb_err *err)
{
    size_t i;
    const json_t *e;
    if (!json_is_array(list))
        return tb_errf(err, "memory JSON: \"latency\" must be an array");
    json_array_foreach(list, i, e)
    {
        char what[48], label[64], name[160], note[256];
        snprintf(what, sizeof what, "memory JSON: latency[%zu]", i);
        double ns;
        if (label_of(e, what, label, sizeof label, err) < 0 ||
            tb_wl_doc_number(e, what, "ns_per_load", NULL, &ns, err) < 0)
            return -1;
        latency_name(label, name, sizeof name);
        snprintf(note, sizeof note,
                 "ns per dependent load, one random cycle through a %s working set of 64-byte "
                 "lines",
                 label);
        if (tb_wl_sample(sink, name, ns, 0, note, err) < 0)
            return -1;
    }
    return 0;
}

static int touch_sample(const json_t *o, tb_wl_sink *sink, tb_err *err)
{
    char label[64], note[256];
    double ns;
    if (!json_is_object(o))
        return tb_errf(err, "memory JSON: \"first_touch\" must be an object");
    if (label_of(o, "memory JSON: first_touch", label, sizeof label, err) < 0 ||
        tb_wl_doc_number(o, "memory JSON: first_touch", "ns_per_page", NULL, &ns, err) < 0)
        return -1;
    snprintf(note, sizeof note,
             "ns per 4 KiB page of mmap(MAP_POPULATE) of a fresh %s region (faults and zeroing; "
             "in a TD the acceptance of pages the guest never used)",
             label);
    return tb_wl_sample(sink, "memory.first_touch", ns, 0, note, err);
}

/* The samples of doc's parts (the suite's step gives its own run's members). */
static int doc_samples(const json_t *doc, tb_wl_sink *sink, tb_err *err)
{
    const json_t *bw = json_object_get(doc, "bandwidth"), *lat = json_object_get(doc, "latency"),
                 *ft = json_object_get(doc, "first_touch");
    if (bw && bandwidth_samples(bw, sink, err) < 0)
        return -1;
    if (lat && latency_samples(lat, sink, err) < 0)
        return -1;
    if (ft && !json_is_null(ft) && touch_sample(ft, sink, err) < 0)
        return -1;
    return 0;
}

static int doc_read(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err)
{
    (void)o;
    static const char *const parts[] = {"bandwidth", "latency", "first_touch"};
    if (tb_wl_doc_has_one(doc, "memory JSON", parts, 3, err) < 0 || doc_samples(doc, sink, err) < 0)
        return -1;
    tb_wl_doc_envelope(doc, info);
    return 0;
}

/* ---- the suite's steps ---- */

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    if (tb_wl_plain_setup(params, env, sink, state, err) < 0)
        return -1;
    json_t *facts = tb_wl_memory_doc(params, env->ncpu);
    if (facts)
        json_object_del(facts, "options");
    tb_wl_fact(sink, "memory", facts);
    return 0;
}

/* `teebench memory` for this part with the plan's parameters. */
static void memory_command(const tb_wl_plain_state *st, int part, tb_wl_sink *sink)
{
    const tb_wl_memory_params *m = st->params;
    json_t *opt = tb_wl_params_json(&tb_wl_memory, m);
    char v[5][256] = {{0}};
    static const char *const keys[] = {"array", "threads", "sizes", "first_touch"};
    for (int i = 0; i < 4; i++) {
        const json_t *x = json_object_get(opt, keys[i]);
        size_t k = 0, j;
        const json_t *e;
        if (json_is_string(x))
            snprintf(v[i], sizeof v[i], "%s", json_string_value(x));
        json_array_foreach(x, j, e) k +=
            (size_t)snprintf(v[i] + k, sizeof v[i] - k, "%s%s", j ? "," : "", json_string_value(e));
    }
    json_decref(opt);
    char passes[16], chase[24];
    snprintf(passes, sizeof passes, "%d", m->passes);
    tb_wl_fmt_duration(m->chase_s, chase, sizeof chase);
    char *exe = (char *)st->env->exe, *pn = (char *)part_names[part];
    char *bw[] = {exe,         "memory", "--parts",  pn,     "--array", v[0],
                  "--threads", v[1],     "--passes", passes, NULL};
    char *lat[] = {exe, "memory", "--parts", pn, "--sizes", v[2], "--chase", chase, NULL};
    char *ft[] = {exe, "memory", "--parts", pn, "--first-touch", v[3], NULL};
    tb_wl_command(sink, part == TB_WL_MEM_BANDWIDTH ? bw : part == TB_WL_MEM_LATENCY ? lat : ft);
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    tb_wl_plain_state *st = state; /* once: by part, its warnings were said (the first round) */
    int part = -1;
    for (int i = 0; i < TB_WL_MEM_PARTS; i++)
        if (!strcmp(target, part_names[i]))
            part = i;
    if (part < 0)
        return tb_errf(err, "memory: no step %s", target), TB_WL_FAILED;
    memory_command(st, part, sink);
    json_t *doc = json_object();
    if (!doc)
        return tb_errf(err, "out of memory"), TB_WL_FAILED;
    int stopped = 0, rc = TB_WL_OK;
    if (tb_wl_memory_run(st->params, part, st->env->ncpu, sink->stop, doc, &stopped, err) < 0)
        rc = TB_WL_FAILED;
    else if (stopped || tb_wl_stopped(sink))
        rc = TB_WL_CANCELLED;
    const json_t *w = json_object_get(doc, "warnings");
    size_t i;
    const json_t *x;
    if (rc == TB_WL_OK && part == TB_WL_MEM_FIRST_TOUCH && !json_object_get(doc, "first_touch")) {
        tb_errf(err, "%s", json_string_value(json_array_get(w, 0))); /* the region's reason */
        rc = TB_WL_SKIPPED;
    }
    if (rc == TB_WL_OK && !st->once[part]) { /* said once, the first round */
        json_array_foreach(w, i, x)
            tb_wl_problem(sink, TB_WL_WARN, target, round, json_string_value(x));
        st->once[part] = 1;
    }
    if (rc == TB_WL_OK && doc_samples(doc, sink, err) < 0)
        rc = TB_WL_FAILED;
    json_decref(doc);
    return rc;
}

const tb_workload tb_wl_memory = {
    .name = "memory",
    .title = "Memory",
    .what = "bandwidth (STREAM's kernels), latency (pointer chase) and first-touch cost",
    .flags = TB_WL_NOT_QUICK,
    TB_WL_PARAM_TABLE(tb_wl_memory_params, param_table),
    .check = check,
    .steps = steps,
    .describe = describe,
    .setup = setup,
    .step = step,
    .cleanup = tb_wl_free_state,
    TB_WL_METRIC_TABLE(metrics),
    TB_WL_FAMILY_TABLE(families),
    .plan_metrics = plan_metrics,
    .doc_schema = TB_WL_MEMORY_SCHEMA,
    .doc_read = doc_read,
};
