/* Unit tests for src/report/report (the page of `teebench report`; test_report.c is
 * bench/report's). Records are built with the record API from samples whose medians
 * are known by construction; the page is checked for what a reader sees: the
 * headline numbers (data-value equal to the medians and ratios computed here), the
 * verdict words, badges, one chart per section with one mark per environment and
 * metric, notes for missing sections, escaping of labels, no external reference,
 * each environment's TEE and attestation evidence (cards and facts table),
 * markdown files, the same bytes for the same input, and compare's verdict rule
 * (the test's direction, "shifted, medians equal") and multiple-comparison line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "record/record.h"
#include "report/report.h"
#include "svg_test_util.h"
#include "workloads/internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void add(tb_record *r, const char *name, const char *unit, int better, const char *wl,
                const double *v, size_t n, double scale, int simulated, const char *note)
{
    tb_err e;
    tb_metric *m = tb_record_metric(r, name, unit, better, wl, &e);
    assert_non_null(m);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tb_metric_add(m, v[i] * scale, &e), 0);
    m->simulated = simulated;
    if (simulated)
        r->simulated = 1;
    if (note)
        assert_int_equal(tb_metric_set_note(m, note, &e), 0);
}

/* 10 samples with median exactly 1.0 (1.0 is the mean of the 5th and 6th of 0.97..1.03) */
static const double unit10[] = {0.97, 1.03, 0.99, 1.01, 0.98, 1.02, 0.995, 1.005, 0.985, 1.015};
/* 25 samples (notary), median 1.0 */
static const double unit25[] = {0.9,  0.91,  0.92,  0.93, 0.94,  0.95,  0.96, 0.97, 0.98,
                                0.99, 0.995, 0.999, 1.0,  1.001, 1.005, 1.01, 1.02, 1.03,
                                1.04, 1.05,  1.06,  1.07, 1.08,  1.09,  1.1};

/* The platform of environment `label`: "host" is bare metal, "vm" a VM, "snp" an
   SEV-SNP guest, any other a TD. */
static const char *platform_of(const char *label)
{
    return !strcmp(label, "host")  ? "bare-metal"
           : !strcmp(label, "vm")  ? "vm"
           : !strcmp(label, "snp") ? "sev-snp-guest"
                                   : "tdx-guest";
}

/* A record for environment `label`, `slow` times slower than the host; a simulated
   one got its attestation evidence from the simulated TDX provider. */
static tb_record *env_record(const char *label, double slow, int simulated, int full)
{
    tb_err e;
    tb_record *r = tb_record_new(&e);
    assert_non_null(r);
    assert_int_equal(tb_record_set_str(&r->label, label, &e), 0);
    json_array_append_new(r->commands, json_string("teebench http -t4 -c100 -d30s <url>"));
    json_object_set_new(r->versions, "nginx", json_string("1.22.1"));
    json_decref(r->env);
    r->env = json_pack("{s:{s:s},s:{s:s},s:{s:s},s:{s:I},s:{s:{s:s,s:s}}}", "platform", "value",
                       platform_of(label), "tdx_module", "value", "1.5.06", "clocksource", "value",
                       "tsc", "memory_bytes", "value", (json_int_t)34359738368, "vulnerabilities",
                       "value", "meltdown", "Not affected", "spec_store_bypass", "Vulnerable");
    assert_non_null(r->env);
    if (simulated)
        json_object_set_new(r->extra, "attest", json_pack("{s:s}", "tee", "sim"));
    add(r, "http.nginx.rps", "req/s", TB_BETTER_HIGHER, "http", unit10, 10, 160000 / slow, 0, NULL);
    add(r, "syscall.cn.index", "index", TB_BETTER_HIGHER, "syscall", unit10, 10, 50000, 0, NULL);
    if (!full)
        return r;
    static const char *const pct[] = {"50", "90", "99", "99.9", "99.99", "99.999"};
    for (size_t k = 0; k < N(pct); k++) {
        char name[64];
        snprintf(name, sizeof name, "http.nginx.latency.p%s", pct[k]);
        add(r, name, "ms", TB_BETTER_LOWER, "http", unit10, 10, 0.4 * (k + 1) * slow, 0, NULL);
        if (k < 4) { /* uncorrected only up to p99.9 */
            snprintf(name, sizeof name, "http.nginx.latency_u.p%s", pct[k]);
            add(r, name, "ms", TB_BETTER_LOWER, "http", unit10, 10, 0.3 * (k + 1) * slow, 0, NULL);
        }
    }
    add(r, "probe.cpuid.ns", "ns", TB_BETTER_LOWER, "probe", unit10, 10, 40 * slow * slow, 0,
        "CPUID: a #VE and a TDX-module call in a TD <why>");
    add(r, "probe.rdtsc.ns", "ns", TB_BETTER_LOWER, "probe", unit10, 10, 9, 0, NULL);
    add(r, "notary.no_tee.notarization_ms", "ms", TB_BETTER_LOWER, "notary", unit25, 25, 1000, 0,
        NULL);
    add(r, "notary.tee_no_verify.notarization_ms", "ms", TB_BETTER_LOWER, "notary", unit25, 25,
        1250, simulated, NULL);
    add(r, "notary.tee_verify.verify_ms", "ms", TB_BETTER_LOWER, "notary", unit25, 25, 300,
        simulated, NULL);
    add(r, "notary.tee_no_verify.overhead_ms", "ms", TB_BETTER_LOWER, "notary", unit25, 25, 250,
        simulated, NULL);
    add(r, "attest.verify_prepared.us", "us", TB_BETTER_LOWER, "attest", unit10, 10, 900, simulated,
        NULL);
    return r;
}

typedef struct fixture {
    tb_record *r[3];
    size_t n;
    tb_compare c;
    tb_page page;
} fixture;

