/* compare: environments side by side -- statistics over the samples of stored
 * records (pure: no I/O, no clock, no global state).
 *
 * For each metric name found in any record, one row; for each record, one cell:
 * the median of its samples, a distribution-free 95 % confidence interval of the
 * median (order statistics, as benchstat does; "too few samples" below 6), the
 * ratio of the cell's median to the baseline's with a 95 % interval (percentile
 * bootstrap of the ratio of medians, fixed seed: same input, same interval), and a
 * two-sided Mann-Whitney U test against the baseline's samples (exact for small
 * samples, normal approximation with tie correction above). A difference is
 * "significant" when its p-value -- adjusted for the number of tests when the
 * comparison says so (tb_compare_set_adjust), raw by default -- is below alpha
 * (default 0.05); otherwise the cell says "~". Better or worse follows the
 * direction of the test (the sign of U - n1 n2 / 2: which sample tends to lie above
 * the other), not the medians: quantized metrics (indices, counts, whole ms) often
 * have equal medians and a real shift.
 *
 * Many tests at once: the rows a record was tested on against the baseline (both
 * sides have samples and the sizes can reach alpha: verdict same, better or worse)
 * are one family; per record the comparison counts them (N), the significant ones
 * (k) and says N * alpha, the count expected by chance alone when nothing differs
 * (tb_compare_summary). Holm or Benjamini-Hochberg adjust p within that family.
 *
 * The coefficient of variation (stdev / mean) above TB_COMPARE_NOISY_CV marks a
 * cell noisy. Geometric-mean rows summarise the ratios per direction.
 *
 * Exact definitions of each statistic: src/stats/rank.h. Fixed choices: 95 %
 * intervals (TB_COMPARE_LEVEL), TB_COMPARE_RESAMPLES bootstrap resamples from
 * seed TB_COMPARE_SEED for every cell (a cell's interval depends on its samples
 * and the baseline's alone). Ratios need positive medians; their intervals need
 * positive samples on both sides (the cell says which of the two is missing). Rows
 * take name, unit, direction, workload and note from the baseline's metric, or from
 * the first record that has it; the same metric with another unit or direction in
 * another record is an error.
 *
 * Ownership: a tb_compare borrows the records it was built from (they must
 * outlive it) and owns its rows and per-record arrays; tb_compare_clear frees them. */
#ifndef TB_COMPARE_COMPARE_H
#define TB_COMPARE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "record/record.h"
#include "stats/rank.h"
#include "workloads/workload.h"

#define TB_COMPARE_NOISY_CV 0.05
#define TB_COMPARE_ALPHA 0.05
#define TB_COMPARE_LEVEL 0.95     /* of every interval */
#define TB_COMPARE_RESAMPLES 2000 /* bootstrap resamples per ratio interval */
#define TB_COMPARE_SEED 0x7465656265u

/* What a cell says about its difference from the baseline. */
enum tb_compare_verdict {
    TB_COMPARE_IS_BASELINE = 0, /* the baseline's own cell */
    TB_COMPARE_ABSENT,          /* the metric is missing here or in the baseline */
    TB_COMPARE_SAME,            /* p >= alpha: no significant difference ("~") */
    TB_COMPARE_BETTER,          /* p < alpha, shifted in the metric's better direction */
    TB_COMPARE_WORSE,           /* p < alpha, shifted the other way */
    TB_COMPARE_UNTESTABLE       /* too few samples for the test to ever reach alpha */
};

/* Why a compared cell has no ratio interval (ratio_ci_why). */
enum tb_compare_ci_why {
    TB_COMPARE_CI_SHOWN = 0,   /* it has one, or it is not compared with the baseline */
    TB_COMPARE_CI_TOO_FEW,     /* fewer than 6 samples here or in the baseline */
    TB_COMPARE_CI_NON_POSITIVE /* a sample <= 0 here or in the baseline (a ratio of
                                  resampled medians needs positive values) */
};

