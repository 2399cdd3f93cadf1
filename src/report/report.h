/* report: the page of `teebench report` -- stored runs of several environments as one
 * self-contained HTML file (inline SVG charts from report/svg, no script, no external
 * resource: it opens offline, prints, and forbids network access itself through a
 * Content-Security-Policy), or as markdown with its charts in SVG files beside it.
 *
 * What the page holds, in order:
 * - headline: one card per environment with the few numbers that matter -- against
 *   the baseline, the HTTP req/s ratio (target "nginx", else the first) and the
 *   System Call Overhead index ratio (syscall.cn.index: N copies, else syscall.c1.index), each
 *   with its 95 % interval and a plain-words verdict from the rank test ("no
 *   significant difference" where p >= alpha); within the environment, the notary's
 *   TEE overhead in ms and % of the no_tee notarization, and the quote verification
 *   time (notary.tee_verify.verify_ms, attest.verify_scratch.ms,
 *   attest.verify_prepared.us). SIMULATED and noisy numbers carry badges;
 * - charts: bars of every other metric (one panel each) with interval whiskers; HTTP
 *   latency percentile curves per target on HdrHistogram's percentile axis
 *   (http.<t>.latency.pNN solid, http.<t>.latency_u.pNN dashed: uncorrected); the
 *   notary modes as box + strip plots of every sample (notarization, verify,
 *   notarization + verify end to end); the probes as a dot plot on a log time axis
 *   with each probe's "why it matters in a TD" note. A section without its metrics
 *   says so instead of a chart;
 * - tables: the comparison (every metric, every environment), each environment's
 *   facts (platform, TDX module, kernel, CPU, mitigations, clock source, tool
 *   versions), the exact commands, and the teebench version and date.
 * Every string that comes from a result (labels, notes, commands, env facts) is
 * escaped; numbers are shown by report/svg's tb_svg_fmt_num (3 significant digits,
 * thousands separators) and carry data-value attributes with full precision.
 *
 * Pure: no I/O, no clock (the caller passes the date); the same comparison and
 * options give the same bytes. Ownership: tb_page owns its buffers and file names;
 * tb_page_free releases them. Exported names are tb_page_*. */
#ifndef TB_REPORT_REPORT_H
#define TB_REPORT_REPORT_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "compare/compare.h"

enum tb_page_format { TB_PAGE_HTML, TB_PAGE_MARKDOWN };

/* Parses "html" or "markdown" (also "md"). 0 or -1. */
int tb_page_format_parse(const char *s, enum tb_page_format *out);

typedef struct tb_page_opts {
    const char *title;      /* page title; NULL: "teebench report" */
    const char *generated;  /* when the page was made (ISO 8601 UTC); NULL: not shown */
    const char *command;    /* the command line that made it; NULL: not shown */
    const char *svg_prefix; /* markdown: SVG file names start with it ("report" gives
                               "report-throughput.svg"); NULL: "report" */
} tb_page_opts;

typedef struct tb_page_file {
    char *name;  /* a bare file name (no directory), to be written beside the page */
    tb_buf data; /* a standalone SVG document */
} tb_page_file;

typedef struct tb_page {
    tb_buf doc;          /* the HTML page or the markdown text */
    tb_page_file *files; /* markdown only: the charts */
    size_t n_files;
} tb_page;

/* Builds the page of comparison c (whose records it reads: labels, env facts,
   commands, versions, samples) into *out (zeroed first). 0, or -1 with err filled
   (out of memory); on failure *out is freed. */
int tb_page_build(const tb_compare *c, enum tb_page_format fmt, const tb_page_opts *o, tb_page *out,
                  tb_err *err);
void tb_page_free(tb_page *p);

#endif
