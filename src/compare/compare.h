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
 * "significant" when p < alpha (default 0.05); otherwise the cell says "~".
 * The coefficient of variation (stdev / mean) above TB_COMPARE_NOISY_CV marks a
 * cell noisy. Geometric-mean rows summarise the ratios per direction.
 *
 * Exact definitions of each statistic: src/stats/rank.h. Fixed choices: 95 %
 * intervals (TB_COMPARE_LEVEL), TB_COMPARE_RESAMPLES bootstrap resamples from
 * seed TB_COMPARE_SEED for every cell (a cell's interval depends on its samples
 * and the baseline's alone). Ratios need positive medians; their intervals need
 * positive samples on both sides. Rows take name, unit, direction, workload and
 * note from the baseline's metric, or from the first record that has it; the same
 * metric with another unit or direction in another record is an error.
 *
 * Ownership: a tb_compare borrows the records it was built from (they must
 * outlive it) and owns its rows; tb_compare_clear frees the rows. */
#ifndef TB_COMPARE_COMPARE_H
#define TB_COMPARE_COMPARE_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "record/record.h"

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
    TB_COMPARE_BETTER,          /* p < alpha, in the metric's better direction */
    TB_COMPARE_WORSE,           /* p < alpha, the other way */
    TB_COMPARE_UNTESTABLE       /* too few samples for the test to ever reach alpha */
};

typedef struct tb_compare_cell {
    int present;     /* the record has this metric */
    size_t n;        /* samples */
    double median;   /* in the metric's unit */
    double lo, hi;   /* 95 % CI of the median; NAN when too few samples */
    double cv;       /* stdev / mean; NAN when n < 2 */
    int noisy;       /* cv > TB_COMPARE_NOISY_CV */
    double ratio;    /* median / baseline median; NAN for the baseline or when absent */
    double ratio_lo; /* 95 % interval of the ratio; NAN when too few samples */
    double ratio_hi;
    double p_value;  /* Mann-Whitney U vs the baseline; NAN when not computable */
    int significant; /* p_value < alpha */
    int too_few;     /* too few samples for an interval or a test: no median interval
                        here, or (against the baseline) no ratio interval or no test
                        that could reach alpha */
    /* added with the implementation: */
    double stdev;  /* sample standard deviation; NAN when n < 2 */
    int simulated; /* this record's metric was measured with a simulated TEE */
    int verdict;   /* enum tb_compare_verdict */
} tb_compare_cell;

typedef struct tb_compare_row {
    const char *name; /* borrowed from a record */
    const char *unit;
    const char *workload;
    const char *note;       /* may be NULL */
    int better;             /* TB_BETTER_HIGHER / TB_BETTER_LOWER */
    int simulated;          /* any cell measured with a simulated TEE */
    tb_compare_cell *cells; /* n_records cells, in record order */
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
} tb_compare;

/* Builds the comparison. n_records >= 1, baseline < n_records, 0 < alpha < 1.
   0, or -1 with err filled (out of memory, bad arguments). */
int tb_compare_build(const tb_record *const *records, size_t n_records, size_t baseline,
                     double alpha, tb_compare *out, tb_err *err);
void tb_compare_clear(tb_compare *c);

/* The row of a metric, or NULL. */
const tb_compare_row *tb_compare_find(const tb_compare *c, const char *name);

enum tb_compare_format { TB_COMPARE_TEXT, TB_COMPARE_MARKDOWN, TB_COMPARE_CSV, TB_COMPARE_JSON };
/* Parses "text", "markdown", "csv", "json". 0 or -1. */
int tb_compare_format_parse(const char *s, enum tb_compare_format *out);
/* Appends the formatted table to out. 0, or -1 (OOM).
   text: aligned columns, one row per metric, one column per record, legend below;
   markdown: a GitHub table and the same legend; csv: a header line, then one line
   per (metric, record) in row order with every cell field; json: one object,
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
} tb_compare_gate;
int tb_compare_gate_parse(const char *expr, tb_compare_gate *out, tb_err *err);
/* Evaluates a gate on every non-baseline record. Returns the number of records that
   trip it (0 = passes); a metric that no record has is an error (-1). Describes
   each failure as one line appended to why (may be NULL). A record without a ratio
   (the metric absent there or in the baseline, or a median <= 0) trips the gate:
   a CI gate fails closed. A comparison of one record has nothing to gate (-1). */
int tb_compare_gate_eval(const tb_compare *c, const tb_compare_gate *g, tb_buf *why, tb_err *err);
/* (Added.) A record's column title: its label, " #<position>" when another record
   has the same label, " [<TEE>]" when its environment is one (tb_record_tee's kind:
   "TDX", "SEV-SNP", "SEV-ES", "SEV"), " [SIMULATED]" when simulated -- in that order,
   e.g. "td [TDX]", "snp #2 [SEV-SNP] [SIMULATED]", "host". Writes into out. */
void tb_compare_title(const tb_compare *c, size_t i, char *out, size_t out_len);
/* (Added.) The verdict's name: "baseline", "absent", "same", "better", "worse",
   "untestable". */
const char *tb_compare_verdict_name(int verdict);

#endif