static void build(fixture *f, enum tb_page_format fmt, const char *prefix)
{
    tb_err e;
    assert_int_equal(
        tb_compare_build((const tb_record *const *)f->r, f->n, 0, TB_COMPARE_ALPHA, &f->c, &e), 0);
    tb_page_opts o = {"TDX vs host", "2026-11-30T19:00:00Z", "teebench report a b", prefix};
    assert_int_equal(tb_page_build(&f->c, fmt, &o, &f->page, &e), 0);
}

static void fixture_free(fixture *f)
{
    tb_page_free(&f->page);
    tb_compare_clear(&f->c);
    for (size_t i = 0; i < f->n; i++)
        tb_record_free(f->r[i]);
}

/* The value of attribute attr in the first element after `after` that has it. */
static double attr_after(const char *doc, const char *after, const char *attr)
{
    const char *p = strstr(doc, after);
    assert_non_null(p);
    char key[64];
    snprintf(key, sizeof key, "%s=\"", attr);
    p = strstr(p, key);
    assert_non_null(p);
    return strtod(p + strlen(key), NULL);
}

/* The text of the section with data-section="id" (to its </section>). */
static char *section(const char *doc, const char *id)
{
    char key[64];
    snprintf(key, sizeof key, "<section id=\"%s\"", id);
    const char *s = strstr(doc, key);
    assert_non_null(s);
    const char *e = strstr(s, "</section>");
    assert_non_null(e);
    return strndup(s, (size_t)(e - s));
}

static void check_svgs_well_formed(const char *doc)
{
    for (const char *p = strstr(doc, "<svg"); p; p = strstr(p + 1, "<svg")) {
        const char *e = strstr(p, "</svg>");
        assert_non_null(e);
        char *svg = strndup(p, (size_t)(e + 6 - p));
        assert_true(well_formed(svg));
        free(svg);
    }
}