typedef struct tb_compare_cell {
    int present;     /* the record has this metric */
    size_t n;        /* samples */
    double median;   /* in the metric's unit */
    double lo, hi;   /* 95 % CI of the median; NAN when too few samples */
    double cv;       /* stdev / mean; NAN when n < 2 */
    int noisy;       /* cv > TB_COMPARE_NOISY_CV */
    double ratio;    /* median / baseline median; NAN for the baseline or when absent */
    double ratio_lo; /* 95 % interval of the ratio; NAN when none (ratio_ci_why says why) */
    double ratio_hi;
    double p_value;  /* Mann-Whitney U vs the baseline, unadjusted; NAN when not computable */
    int significant; /* p_adjusted < alpha (tested cells only) */
    int too_few;     /* too few samples for an interval or a test: no median interval
                        here, or (against the baseline) no ratio interval or no test
                        that could reach alpha */
    /* added with the implementation: */
    double stdev;  /* sample standard deviation; NAN when n < 2 */
    int simulated; /* this record's metric was measured with a simulated TEE */
    int verdict;   /* enum tb_compare_verdict */
    /* added with issue 19 (verdicts that say what the data say): */
    int tested;        /* tested against the baseline with sizes that can reach alpha:
                          in its record's family (verdict same, better or worse) */
    double p_adjusted; /* p_value adjusted within the record's family by the
                          comparison's method (= p_value with none); NAN when untested */
    int shift;         /* the test's direction (tb_mwu.shift of the cell against the
                          baseline): +1 its samples tend to lie above the baseline's,
                          -1 below, 0 none or not tested; better/worse follow it */
    int ratio_ci_why;  /* enum tb_compare_ci_why */
} tb_compare_cell;

/* A row's unit, direction, workload and category come from its workload's metric table
   (workloads/) when one has its name -- every record's metric must then agree with it --
   else from the baseline's metric (or the first record that has it), category
   TB_CAT_OTHER. */
typedef struct tb_compare_row {
    const char *name; /* borrowed from a record */
    const char *unit;
    const char *workload;
    const char *note;       /* may be NULL */
    int better;             /* TB_BETTER_HIGHER / TB_BETTER_LOWER */
    int simulated;          /* any cell measured with a simulated TEE */
    tb_compare_cell *cells; /* n_records cells, in record order */
    /* added with the workload tables: */
    tb_wl_category category;
    tb_wl_match spec; /* the table's row (spec.metric NULL: a name no table has) */
} tb_compare_row;

typedef struct tb_compare {
    const tb_record *const *records; /* borrowed */
    size_t n_records;
    size_t baseline; /* index into records */
    double alpha;
    tb_compare_row *rows; /* sorted by metric name */
    size_t n_rows;
    /* geometric mean of the ratios to the baseline over the rows present in both,
       per record, per direction; NAN where there is none. Arrays of n_records. */
    double *geomean_higher, *geomean_lower;
    size_t *geomean_higher_n, *geomean_lower_n;
    /* many tests at once, per record (arrays of n_records; 0 for the baseline): */
    int adjust;         /* enum tb_stats_adjust: how p_adjusted is made */
    size_t *tested;     /* N: the record's tested cells */
    size_t *differ;     /* k: of those, significant (p_adjusted < alpha) */
    size_t *differ_raw; /* of those, p_value < alpha (= differ without adjustment) */
} tb_compare;

/* Builds the comparison (no adjustment: p_adjusted = p_value). n_records >= 1,
   baseline < n_records, 0 < alpha < 1. 0, or -1 with err filled (out of memory, bad
   arguments). */
int tb_compare_build(const tb_record *const *records, size_t n_records, size_t baseline,
                     double alpha, tb_compare *out, tb_err *err);
void tb_compare_clear(tb_compare *c);
/* Adjusts every record's p-values within its family by method (enum
   tb_stats_adjust) and decides the verdicts, significance and counts again. 0, or -1
   with err filled (out of memory: the comparison is as it was). */
int tb_compare_set_adjust(tb_compare *c, int method, tb_err *err);
/* Parses "none", "holm", "bh" (also "fdr", "benjamini-hochberg"). 0 or -1. */
int tb_compare_adjust_parse(const char *s, int *out);
/* "none", "holm", "bh". */
const char *tb_compare_adjust_name(int method);
/* The multiple-comparison line of record i against the baseline (no newline), e.g.
   "vm vs host: 3 of 46 rows differ at α = 0.05; ≈ 2.3 expected by chance"; with
   an adjustment it names it and gives the unadjusted count too. "" for the baseline
   and for a comparison of one record. */
void tb_compare_summary(const tb_compare *c, size_t i, char *out, size_t out_len);