static void test_html_page(void **state)
{
    (void)state;
    fixture f = {.r = {env_record("host", 1, 0, 1), env_record("vm", 1.25, 0, 1),
                       env_record("<script>alert(1)</script>", 4, 1, 1)},
                 .n = 3};
    build(&f, TB_PAGE_HTML, NULL);
    const char *doc = (const char *)f.page.doc.p;
    assert_int_equal(f.page.n_files, 0);
    assert_int_equal(strncmp(doc, "<!DOCTYPE html>", 15), 0);
    assert_non_null(strstr(doc, "Content-Security-Policy\" content=\"default-src 'none'"));
    assert_non_null(strstr(doc, "<title>TDX vs host</title>"));
    /* the label is text everywhere, never markup; nothing is loaded from anywhere */
    assert_null(strstr(doc, "<script"));
    assert_true(count(doc, "&lt;script&gt;alert(1)&lt;/script&gt;") >= 8);
    assert_null(strstr(doc, "src="));
    assert_null(strstr(doc, "href="));
    assert_null(strstr(doc, "@import"));
    assert_int_equal(count(doc, "url("), count(doc, "url(#"));
    assert_null(strstr(doc, "nan"));
    check_svgs_well_formed(doc);

    /* headline: ratios of medians, as computed here; verdicts in words */
    double r_vm = attr_after(doc, "data-env=\"vm\"", "data-value");
    assert_float_equal(r_vm, 1 / 1.25, 1e-12);
    assert_non_null(strstr(doc, "<b class=\"big\">0.800\xc3\x97</b> the host&#39;s nginx "
                                "throughput"));
    assert_non_null(strstr(doc, "<b class=\"big\">0.250\xc3\x97</b> the host&#39;s nginx"));
    assert_non_null(strstr(doc, "significantly lower: worse (p &lt; 0.001)"));
    /* the syscall index is the same everywhere: no significant difference */
    assert_non_null(strstr(doc, "<b class=\"big\">1.00\xc3\x97</b> the host&#39;s System Call "
                                "Overhead index (N copies)"));
    assert_true(count(doc, "no significant difference (p = 1.00)") >= 2);
    /* the baseline's own numbers, the notary overhead in ms and %, the verify time */
    assert_non_null(strstr(doc, "nginx throughput: <b class=\"big\">160,000 req/s</b>"));
    assert_non_null(strstr(doc, "<b class=\"big\">+250 ms</b> (+25.0 %) to a notarization"));
    assert_float_equal(
        attr_after(doc, "data-metric=\"notary.tee_no_verify.overhead_ms\"", "data-pct"), 25.0,
        1e-9);
    assert_non_null(strstr(doc, "<b class=\"big\">300 ms</b>"));
    assert_non_null(strstr(doc, "<b class=\"big\">900 \xc2\xb5s</b>"));
    assert_non_null(strstr(doc, "a real cost: its interval excludes 0"));
    /* SIMULATED: the record's card, its lines, the table */
    char *head = section(doc, "headline");
    assert_int_equal(count(head, "class=\"card\""), 3);
    /* each card: its TEE (a badge when it is one) and the run's evidence; the name in
       prose without the tags */
    assert_non_null(strstr(head, "&lt;script&gt;alert(1)&lt;/script&gt; <span class=\"badge "
                                 "tee\">TDX</span> <span class=\"badge sim\">SIMULATED</span>"
                                 "</h3><p class=\"tee\">TEE TDX; attestation evidence SIMULATED "
                                 "TDX quotes</p><ul>"));
    assert_non_null(strstr(head, "<h3>vm</h3><p class=\"tee\">TEE none; attestation evidence "
                                 "none recorded</p><ul>"));
    assert_int_equal(count(head, "class=\"badge tee\""), 1);
    assert_true(count(head, ">SIMULATED</span>") >= 4);
    free(head);

    /* the forest plot first: every metric a row, a mark per environment but the
       baseline, coloured by compare's verdict; per category and direction with two
       metrics or more a geometric mean (compare's); SIMULATED marked */
    assert_true(strstr(doc, "<section id=\"overview\"") < strstr(doc, "<section id=\"headline\""));
    char *ov = section(doc, "overview");
    assert_int_equal(count(ov, "<svg"), 1);
    assert_int_equal(count(ov, "data-kind=\"metric\""), (int)f.c.n_rows);
    size_t summaries = 0, sims = 0;
    for (int cat = 0; cat < TB_CAT_COUNT; cat++)
        for (int d = 0; d < 2; d++) {
            size_t n = 0;
            for (size_t k = 0; k < f.c.n_rows; k++)
                n += f.c.rows[k].category == (tb_wl_category)cat &&
                     f.c.rows[k].better == (d ? TB_BETTER_LOWER : TB_BETTER_HIGHER);
            if (n < 2)
                continue;
            summaries++;
            tb_compare_gm g;
            tb_compare_category_geomean(&f.c, 2, (tb_wl_category)cat,
                                        d ? TB_BETTER_LOWER : TB_BETTER_HIGHER, &g);
            sims += g.simulated;
        }
    for (size_t k = 0; k < f.c.n_rows; k++)
        sims += f.c.rows[k].cells[2].simulated;
    assert_int_equal(summaries, 3); /* latency, probe, notary: lower is better */
    assert_int_equal(count(ov, "data-kind=\"summary\""), (int)summaries);
    assert_int_equal(count(ov, "class=\"tb-fm "), (int)(2 * (f.c.n_rows + summaries)));
    assert_int_equal(count(ov, ">SIMULATED</tspan>"), (int)sims);
    assert_int_equal(sims, 5);
    assert_non_null(strstr(ov, "data-label=\"Latency \xc2\xb7 10 metrics\""));
    assert_non_null(strstr(ov, "data-label=\"geomean, lower better (10)\""));
    /* vm's nginx throughput: 0.8, significantly worse */
    const char *rps = strstr(ov, "data-label=\"http.nginx.rps\"");
    assert_non_null(rps);
    assert_float_equal(attr_after(rps, "data-series=\"1\"", "data-value"), 0.8, 1e-12);
    assert_non_null(strstr(rps, "data-series=\"1\" data-value=\"0.80000000000000004\" "
                                "data-verdict=\"worse\""));
    /* the latency mean of vm: compare's */
    tb_compare_gm lat_gm;
    tb_compare_category_geomean(&f.c, 1, TB_CAT_LATENCY, TB_BETTER_LOWER, &lat_gm);
    assert_float_equal(lat_gm.ratio, 1.25, 1e-12);
    const char *gm = strstr(ov, "data-label=\"geomean, lower better (10)\"");
    assert_float_equal(attr_after(gm, "data-series=\"1\"", "data-value"), lat_gm.ratio, 1e-12);
    assert_non_null(strstr(ov, "ratio to host, log scale"));
    assert_non_null(strstr(ov, "a 95 % Student&#39;s t interval across that category&#39;s "
                               "metrics"));
    assert_null(strstr(ov, "on one side only"));
    free(ov);

    /* charts: one per section, one mark per environment and metric */
    char *bars = section(doc, "throughput");
    assert_int_equal(count(bars, "<svg"), 1);
    assert_int_equal(count(bars, "class=\"tb-bar "), 3 * 3); /* rps, index, verify_prepared */
    assert_non_null(strstr(bars, "0.800\xc3\x97"));
    free(bars);
    char *lat = section(doc, "latency");
    assert_int_equal(count(lat, "<svg"), 1);
    assert_int_equal(count(lat, "class=\"tb-pt "), 3 * (6 + 4));
    assert_int_equal(count(lat, "tb-dash"), 3);
    assert_non_null(strstr(lat, ">99.999%</text>"));
    free(lat);
    char *no = section(doc, "notary");
    assert_int_equal(count(no, "<svg"), 1);
    assert_int_equal(count(no, "class=\"tb-box "), 3 * 3); /* 2 notarization + 1 verify each */
    assert_int_equal(count(no, "class=\"tb-sample\""), 3 * 3 * 25);
    free(no);
    char *pr = section(doc, "probes");
    assert_int_equal(count(pr, "<svg"), 1);
    assert_int_equal(count(pr, "class=\"tb-dot "), 2 * 3);
    assert_non_null(strstr(pr, "log scale"));
    assert_non_null(strstr(pr, "a TDX-module call in a TD &lt;why&gt;</dd>"));
    free(pr);
    /* tables: every metric; env facts; commands */
    char *cmp = section(doc, "comparison");
    assert_int_equal(count(cmp, "<tr data-metric="), (int)f.c.n_rows);
    free(cmp);
    char *env = section(doc, "environments");
    assert_non_null(
        strstr(env, "<th>&lt;script&gt;alert(1)&lt;/script&gt; [TDX] [SIMULATED]</th>"));
    assert_non_null(strstr(env, "<tr><th>TEE</th><td>none</td><td>none</td><td>TDX</td></tr>"));
    assert_non_null(strstr(env, "<tr><th>attest evidence</th><td>none recorded</td><td>none "
                                "recorded</td><td>SIMULATED TDX quotes</td></tr>"));
    assert_non_null(strstr(env, "1.5.06"));
    assert_non_null(strstr(env, "32.0 GiB"));
    assert_non_null(strstr(env, "1 vulnerable (spec_store_bypass)"));
    assert_non_null(strstr(env, "nginx version"));
    free(env);
    assert_non_null(strstr(doc, "teebench http -t4 -c100 -d30s &lt;url&gt;"));
    assert_non_null(strstr(doc, "<code>teebench report a b</code>"));

    /* the same input gives the same bytes */
    tb_page again;
    tb_err e;
    tb_page_opts o = {"TDX vs host", "2026-11-30T19:00:00Z", "teebench report a b", NULL};
    assert_int_equal(tb_page_build(&f.c, TB_PAGE_HTML, &o, &again, &e), 0);
    assert_int_equal(again.doc.len, f.page.doc.len);
    assert_memory_equal(again.doc.p, f.page.doc.p, again.doc.len);
    tb_page_free(&again);
    fixture_free(&f);
}

static void test_missing_sections_and_one_env(void **state)
{
    (void)state;
    fixture f = {.r = {env_record("host", 1, 0, 0)}, .n = 1};
    build(&f, TB_PAGE_HTML, NULL);
    const char *doc = (const char *)f.page.doc.p;
    assert_non_null(strstr(doc, "No HTTP latency percentiles"));
    assert_non_null(strstr(doc, "No notary metrics"));
    assert_non_null(strstr(doc, "No probe metrics"));
    assert_int_equal(count(doc, "<svg"), 1); /* the bars only */
    assert_int_equal(count(doc, "class=\"tb-bar "), 2);
    assert_null(strstr(doc, "\xc3\x97</b>")); /* no ratios without a second environment */
    assert_null(strstr(doc, ">baseline</span>"));
    assert_null(strstr(doc, "class=\"tee\"")); /* no TEE, no evidence: nothing to say */
    assert_non_null(strstr(doc, "<tr><th>TEE</th><td>none</td></tr>"));
    assert_non_null(strstr(doc, "System Call Overhead index (N copies): <b class=\"big\">50,000 "
                                "index</b>"));
    check_svgs_well_formed(doc);
    fixture_free(&f);

    /* an empty record: every section says it has nothing */
    tb_err e;
    fixture g = {.r = {tb_record_new(&e)}, .n = 1};
    build(&g, TB_PAGE_HTML, NULL);
    doc = (const char *)g.page.doc.p;
    assert_non_null(strstr(doc, "No throughput, syscall or attestation metrics"));
    assert_non_null(strstr(doc, "none of the headline metrics was measured here"));
    assert_int_equal(count(doc, "<svg"), 0);
    fixture_free(&g);
}

/* A VM, the VM booted with swiotlb=force and a TD (extra.vm), with fio IOPS whose
   medians are known (100, 80, 60: the bounce path explains half of the TD's loss) and a
   latency the TD pays nothing extra on: the bounce section, its bars in VM / bounce /
   TD order, the shares in the table, the undefined one said. */
static tb_record *vm_record(const char *label, const char *vm, double iops, double lat)
{
    tb_err e;
    tb_record *r = tb_record_new(&e);
    assert_int_equal(tb_record_set_str(&r->label, label, &e), 0);
    json_object_set_new(r->extra, "vm", json_loads(vm, 0, NULL));
    add(r, "storage.libaio.lat-randread.iops", "IOPS", TB_BETTER_HIGHER, "storage", unit10, 10,
        iops, 0, NULL);
    add(r, "storage.libaio.lat-randread.clat.p50", "us", TB_BETTER_LOWER, "storage", unit10, 10,
        lat, 0, NULL);
    add(r, "syscall.c1.index", "index", TB_BETTER_HIGHER, "syscall", unit10, 10, 1000, 0, NULL);
    return r;
}

static void test_bounce_section(void **state)
{
    (void)state;
    fixture f = {
        .r = {vm_record("td", "{\"kind\": \"tdx\"}", 60, 100),
              vm_record("vm", "{\"kind\": \"regular\", \"swiotlb\": {\"forced\": false}}", 100,
                        100),
              vm_record("vm-sw", "{\"kind\": \"regular\", \"swiotlb\": {\"forced\": true}}", 80,
                        100)},
        .n = 3};
    build(&f, TB_PAGE_HTML, NULL);
    const char *doc = (const char *)f.page.doc.p;
    const char *at = strstr(doc, "<section id=\"bounce\"");
    assert_non_null(at);
    char *sec = strndup(at, (size_t)(strstr(at, "</section>") - at)); /* the section alone */
    assert_non_null(sec);
    assert_true(strstr(doc, "<section id=\"overview\"") < at); /* the forest plot first */
    assert_non_null(strstr(sec, "<tr data-metric=\"storage.libaio.lat-randread.iops\" "
                                "data-why=\"0\" data-share=\"0.5\""));
    assert_non_null(strstr(sec, "<td class=\"share\">50 % ["));
    assert_non_null(strstr(sec, "<tr data-metric=\"storage.libaio.lat-randread.clat.p50\" "
                                "data-why=\"1\"><td>"));
    assert_non_null(strstr(sec, "the TD is not slower than the VM"));
    assert_null(strstr(sec, "data-metric=\"syscall.c1.index\"")); /* not I/O */
    /* the bars: VM (record 1), VM+bounce (2), TD (0) */
    const char *b0 = strstr(sec, "class=\"tb-bar "),
               *b1 = b0 ? strstr(b0 + 1, "class=\"tb-bar ") : NULL;
    assert_non_null(b1);
    assert_non_null(strstr(sec, "vm (VM)"));
    assert_non_null(strstr(sec, "vm-sw (VM+bounce)"));
    assert_non_null(strstr(sec, "td (TD)"));
    assert_true(strstr(sec, "vm (VM)") < strstr(sec, "vm-sw (VM+bounce)"));
    assert_true(strstr(sec, "vm-sw (VM+bounce)") < strstr(sec, "td (TD)"));
    check_svgs_well_formed(doc);
    free(sec);
    fixture_free(&f);
    /* no TD: the section says so; no bounced VM: no section */
    fixture g = {
        .r = {vm_record("vm", "{\"kind\": \"regular\"}", 100, 100),
              vm_record("vm-sw", "{\"kind\": \"regular\", \"swiotlb\": {\"forced\": true}}", 80,
                        100)},
        .n = 2};
    build(&g, TB_PAGE_HTML, NULL);
    doc = (const char *)g.page.doc.p;
    assert_non_null(strstr(doc, "the split needs also a TD or SEV-SNP guest"));
    assert_null(strstr(doc, "data-share="));
    fixture_free(&g);
    fixture h = {.r = {vm_record("vm", "{\"kind\": \"regular\"}", 100, 100),
                       vm_record("td", "{\"kind\": \"snp\"}", 80, 100)},
                 .n = 2};
    build(&h, TB_PAGE_HTML, NULL);
    assert_null(strstr((const char *)h.page.doc.p, "id=\"bounce\""));
    fixture_free(&h);
}