/* When a tested cell's medians do not show the test's direction: "shifted, medians
   equal", "shifted up, median lower" or "shifted down, median higher" (static
   strings); NULL when they agree or the cell is not tested. */
const char *tb_compare_shift_note(const tb_compare *c, const tb_compare_row *row, size_t i);

/* The row of a metric, or NULL. */
const tb_compare_row *tb_compare_find(const tb_compare *c, const char *name);

enum tb_compare_format { TB_COMPARE_TEXT, TB_COMPARE_MARKDOWN, TB_COMPARE_CSV, TB_COMPARE_JSON };
/* Parses "text", "markdown", "csv", "json". 0 or -1. */
int tb_compare_format_parse(const char *s, enum tb_compare_format *out);
/* Appends the formatted table to out. 0, or -1 (OOM).
   text: aligned columns, one row per metric, one column per record, legend below;
   markdown: a GitHub table and the same legend; both say each record's
   multiple-comparison line (tb_compare_summary) right under the table. csv: a header
   line, then one line per (metric, record) in row order with every cell field (the
   multiple-comparison lines are not CSV: the cli prints them on stderr); json: one object,
   schema "teebench-compare" schema_version 1 (members in docs/ARCHITECTURE.md,
   compare module), numbers with 7 significant digits, null for NAN. */
int tb_compare_format(const tb_compare *c, enum tb_compare_format fmt, tb_buf *out, tb_err *err);

/* A regression gate: "<metric> <op> <number>" where op is <, <=, >, >=, and the
   number is compared with the ratio to the baseline ("http.nginx.rps < 0.9"
   fails when some record's ratio is below 0.9). */
typedef struct tb_compare_gate {
    char metric[129];
    char op[3];
    double threshold;
    int decimals; /* the threshold's own decimal places ("0.9125": 4; "1e-2": 2) */
} tb_compare_gate;
int tb_compare_gate_parse(const char *expr, tb_compare_gate *out, tb_err *err);
/* Evaluates a gate on every non-baseline record. Returns the number of records that
   trip it (0 = passes); a metric that no record has is an error (-1). Describes
   each failure as one line appended to why (may be NULL). A record without a ratio
   (the metric absent there or in the baseline, or a median <= 0) trips the gate:
   a CI gate fails closed. A comparison of one record has nothing to gate (-1).
   The ratio is compared at the precision printed: rounded to the table's decimals
   for it (3 below 10, 2 below 100, 1 above), or to the threshold's own decimals when
   it has more, and the failure line prints those digits -- 0.3 / 0.1 =
   2.9999999999999996 is "3.000x" and does not trip "< 3". */
int tb_compare_gate_eval(const tb_compare *c, const tb_compare_gate *g, tb_buf *why, tb_err *err);
/* (Added.) A record's column title: its label, " #<position>" when another record
   has the same label, " [<TEE>]" when its environment is one (tb_record_tee's kind:
   "TDX", "SEV-SNP", "SEV-ES", "SEV"), " [SIMULATED]" when simulated -- in that order,
   e.g. "td [TDX]", "snp #2 [SEV-SNP] [SIMULATED]", "host". Writes into out. */
void tb_compare_title(const tb_compare *c, size_t i, char *out, size_t out_len);
/* The decimals a ratio is printed with: 0.215x, 12.35x, 123.5x (3, 2, 1). */
int tb_compare_ratio_decimals(double ratio);
/* (Added with issue 21.) The geometric mean of record i's ratios to the baseline over the
   rows of category cat whose direction is better (TB_BETTER_HIGHER / _LOWER) -- the rows
   with a ratio (finite, > 0) -- with a 95 % interval across those metrics: a Student's t
   interval of the mean of their log ratios, exp(mean +- t(0.95, n-1) * sd / sqrt(n)) (sd
   the sample standard deviation of the log ratios). It says where the typical ratio of
   the category's metrics lies given how much those metrics disagree with each other; it
   does not carry each metric's own measurement noise (its ratio interval does), and
   metrics of one workload are not independent (percentiles of one distribution), so it
   summarises a spread, it is no test. */
typedef struct tb_compare_gm {
    size_t n;      /* rows with a ratio */
    double ratio;  /* the geometric mean; NAN when n == 0 */
    double lo, hi; /* its interval; NAN when n < 2 */
    int simulated; /* one of those rows was measured with a simulated TEE here or in the
                      baseline */
} tb_compare_gm;
void tb_compare_category_geomean(const tb_compare *c, size_t i, tb_wl_category cat, int better,
                                 tb_compare_gm *out);