static void test_markdown(void **state)
{
    (void)state;
    fixture f = {.r = {env_record("host", 1, 0, 1), env_record("a|b_*<i>", 2, 1, 1)}, .n = 2};
    build(&f, TB_PAGE_MARKDOWN, "out");
    const char *doc = (const char *)f.page.doc.p;
    assert_int_equal(f.page.n_files, 5);
    const char *want[] = {"out-overview.svg", "out-throughput.svg", "out-latency-nginx.svg",
                          "out-notary.svg", "out-probes.svg"};
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(f.page.files[i].name, want[i]);
        const char *svg = (const char *)f.page.files[i].data.p;
        assert_int_equal(strncmp(svg, "<svg", 4), 0);
        assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
        assert_non_null(strstr(svg, "<style>"));
        assert_true(well_formed(svg));
        char link[64];
        snprintf(link, sizeof link, "](%s)", want[i]);
        assert_non_null(strstr(doc, link));
    }
    assert_int_equal(strncmp(doc, "# TDX vs host", 13), 0);
    assert_null(strstr(doc, "<svg"));
    assert_null(strstr(doc, "<i>"));
    assert_non_null(strstr(doc, "### a\\|b\\_\\*&lt;i&gt; **[TDX]** **[SIMULATED]**"));
    assert_non_null(strstr(doc, "\n\nTEE TDX; attestation evidence SIMULATED TDX quotes\n\n- "));
    assert_non_null(strstr(doc, "\n\nTEE none; attestation evidence none recorded\n\n- "));
    assert_non_null(strstr(doc, "| TEE | none | TDX |"));
    assert_non_null(strstr(doc, "| attest evidence | none recorded | SIMULATED TDX quotes |"));
    assert_non_null(strstr(doc, "**0.500\xc3\x97** the host&#39;s nginx throughput"));
    assert_non_null(strstr(doc, "| metric |")); /* the comparison table */
    assert_non_null(strstr(doc, "```sh\nteebench http -t4 -c100 -d30s <url>\n```"));
    fixture_free(&f);
}

/* A TD and an SEV-SNP guest side by side: each card and the facts table name its TEE
   and the evidence its run used. */
static void test_tdx_and_snp(void **state)
{
    (void)state;
    fixture f = {.r = {env_record("td", 1, 0, 0), env_record("snp", 1.1, 0, 0)}, .n = 2};
    json_object_set_new(f.r[0]->extra, "attest", json_pack("{s:s}", "tee", "tdx"));
    json_object_set_new(f.r[0]->extra, "notary_tee", json_string("tdx"));
    json_object_set_new(f.r[1]->extra, "attest", json_pack("{s:s}", "tee", "snp"));
    build(&f, TB_PAGE_MARKDOWN, "out");
    const char *doc = (const char *)f.page.doc.p;
    assert_non_null(strstr(doc, "2 environments: td \\[TDX\\] (baseline), snp \\[SEV-SNP\\]."));
    assert_non_null(strstr(doc, "### td **[TDX]** **[baseline]**\n\nTEE TDX; attestation "
                                "evidence TDX quotes\n\n- "));
    assert_non_null(strstr(doc, "### snp **[SEV-SNP]**\n\nTEE SEV-SNP; attestation evidence "
                                "SEV-SNP reports\n\n- "));
    assert_non_null(strstr(doc, "the td&#39;s nginx throughput")); /* prose: the name alone */
    assert_non_null(strstr(doc, "| fact | td \\[TDX\\] | snp \\[SEV-SNP\\] |"));
    assert_non_null(strstr(doc, "| TEE | TDX | SEV-SNP |"));
    assert_non_null(strstr(doc, "| attest evidence | TDX quotes | SEV-SNP reports |"));
    assert_null(strstr(doc, "SIMULATED"));
    fixture_free(&f);
}

static void test_format_parse(void **state)
{
    (void)state;
    enum tb_page_format fmt;
    assert_int_equal(tb_page_format_parse("html", &fmt), 0);
    assert_int_equal(fmt, TB_PAGE_HTML);
    assert_int_equal(tb_page_format_parse("markdown", &fmt), 0);
    assert_int_equal(fmt, TB_PAGE_MARKDOWN);
    assert_int_equal(tb_page_format_parse("md", &fmt), 0);
    assert_int_equal(tb_page_format_parse("pdf", &fmt), -1);
    tb_page p;
    tb_err e;
    tb_compare empty = {0};
    assert_int_equal(tb_page_build(&empty, TB_PAGE_HTML, NULL, &p, &e), -1);
    assert_non_null(strstr(e.msg, "nothing to report"));
    tb_page_free(&p);
    tb_page_free(NULL);
}

/* Replaces the samples of r's metric name by values v[i], each cnt[i] times. */
static void set_counts(tb_record *r, const char *name, const double *v, const int *cnt, size_t k)
{
    tb_metric *m = (tb_metric *)tb_record_find(r, name);
    assert_non_null(m);
    tb_err e;
    m->n = 0;
    for (size_t i = 0; i < k; i++)
        for (int j = 0; j < cnt[i]; j++)
            assert_int_equal(tb_metric_add(m, v[i], &e), 0);
}

/* The page says what compare says: better/worse from the test's direction (the
   syscall index of issue 19: equal medians 11, shifted up, p = 0.0131 -- the old
   rule called it "significantly lower: worse"), and the multiple-comparison line
   under the table, adjusted when the comparison is. */
static void test_verdict_rule_and_many_rows(void **state)
{
    (void)state;
    fixture f = {.r = {env_record("host", 1, 0, 0), env_record("td", 4, 0, 0)}, .n = 2};
    const double v[] = {10, 11, 12};
    const int cb[] = {7, 11, 2}, ct[] = {2, 10, 8};
    set_counts(f.r[0], "syscall.cn.index", v, cb, 3);
    set_counts(f.r[1], "syscall.cn.index", v, ct, 3);
    build(&f, TB_PAGE_HTML, NULL);
    const char *doc = (const char *)f.page.doc.p;
    assert_non_null(strstr(doc, "significantly higher (shifted, medians equal): better "
                                "(p = 0.0131)"));
    assert_null(strstr(doc, "significantly lower: worse (p = 0.0131)"));
    char *cmp = section(doc, "comparison");
    assert_non_null(strstr(cmp, "better (p = 0.0131; shifted, medians equal)"));
    assert_non_null(strstr(cmp, "</table></div>\n<p class=\"note mc\" data-env=\"1\" "
                                "data-k=\"2\" data-n=\"2\">td [TDX] vs host: 2 of 2 rows differ at "
                                "\xce\xb1 = 0.05; \xe2\x89\x88 0.1 expected by chance</p>"));
    free(cmp);
    tb_page_free(&f.page);

    /* adjusted (Benjamini-Hochberg: 2 * p / 2 for the larger p): the page says so */
    tb_err e;
    assert_int_equal(tb_compare_set_adjust(&f.c, TB_STATS_ADJUST_BH, &e), 0);
    tb_page_opts o = {"t", NULL, NULL, NULL};
    assert_int_equal(tb_page_build(&f.c, TB_PAGE_HTML, &o, &f.page, &e), 0);
    doc = (const char *)f.page.doc.p;
    assert_non_null(strstr(doc, "significantly higher (shifted, medians equal): better "
                                "(adjusted p = 0.0131)"));
    assert_non_null(strstr(doc, "with Benjamini-Hochberg&#39;s adjustment"));
    assert_non_null(strstr(doc, "its p adjusted with the Benjamini-Hochberg method"));
    tb_page_free(&f.page);

    /* markdown: compare's own table, the line under it */
    assert_int_equal(tb_page_build(&f.c, TB_PAGE_MARKDOWN, &o, &f.page, &e), 0);
    doc = (const char *)f.page.doc.p;
    assert_non_null(strstr(doc,
                           "|\n\n- td [TDX] vs host: 2 of 2 rows differ at \xce\xb1 = 0.05 with "
                           "Benjamini-Hochberg"));
    fixture_free(&f);
}

/* Sections by the metric tables' categories (workloads/), never by a name's prefix: a
   notary.* name no table has (a newer teebench's) is drawn with the bars, not lost to the
   notary section's groups; a latency percentile and a probe are charted whatever their
   record calls their workload. */
static void test_sections_from_tables(void **state)
{
    (void)state;
    tb_err e;
    fixture f = {.r = {tb_record_new(&e)}, .n = 1};
    add(f.r[0], "notary.retries.count", "runs", TB_BETTER_LOWER, "notary", unit10, 10, 3, 0, NULL);
    add(f.r[0], "http.edge.latency.p99", "ms", TB_BETTER_LOWER, "misc", unit10, 10, 2, 0, NULL);
    add(f.r[0], "probe.cpuid.ns", "ns", TB_BETTER_LOWER, "misc", unit10, 10, 40, 0, NULL);
    build(&f, TB_PAGE_HTML, NULL);
    const char *doc = (const char *)f.page.doc.p;
    char *bars = section(doc, "throughput"), *lat = section(doc, "latency"),
         *pr = section(doc, "probes");
    assert_non_null(strstr(bars, "notary.retries.count"));
    assert_null(strstr(bars, "http.edge.latency.p99"));
    assert_non_null(strstr(lat, "HTTP latency by percentile: edge"));
    assert_non_null(strstr(pr, "cpuid"));
    assert_non_null(strstr(doc, "No notary metrics"));
    free(bars);
    free(lat);
    free(pr);
    check_svgs_well_formed(doc);
    fixture_free(&f);
}

/* A forest plot of many metrics (issue 21: readable with 46 rows and more): 52 rows in
   three categories, headings in the tables' order (other last), every row a mark per
   environment, each mark's verdict compare's, a mean per category and direction, and a
   metric of the baseline alone left out with a note. */
static void test_forest_many_metrics(void **state)
{
    (void)state;
    tb_err e;
    fixture f = {.r = {tb_record_new(&e), tb_record_new(&e)}, .n = 2};
    assert_int_equal(tb_record_set_str(&f.r[0]->label, "host", &e), 0);
    assert_int_equal(tb_record_set_str(&f.r[1]->label, "td", &e), 0);
    char name[64];
    for (int i = 0; i < 12; i++) { /* throughput: 0.7 .. 1.25 */
        snprintf(name, sizeof name, "http.t%02d.rps", i);
        add(f.r[0], name, "req/s", TB_BETTER_HIGHER, "http", unit10, 10, 1000, 0, NULL);
        add(f.r[1], name, "req/s", TB_BETTER_HIGHER, "http", unit10, 10, 700 + 50 * i, 0, NULL);
    }
    for (int i = 0; i < 20; i++) { /* probes: 1 .. 20 times slower, one 100 times */
        snprintf(name, sizeof name, "probe.p%02d.ns", i);
        add(f.r[0], name, "ns", TB_BETTER_LOWER, "probe", unit10, 10, 50, 0, NULL);
        add(f.r[1], name, "ns", TB_BETTER_LOWER, "probe", unit10, 10, i == 19 ? 5000 : 50 + 50 * i,
            0, NULL);
    }
    for (int i = 0; i < 20; i++) { /* names no table has: category other */
        snprintf(name, sizeof name, "newer.m%02d.count", i);
        add(f.r[0], name, "ops", TB_BETTER_HIGHER, "newer", unit10, 10, 10, 0, NULL);
        add(f.r[1], name, "ops", TB_BETTER_HIGHER, "newer", unit10, 10, 10, 0, NULL);
    }
    add(f.r[0], "http.only.rps", "req/s", TB_BETTER_HIGHER, "http", unit10, 10, 5, 0, NULL);
    build(&f, TB_PAGE_HTML, NULL);
    const char *doc = (const char *)f.page.doc.p;
    char *ov = section(doc, "overview");
    assert_int_equal(count(ov, "<svg"), 1);
    assert_int_equal(count(ov, "data-kind=\"metric\""), 52);
    assert_int_equal(count(ov, "data-kind=\"summary\""), 3);
    assert_int_equal(count(ov, "class=\"tb-fm "), 52 + 3);
    const char *h1 = strstr(ov, "data-label=\"Throughput \xc2\xb7 12 metrics\"");
    const char *h2 = strstr(ov, "data-label=\"Probe \xc2\xb7 20 metrics\"");
    const char *h3 = strstr(ov, "data-label=\"Other \xc2\xb7 20 metrics\"");
    assert_true(h1 && h2 && h3 && h1 < h2 && h2 < h3);
    size_t better = 0, worse = 0, same = 0;
    for (size_t k = 0; k < f.c.n_rows; k++) {
        int v = f.c.rows[k].cells[1].verdict;
        better += v == TB_COMPARE_BETTER;
        worse += v == TB_COMPARE_WORSE;
        same += v == TB_COMPARE_SAME;
    }
    assert_true(better > 0 && worse > 0 && same > 0);
    assert_int_equal(count(ov, "data-verdict=\"better\""), (int)better);
    assert_int_equal(count(ov, "data-verdict=\"worse\""), (int)worse);
    assert_int_equal(count(ov, "data-verdict=\"same\""), (int)same);
    /* readable ticks; 100x is on the axis (it follows the metrics) */
    assert_non_null(strstr(ov, ">1\xc3\x97</text>"));
    assert_non_null(strstr(ov, ">10\xc3\x97</text>"));
    assert_non_null(strstr(ov, ">100\xc3\x97</text>"));
    assert_non_null(strstr(ov, "1 metric is measured on one side only"));
    assert_null(strstr(ov, "data-label=\"http.only.rps\""));
    assert_null(strstr(ov, "SIMULATED"));
    check_svgs_well_formed(doc);
    free(ov);
    fixture_free(&f);
}