/* ---- the bounce-buffer split (issue 21; compare/bounce.c) ----
 *
 * A TD's (or SNP guest's) I/O cost over a regular VM has a part that is the bounce
 * buffer's copying (swiotlb) and the rest (exits, page conversions, ...). A regular VM
 * booted with swiotlb=force (regular-swiotlb) pays the first part only, so for one
 * metric
 *     share = (median(bounce) - median(vm)) / (median(td) - median(vm))
 * is the share of the TD's extra cost the bounce path explains (CVM_eval's split). It is
 * defined only when the TD is slower than the VM in the metric's direction (lower
 * throughput, higher latency); a share outside [0, 1] says the bounced VM is faster than
 * the VM, or slower than the TD (noise, or a cost the TD does not pay). The interval: a
 * percentile bootstrap, each of the three sample sets resampled on its own (medians
 * from tb_stats_boot_medians, seeds seed, seed ^ TB_STATS_BOOT_SEED_B, seed ^
 * TB_COMPARE_BOUNCE_SEED_TD), the share computed per resample; a resample whose TD is
 * not slower than its VM has no share (the ratio passed through infinity): when more
 * than (1 - level) / 2 of them have none the interval is unbounded and not given,
 * else the percentiles are those of the resamples that have one. At least
 * tb_stats_median_ci_min_n(level) samples (6 at 95 %) in each set. */
#define TB_COMPARE_BOUNCE_SEED_TD 0x2545f4914f6cdd1dull

enum tb_compare_bounce_why {
    TB_COMPARE_BOUNCE_OK = 0,     /* a share and its interval */
    TB_COMPARE_BOUNCE_NOT_SLOWER, /* the TD is not slower than the VM: no share */
    TB_COMPARE_BOUNCE_UNBOUNDED,  /* a share, no interval: too many resamples' TDs were
                                     not slower than their VMs */
    TB_COMPARE_BOUNCE_TOO_FEW,    /* a share, no interval: fewer than 6 samples somewhere */
    TB_COMPARE_BOUNCE_NO_DATA     /* a set without samples: nothing */
};

typedef struct tb_compare_bounce {
    double vm, bounce, td; /* medians; NAN when a set has no samples */
    double share;          /* NAN when why is NOT_SLOWER or NO_DATA */
    double lo, hi;         /* the interval; NAN unless why is OK */
    double no_share;       /* the fraction of resamples without a share; NAN: none drawn */
    int why;               /* enum tb_compare_bounce_why */
} tb_compare_bounce;

/* The split of one metric (better: TB_BETTER_HIGHER / _LOWER) from its samples in the
   VM, the bounced VM and the TD (unsorted, not modified), with resamples (>= 1) at
   level (0 < level < 1). 0, or -1 with err (out of memory). Pure. */
int tb_compare_bounce_share(const double *vm, size_t nv, const double *bounce, size_t nb,
                            const double *td, size_t nt, int better, unsigned resamples,
                            uint64_t seed, double level, tb_compare_bounce *out, tb_err *err);
/* "the TD is not slower than the VM", ... : one phrase per enum tb_compare_bounce_why
   ("" for OK). */
const char *tb_compare_bounce_why_text(int why);

/* The environments of the split among c's records, identified by their facts (never by
   labels): the VM, the bounced VM and the TD -- extra.vm (a VM teebench started: kind
   "regular" with swiotlb.forced false, "regular" with it true, "tdx" or "snp"), else the
   env facts (platform "vm" and the swiotlb fact not forced by the command line; "vm"
   and forced by it; a TDX or SEV-SNP guest). The first record of each role; -1 where
   none. Returns 1 when all three are there, else 0. */
typedef struct tb_compare_bounce_roles {
    long vm, bounce, td; /* record indices, -1: none */
} tb_compare_bounce_roles;
int tb_compare_bounce_roles_find(const tb_compare *c, tb_compare_bounce_roles *out);
/* 1 for the categories whose I/O a bounce buffer carries: storage, network, key-value. */
int tb_compare_bounce_category(tb_wl_category cat);

/* (Added.) The verdict's name: "baseline", "absent", "same", "better", "worse",
   "untestable". */
const char *tb_compare_verdict_name(int verdict);

#endif