/* A test-only workload with families (its rows are given to the comparison by hand: the
   registry does not know it): a sweep over working sets (log, bytes), one over threads,
   one whose single point stays a bar, and phases of templates (a bar per memory size). */
static const tb_wl_metric mem_metrics[] = {
    {"mem.latency.*.ns", "ns", TB_WL_LOWER, TB_CAT_MEMORY, 0, NULL, 0, 0},
    {"mem.copy.*.bps", "B/s", TB_WL_HIGHER, TB_CAT_MEMORY, 0, NULL, 0, 0},
    {"mem.boot.*.firmware.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"mem.boot.*.kernel.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
};
static const char *const mem_phases[] = {"mem.boot.*.firmware.s", "mem.boot.*.kernel.s", NULL};
static const tb_wl_family mem_families[] = {
    {.kind = TB_WLF_SWEEP,
     .title = "latency by working set",
     .metric = "mem.latency.*.ns",
     .prefix = "ws_",
     .axis = "working set",
     .unit = "B",
     .log = 1},
    {.kind = TB_WLF_SWEEP,
     .title = "copy by threads",
     .metric = "mem.copy.*.bps",
     .prefix = "threads_",
     .axis = "threads"},
    {.kind = TB_WLF_SWEEP,
     .title = "copy by size",
     .metric = "mem.copy.*.bps",
     .prefix = "size_",
     .axis = "array",
     .unit = "B",
     .log = 1},
    {.kind = TB_WLF_PHASES, .title = "boot by memory", .phases = mem_phases},
};
static const tb_workload mem_wl = {
    .name = "mem",
    .title = "Memory (test)",
    .what = "a test-only table",
    TB_WL_METRIC_TABLE(mem_metrics),
    TB_WL_FAMILY_TABLE(mem_families),
};

static void add_families(tb_record *r, double slow, int with_ssh)
{
    static const char *const ws[] = {"4kib", "16kib", "64kib", "256kib", "1mib",
                                     "4mib", "16mib", "64mib", "1gib"};
    char name[64];
    for (size_t i = 0; i < 9; i++) {
        snprintf(name, sizeof name, "mem.latency.ws_%s.ns", ws[i]);
        add(r, name, "ns", TB_BETTER_LOWER, "mem", unit10, 10, (1.0 + 10.0 * (double)i) * slow, 0,
            NULL);
    }
    for (int t = 1; t <= 8; t *= 2) {
        snprintf(name, sizeof name, "mem.copy.threads_%d.bps", t);
        add(r, name, "B/s", TB_BETTER_HIGHER, "mem", unit10, 10, 1e9 * t / slow, 0, NULL);
    }
    add(r, "mem.copy.size_64kib.bps", "B/s", TB_BETTER_HIGHER, "mem", unit10, 10, 5e9 / slow, 0,
        NULL);
    static const char *const ph[] = {"firmware", "kernel", "userspace", "ssh"};
    for (size_t p = 0; p < 4; p++) {
        if (p == 3 && !with_ssh)
            continue;
        snprintf(name, sizeof name, "vm.boot.%s.s", ph[p]);
        add(r, name, "s", TB_BETTER_LOWER, "vm", unit10, 10, (1.0 + (double)p) * slow, 0, NULL);
    }
    add(r, "vm.boot.s", "s", TB_BETTER_LOWER, "vm", unit10, 10, 10.5 * slow, 0, NULL);
    static const char *const sizes[] = {"mem_2gib", "mem_8gib"};
    for (size_t m = 0; m < 2; m++) {
        snprintf(name, sizeof name, "mem.boot.%s.firmware.s", sizes[m]);
        add(r, name, "s", TB_BETTER_LOWER, "mem", unit10, 10, 1 + (double)m, 0, NULL);
        snprintf(name, sizeof name, "mem.boot.%s.kernel.s", sizes[m]);
        add(r, name, "s", TB_BETTER_LOWER, "mem", unit10, 10, 2 + 4 * (double)m * slow, 0, NULL);
    }
}

/* The rows the test-only table has, as compare would have made them from a registry
   that held it. */
static void adopt_test_table(tb_compare *c)
{
    for (size_t k = 0; k < c->n_rows; k++) {
        tb_compare_row *row = &c->rows[k];
        if (tb_wl_metric_match(&mem_wl, row->name, &row->spec)) {
            row->category = row->spec.metric->category;
            row->workload = mem_wl.name;
        }
    }
}

static void test_sweeps_and_phases(void **state)
{
    (void)state;
    tb_err e;
    fixture f = {
        .r = {env_record("host", 1, 0, 0), env_record("vm", 1.25, 0, 0), env_record("td", 2, 0, 0)},
        .n = 3};
    add_families(f.r[0], 1, 1);
    add_families(f.r[1], 1.25, 1);
    add_families(f.r[2], 2, 0); /* no ssh phase */
    assert_int_equal(
        tb_compare_build((const tb_record *const *)f.r, f.n, 0, TB_COMPARE_ALPHA, &f.c, &e), 0);
    adopt_test_table(&f.c);
    tb_page_opts o = {"families", NULL, NULL, "out"};
    assert_int_equal(tb_page_build(&f.c, TB_PAGE_HTML, &o, &f.page, &e), 0);
    const char *doc = (const char *)f.page.doc.p;
    check_svgs_well_formed(doc);
    /* sweeps: a line chart each, a point per environment and setting */
    char *sw = section(doc, "sweeps");
    assert_int_equal(count(sw, "<svg"), 2);
    assert_int_equal(count(sw, "class=\"tb-pt "), 3 * (9 + 4));
    assert_non_null(strstr(sw, "<h3>Memory (test): latency by working set</h3>"));
    assert_non_null(strstr(sw, "<h3>Memory (test): copy by threads</h3>"));
    assert_non_null(strstr(sw, ">4 KiB</text>"));
    assert_non_null(strstr(sw, "working set, log scale"));
    assert_non_null(strstr(sw, "host: 1 GiB = 81.0 ns"));
    assert_non_null(strstr(sw, "td [TDX]: 8 = 4,000,000,000 B/s [3,920,000,000, 4,080,000,000]"));
    assert_non_null(strstr(sw, "median, lower is better (ns)"));
    assert_null(strstr(sw, "copy by size")); /* one point: a bar */
    free(sw);
    /* phases: a stacked bar per environment, per memory size for templates */
    char *ph = section(doc, "phases");
    assert_int_equal(count(ph, "<svg"), 2);
    assert_int_equal(count(ph, "class=\"tb-seg\""), (4 + 4 + 3) + 3 * 2 * 2);
    assert_non_null(strstr(ph, "<h3>VM: boot phases</h3>"));
    assert_non_null(strstr(ph, ">userspace</text>"));
    assert_non_null(strstr(ph, ">firmware</text>"));
    assert_int_equal(count(ph, "\xc2\xb7 whole "), 3);
    assert_non_null(strstr(ph, ">10.0 s <tspan class=\"tb-m\">\xc2\xb7 whole 10.5 s</tspan>"));
    assert_non_null(strstr(ph, ">12.0 s (3 of 4) <tspan"));
    assert_non_null(strstr(ph, ">host \xc2\xb7 mem_2gib</text>"));
    assert_non_null(strstr(ph, ">td [TDX] \xc2\xb7 mem_8gib</text>"));
    free(ph);
    /* the bars: neither sweeps' points nor phases, but the single point and the whole */
    char *bars = section(doc, "throughput");
    assert_null(strstr(bars, "mem.latency.ws_4kib.ns"));
    assert_null(strstr(bars, "vm.boot.kernel.s"));
    assert_null(strstr(bars, "mem.boot.mem_2gib.kernel.s"));
    assert_non_null(strstr(bars, "mem.copy.size_64kib.bps"));
    assert_non_null(strstr(bars, "vm.boot.s"));
    free(bars);
    /* every one of them is a row of the forest plot */
    char *ov = section(doc, "overview");
    assert_int_equal(count(ov, "data-kind=\"metric\""), (int)f.c.n_rows);
    assert_non_null(strstr(ov, "data-label=\"Memory \xc2\xb7 14 metrics\""));
    assert_non_null(strstr(ov, "data-label=\"Boot \xc2\xb7 9 metrics\""));
    free(ov);
    tb_page_free(&f.page);

    /* markdown: a file per chart, named by family */
    assert_int_equal(tb_page_build(&f.c, TB_PAGE_MARKDOWN, &o, &f.page, &e), 0);
    static const char *const files[] = {
        "out-sweep-mem-latency-by-working-set.svg", "out-sweep-mem-copy-by-threads.svg",
        "out-phases-vm-boot-phases.svg", "out-phases-mem-boot-by-memory.svg"};
    for (size_t i = 0; i < 4; i++) {
        size_t k = 0;
        while (k < f.page.n_files && strcmp(f.page.files[k].name, files[i]))
            k++;
        if (k == f.page.n_files)
            fail_msg("markdown: no %s", files[i]);
        assert_true(well_formed((const char *)f.page.files[k].data.p));
    }
    fixture_free(&f);

    /* without the families' table the same names are metrics of their own (category
       other): no sweep, no mem phases; vm's phases are the registry's own */
    fixture g = {.r = {tb_record_new(&e), tb_record_new(&e)}, .n = 2};
    add_families(g.r[0], 1, 1);
    add_families(g.r[1], 2, 1);
    build(&g, TB_PAGE_HTML, NULL);
    doc = (const char *)g.page.doc.p;
    assert_null(strstr(doc, "<section id=\"sweeps\""));
    ph = section(doc, "phases");
    assert_int_equal(count(ph, "<svg"), 1);
    assert_int_equal(count(ph, "class=\"tb-seg\""), 2 * 4);
    free(ph);
    fixture_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_html_page),
        cmocka_unit_test(test_missing_sections_and_one_env),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_bounce_section),
        cmocka_unit_test(test_tdx_and_snp),
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_verdict_rule_and_many_rows),
        cmocka_unit_test(test_sections_from_tables),
        cmocka_unit_test(test_forest_many_metrics),
        cmocka_unit_test(test_sweeps_and_phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
