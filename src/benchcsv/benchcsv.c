/* benchcsv: results.csv / retries.csv rows and client output lines. See benchcsv.h.
 * The CSV reader is a small RFC 4180 record splitter (quoted fields, "" escapes,
 * CRLF or LF) that never reads past len and bounds every field. */
#include "benchcsv/benchcsv.h"
#include "benchcsv/internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/csv.h"
#include "base/file.h"
#include "base/num.h"

#define CSV_MAX_FIELDS 12

static const char *const result_fields[] = {"mode",
                                            "iteration",
                                            "enable_tee",
                                            "verify_attestation",
                                            "exit_code",
                                            "notarization_ms",
                                            "total_e2e_ms",
                                            "tdx_verify_ms",
                                            "notarization_plus_verify_ms",
                                            "wall_ms",
                                            "stdout_log",
                                            "stderr_log"};
static const char *const retry_fields[] = {"mode",    "iteration",  "attempt",   "exit_code",
                                           "wall_ms", "stdout_log", "stderr_log"};

/* ---- growable arrays ---- */

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 32;
    if (nc > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

int tb_bench_results_push(tb_bench_results *rs, const tb_bench_result_row *row, tb_err *err)
{
    if (grow((void **)&rs->rows, &rs->cap, rs->n, sizeof *rs->rows) < 0)
        return tb_errf(err, "out of memory");
    rs->rows[rs->n++] = *row;
    return 0;
}

void tb_bench_results_clear(tb_bench_results *rs)
{
    free(rs->rows);
    free(rs->damaged);
    memset(rs, 0, sizeof *rs);
}

int tb_bench_retries_push(tb_bench_retries *rs, const tb_bench_retry_row *row, tb_err *err)
{
    if (grow((void **)&rs->rows, &rs->cap, rs->n, sizeof *rs->rows) < 0)
        return tb_errf(err, "out of memory");
    rs->rows[rs->n++] = *row;
    return 0;
}

void tb_bench_retries_clear(tb_bench_retries *rs)
{
    free(rs->rows);
    memset(rs, 0, sizeof *rs);
}

int tb_bench_result_ok(const tb_bench_result_row *row)
{
    return row->exit_code == 0 && (row->has & TB_BENCH_HAS_NOTARIZATION);
}

int tb_bench_result_unverified(const tb_bench_result_row *row)
{
    return tb_bench_result_ok(row) && row->verify && !(row->has & TB_BENCH_HAS_TDX_VERIFY);
}

/* ---- writing ---- */

int tb_bench_format_ms(double ms, char *out, size_t n)
{
    int k = snprintf(out, n, "%.3f", ms);
    if (k < 0 || (size_t)k >= n)
        return -1;
    char *dot = strchr(out, '.');
    if (dot) {
        char *end = out + k - 1;
        while (end > dot && *end == '0')
            *end-- = 0;
        if (end == dot)
            *end = 0;
    }
    return 0;
}

/* A milliseconds cell: empty when the run did not report it. */
static void put_ms(tb_csv_row *row, unsigned has, unsigned bit, double v)
{
    char s[64] = "";
    if ((has & bit) && tb_bench_format_ms(v, s, sizeof s) < 0)
        row->rc = -1;
    tb_csv_put_raw(row, s);
}

/* Text cells (a mode, a log path: RESULTS_DIR is the user's) are quoted by base/csv so
   that no spreadsheet runs them as a formula; the reader undoes the guard
   (tb_csv_text_value). */
int tb_bench_results_format_row(const tb_bench_result_row *r, tb_buf *out)
{
    tb_csv_row row;
    tb_csv_row_begin(&row, out);
    tb_csv_put_text(&row, r->mode);
    tb_csv_put_printf(&row, "%ld", r->iteration);
    tb_csv_put_raw(&row, r->enable_tee ? "1" : "0");
    tb_csv_put_raw(&row, r->verify ? "1" : "0");
    tb_csv_put_printf(&row, "%d", r->exit_code);
    put_ms(&row, r->has, TB_BENCH_HAS_NOTARIZATION, r->notarization_ms);
    put_ms(&row, r->has, TB_BENCH_HAS_TOTAL_E2E, r->total_e2e_ms);
    put_ms(&row, r->has, TB_BENCH_HAS_TDX_VERIFY, r->tdx_verify_ms);
    put_ms(&row, r->has, TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY, r->notarization_plus_verify_ms);
    put_ms(&row, r->has, TB_BENCH_HAS_WALL, r->wall_ms);
    tb_csv_put_text(&row, r->stdout_log);
    tb_csv_put_text(&row, r->stderr_log);
    return tb_csv_row_end(&row);
}

int tb_bench_retries_format_row(const tb_bench_retry_row *r, tb_buf *out)
{
    tb_csv_row row;
    tb_csv_row_begin(&row, out);
    tb_csv_put_text(&row, r->mode);
    tb_csv_put_printf(&row, "%ld", r->iteration);
    tb_csv_put_printf(&row, "%d", r->attempt);
    tb_csv_put_printf(&row, "%d", r->exit_code);
    put_ms(&row, TB_BENCH_HAS_WALL, TB_BENCH_HAS_WALL, r->wall_ms);
    tb_csv_put_text(&row, r->stdout_log);
    tb_csv_put_text(&row, r->stderr_log);
    return tb_csv_row_end(&row);
}

int tb_bench_csv_create(const char *path, const char *header, tb_err *err)
{
    return tb_bench_csv_create_at(AT_FDCWD, NULL, path, header, err);
}

int tb_bench_csv_create_at(int dfd, const char *dir, const char *name, const char *header,
                           tb_err *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name) >=
        (int)sizeof path)
        return tb_errf(err, "%s: path too long", name);
    int fd =
        openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    size_t len = strlen(header);
    char *line = malloc(len + 2);
    if (!line) {
        close(fd);
        return tb_errf(err, "%s: out of memory", path);
    }
    memcpy(line, header, len);
    line[len] = '\n';
    int rc = tb_bench_csv_append_line(fd, line, len + 1, err);
    free(line);
    if (rc < 0) {
        close(fd);
        return tb_err_wrap(err, "%s", path);
    }
    return fd;
}

int tb_bench_csv_append_line(int fd, const char *line, size_t len, tb_err *err)
{
    off_t before = lseek(fd, 0, SEEK_END); /* the one writer of this file: the row's start */
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, line + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            /* A short row is worse than none: take back what was written. */
            int undone = before >= 0 && (done == 0 || ftruncate(fd, before) == 0);
            errno = e;
            return tb_errno(err, "write%s",
                            undone ? "" : " (and the partial row could not be removed)");
        }
        done += (size_t)n; /* a short write: the rest gets errno (ENOSPC) or goes through */
    }
    return 0;
}

/* ---- reading ---- */

typedef struct csv_reader {
    const char *p;
    size_t len, pos;
    long line;     /* 1-based line at pos */
    long rec_line; /* line where the last record read started */
} csv_reader;

typedef char csv_field[TB_BENCH_LOG_PATH_MAX];

static int field_char(csv_field f, size_t *k, char c, long line, tb_err *err)
{
    if (c == 0)
        return tb_errf(err, "line %ld: contains a NUL byte", line);
    if (*k + 1 >= sizeof(csv_field))
        return tb_errf(err, "line %ld: field longer than %zu bytes", line, sizeof(csv_field) - 1);
    f[(*k)++] = c;
    return 0;
}

/* Reads one record into fields; *nf = count. Returns 1 for a record, 0 at the
 * end of data, -1 on a syntax error. Blank lines are skipped. */
static int csv_next(csv_reader *r, csv_field *fields, int max, int *nf, tb_err *err)
{
    while (r->pos < r->len && (r->p[r->pos] == '\n' || r->p[r->pos] == '\r')) {
        if (r->p[r->pos] == '\n')
            r->line++;
        r->pos++;
    }
    if (r->pos >= r->len)
        return 0;
    long start_line = r->line;
    r->rec_line = start_line;
    int n = 0;
    for (;;) {
        if (n == max)
            return tb_errf(err, "line %ld: more than %d fields", start_line, max);
        size_t k = 0;
        char *f = fields[n];
        if (r->pos < r->len && r->p[r->pos] == '"') {
            r->pos++;
            for (;;) {
                if (r->pos >= r->len)
                    return tb_errf(err, "line %ld: unterminated quoted field", start_line);
                char c = r->p[r->pos++];
                if (c == '"') {
                    if (r->pos < r->len && r->p[r->pos] == '"') {
                        r->pos++;
                    } else {
                        break;
                    }
                } else if (c == '\n') {
                    r->line++;
                }
                if (field_char(f, &k, c, start_line, err) < 0)
                    return -1;
            }
            if (r->pos < r->len && r->p[r->pos] != ',' && r->p[r->pos] != '\n' &&
                !(r->p[r->pos] == '\r'))
                return tb_errf(err, "line %ld: text after a closing quote", start_line);
        } else {
            while (r->pos < r->len) {
                char c = r->p[r->pos];
                if (c == ',' || c == '\n' || c == '\r')
                    break;
                if (c == '"')
                    return tb_errf(err, "line %ld: quote inside an unquoted field", start_line);
                if (field_char(f, &k, c, start_line, err) < 0)
                    return -1;
                r->pos++;
            }
        }
        f[k] = 0;
        n++;
        if (r->pos >= r->len)
            break;
        char c = r->p[r->pos++];
        if (c == ',')
            continue;
        if (c == '\r') {
            if (r->pos < r->len && r->p[r->pos] == '\n')
                r->pos++;
            else
                return tb_errf(err, "line %ld: carriage return without line feed", start_line);
        }
        r->line++;
        break;
    }
    *nf = n;
    return 1;
}

static int check_header(csv_reader *r, const char *const *names, int count, const char *header,
                        tb_err *err)
{
    csv_field fields[CSV_MAX_FIELDS];
    int nf = 0;
    if (r->len >= 3 && !memcmp(r->p, "\xEF\xBB\xBF", 3))
        r->pos = 3;
    int rc = csv_next(r, fields, CSV_MAX_FIELDS, &nf, err);
    if (rc == 0)
        return tb_errf(err, "empty file (expected the header %s)", header);
    if (rc < 0)
        return tb_err_wrap(err, "not a results file (expected the header %s)", header);
    int same = nf == count;
    for (int i = 0; same && i < count; i++)
        same = !strcmp(fields[i], names[i]);
    if (!same)
        return tb_errf(err, "line 1: not the expected header %s", header);
    return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    return tb_num_long(s, lo, hi, out) == TB_NUM_OK ? 0 : -1;
}

static int parse_bool(const char *s, int *out)
{
    if (!strcasecmp(s, "true") || !strcmp(s, "1"))
        *out = 1;
    else if (!strcasecmp(s, "false") || !strcmp(s, "0"))
        *out = 0;
    else
        return -1;
    return 0;
}

/* A finite, non-negative decimal number of ms (no hex, inf or nan) below
 * TB_BENCH_MS_MAX, so that every value parsed can be written back (tb_bench_format_ms). */
static int parse_ms(const char *s, double *out)
{
    return tb_num_double(s, 0, TB_BENCH_MS_MAX, out) == TB_NUM_OK ? 0 : -1;
}

static int valid_mode(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
            return 0;
    return 1;
}

static int bad_field(tb_err *err, long line, const char *name, const char *what, const char *v)
{
    return tb_errf(err, "line %ld: %s: %s: '%.60s'", line, name, what, v);
}

static int row_ms(csv_field *f, int i, long line, unsigned bit, unsigned *has, double *v,
                  tb_err *err)
{
    if (!f[i][0])
        return 0;
    if (parse_ms(f[i], v) < 0)
        return bad_field(err, line, result_fields[i], "not a non-negative number of ms", f[i]);
    *has |= bit;
    return 0;
}

static int parse_row(csv_field *f, long line, tb_bench_result_row *r, tb_err *err)
{
    memset(r, 0, sizeof *r);
    const char *mode = tb_csv_text_value(f[0]); /* text cells: the formula guard undone */
    if (!valid_mode(mode) || strlen(mode) >= TB_BENCH_MODE_MAX)
        return bad_field(err, line, "mode", "not a mode name", f[0]);
    strcpy(r->mode, mode);
    if (parse_long(f[1], 0, 100000000, &r->iteration) < 0)
        return bad_field(err, line, "iteration", "not an iteration number", f[1]);
    if (parse_bool(f[2], &r->enable_tee) < 0)
        return bad_field(err, line, "enable_tee", "not 0/1 or true/false", f[2]);
    if (parse_bool(f[3], &r->verify) < 0)
        return bad_field(err, line, "verify_attestation", "not 0/1 or true/false", f[3]);
    long code;
    if (parse_long(f[4], INT_MIN, INT_MAX, &code) < 0)
        return bad_field(err, line, "exit_code", "not an integer", f[4]);
    r->exit_code = (int)code;
    if (row_ms(f, 5, line, TB_BENCH_HAS_NOTARIZATION, &r->has, &r->notarization_ms, err) < 0 ||
        row_ms(f, 6, line, TB_BENCH_HAS_TOTAL_E2E, &r->has, &r->total_e2e_ms, err) < 0 ||
        row_ms(f, 7, line, TB_BENCH_HAS_TDX_VERIFY, &r->has, &r->tdx_verify_ms, err) < 0 ||
        row_ms(f, 8, line, TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY, &r->has,
               &r->notarization_plus_verify_ms, err) < 0 ||
        row_ms(f, 9, line, TB_BENCH_HAS_WALL, &r->has, &r->wall_ms, err) < 0)
        return -1;
    strcpy(r->stdout_log, tb_csv_text_value(f[10]));
    strcpy(r->stderr_log, tb_csv_text_value(f[11]));
    return 0;
}

/* Called with each data record's fields (nfields of them) and its first line number.
 * Returns 0, -1 for a bad record (err says why), -2 when the parse must stop
 * (out of memory). */
typedef int (*csv_row_fn)(csv_field *f, long line, void *out, tb_err *err);
/* Lenient parse: called with each bad record (its line and why); -1 stops the parse. */
typedef int (*csv_bad_fn)(long line, const char *why, void *out, tb_err *err);

/* Moves r past the end of the line that contains byte pos (resync after a bad record). */
static void skip_line_from(csv_reader *r, size_t pos, long line)
{
    r->pos = pos;
    r->line = line;
    while (r->pos < r->len && r->p[r->pos] != '\n')
        r->pos++;
    if (r->pos < r->len) {
        r->pos++;
        r->line++;
    }
}

/* Reads a whole CSV file with the exact header: every record must have nfields
 * fields; each is handed to add. Without bad, stops at the first error (returns -1);
 * with bad, a record that does not parse is handed to bad and reading goes on at
 * the next line. */
static int parse_csv(const char *data, size_t len, const char *const *names, int nfields,
                     const char *header, csv_row_fn add, csv_bad_fn bad, void *out, tb_err *err)
{
    csv_reader r = {.p = data, .len = len, .pos = 0, .line = 1};
    if (check_header(&r, names, nfields, header, err) < 0)
        return -1;
    csv_field *f = malloc(sizeof(csv_field) * CSV_MAX_FIELDS);
    if (!f)
        return tb_errf(err, "out of memory");
    int rc = 0;
    for (;;) {
        int nf = 0;
        /* where this record starts (csv_next skips blank lines first) */
        while (r.pos < r.len && (r.p[r.pos] == '\n' || r.p[r.pos] == '\r')) {
            if (r.p[r.pos] == '\n')
                r.line++;
            r.pos++;
        }
        size_t start = r.pos;
        long start_line = r.line;
        tb_err why;
        int got = csv_next(&r, f, CSV_MAX_FIELDS, &nf, &why);
        if (got == 0)
            break;
        if (got > 0 && nf != nfields) {
            tb_errf(&why, "line %ld: %d fields, expected %d%s", r.rec_line, nf, nfields,
                    nf < nfields && r.pos >= r.len && r.p[r.len - 1] != '\n'
                        ? " (cut short: the file ends inside the row)"
                        : "");
            got = -1;
        }
        int fatal = 0;
        if (got > 0) {
            int a = add(f, r.rec_line, out, &why);
            fatal = a == -2;
            got = a < 0 ? -1 : 1;
        }
        if (got > 0)
            continue;
        if (!bad || fatal) {
            *err = why;
            rc = -1;
            break;
        }
        if (bad(start_line, why.msg, out, err) < 0) {
            rc = -1;
            break;
        }
        skip_line_from(&r, start, start_line);
    }
    free(f);
    return rc;
}

static int add_result(csv_field *f, long line, void *out, tb_err *err)
{
    tb_bench_result_row row;
    if (parse_row(f, line, &row, err) < 0)
        return -1;
    return tb_bench_results_push(out, &row, err) < 0 ? -2 : 0;
}

static int add_damaged(tb_bench_results *rs, long line, const char *why, tb_err *err)
{
    if (grow((void **)&rs->damaged, &rs->cap_damaged, rs->n_damaged, sizeof *rs->damaged) < 0)
        return tb_errf(err, "out of memory");
    tb_bench_damaged_row *d = &rs->damaged[rs->n_damaged++];
    d->line = line;
    /* "line N: " is said by the line number already */
    const char *colon = !strncmp(why, "line ", 5) ? strstr(why, ": ") : NULL;
    snprintf(d->why, sizeof d->why, "%s", colon ? colon + 2 : why);
    return 0;
}

static int bad_result(long line, const char *why, void *out, tb_err *err)
{
    return add_damaged(out, line, why, err);
}

/* Row order for finding duplicates: (mode, iteration), then file order. */
static int by_run(const void *a, const void *b)
{
    const tb_bench_result_row *x = *(tb_bench_result_row *const *)a,
                              *y = *(tb_bench_result_row *const *)b;
    int c = strcmp(x->mode, y->mode);
    if (c)
        return c;
    if (x->iteration != y->iteration)
        return x->iteration < y->iteration ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int by_line(const void *a, const void *b)
{
    const tb_bench_damaged_row *x = a, *y = b;
    return (x->line > y->line) - (x->line < y->line);
}

/* Rows from index first on: a second row for the same (mode, iteration) is an error
 * (strict) or goes to damaged, the first one kept (lenient). lines[i] is row i's line. */
static int check_duplicates(tb_bench_results *rs, size_t first, const long *lines, int lenient,
                            tb_err *err)
{
    size_t n = rs->n - first;
    if (n < 2)
        return 0;
    tb_bench_result_row **idx = malloc(n * sizeof *idx);
    unsigned char *drop = calloc(n, 1);
    if (!idx || !drop) {
        free(idx);
        free(drop);
        return tb_errf(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = &rs->rows[first + i];
    qsort(idx, n, sizeof *idx, by_run);
    int rc = 0;
    size_t dups = 0;
    for (size_t i = 1; i < n && rc == 0; i++) {
        const tb_bench_result_row *a = idx[i - 1], *b = idx[i];
        if (strcmp(a->mode, b->mode) || a->iteration != b->iteration)
            continue;
        size_t k = (size_t)(b - rs->rows) - first;
        size_t j = i - 1; /* the first row of this run */
        while (j > 0 && !strcmp(idx[j - 1]->mode, b->mode) && idx[j - 1]->iteration == b->iteration)
            j--;
        long first_line = lines[(size_t)(idx[j] - rs->rows) - first];
        char why[200];
        snprintf(why, sizeof why, "a second row for %s iteration %ld (the first is line %ld)",
                 b->mode, b->iteration, first_line);
        if (!lenient)
            rc = tb_errf(err, "line %ld: %s", lines[k], why);
        else if ((rc = add_damaged(rs, lines[k], why, err)) == 0)
            drop[k] = 1, dups++;
    }
    if (rc == 0 && dups) {
        size_t w = first;
        for (size_t i = 0; i < n; i++)
            if (!drop[i])
                rs->rows[w++] = rs->rows[first + i];
        rs->n = w;
        qsort(rs->damaged, rs->n_damaged, sizeof *rs->damaged, by_line);
    }
    free(idx);
    free(drop);
    return rc;
}

/* Collects the line number of each row this parse adds (rows[first + i] is on
 * lines[i]), for duplicate messages. */
typedef struct line_rows {
    tb_bench_results *rs;
    size_t first;
    long *lines;
    size_t cap;
} line_rows;

static int add_result_line(csv_field *f, long line, void *out, tb_err *err)
{
    line_rows *lr = out;
    int rc = add_result(f, line, lr->rs, err);
    if (rc < 0)
        return rc;
    size_t i = lr->rs->n - 1 - lr->first;
    if (grow((void **)&lr->lines, &lr->cap, i, sizeof *lr->lines) < 0) {
        tb_errf(err, "out of memory");
        return -2;
    }
    lr->lines[i] = line;
    return 0;
}

static int bad_result_line(long line, const char *why, void *out, tb_err *err)
{
    return bad_result(line, why, ((line_rows *)out)->rs, err);
}

static int results_parse(const char *data, size_t len, int lenient, tb_bench_results *out,
                         tb_err *err)
{
    line_rows lr = {.rs = out, .first = out->n};
    int rc = parse_csv(data, len, result_fields, 12, TB_BENCH_RESULTS_HEADER, add_result_line,
                       lenient ? bad_result_line : NULL, &lr, err);
    if (rc == 0)
        rc = check_duplicates(out, lr.first, lr.lines, lenient, err);
    free(lr.lines);
    return rc;
}

int tb_bench_results_parse(const char *data, size_t len, tb_bench_results *out, tb_err *err)
{
    return results_parse(data, len, 0, out, err);
}

int tb_bench_results_parse_lenient(const char *data, size_t len, tb_bench_results *out, tb_err *err)
{
    return results_parse(data, len, 1, out, err);
}

int tb_bench_results_load(const char *path, int lenient, tb_bench_results *out, tb_err *err)
{
    tb_buf b = {0};
    if (tb_file_read(path, TB_BENCH_RESULTS_MAX_BYTES, &b, err) < 0) {
        tb_buf_clear(&b);
        return -1;
    }
    int rc = results_parse((const char *)b.p, b.len, lenient, out, err);
    tb_buf_clear(&b);
    if (rc < 0)
        return tb_err_wrap(err, "%s", path);
    return 0;
}

static int parse_retry(csv_field *f, long line, tb_bench_retry_row *r, tb_err *err)
{
    memset(r, 0, sizeof *r);
    const char *mode = tb_csv_text_value(f[0]);
    if (!valid_mode(mode) || strlen(mode) >= TB_BENCH_MODE_MAX)
        return bad_field(err, line, "mode", "not a mode name", f[0]);
    strcpy(r->mode, mode);
    long v;
    if (parse_long(f[1], 0, 100000000, &r->iteration) < 0)
        return bad_field(err, line, "iteration", "not an iteration number", f[1]);
    if (parse_long(f[2], 1, 1000000, &v) < 0)
        return bad_field(err, line, "attempt", "not an attempt number", f[2]);
    r->attempt = (int)v;
    if (parse_long(f[3], INT_MIN, INT_MAX, &v) < 0)
        return bad_field(err, line, "exit_code", "not an integer", f[3]);
    r->exit_code = (int)v;
    if (f[4][0] && parse_ms(f[4], &r->wall_ms) < 0)
        return bad_field(err, line, "wall_ms", "not a non-negative number of ms", f[4]);
    strcpy(r->stdout_log, tb_csv_text_value(f[5]));
    strcpy(r->stderr_log, tb_csv_text_value(f[6]));
    return 0;
}

static int add_retry(csv_field *f, long line, void *out, tb_err *err)
{
    tb_bench_retry_row row;
    if (parse_retry(f, line, &row, err) < 0)
        return -1;
    return tb_bench_retries_push(out, &row, err) < 0 ? -2 : 0;
}

int tb_bench_retries_parse(const char *data, size_t len, tb_bench_retries *out, tb_err *err)
{
    return parse_csv(data, len, retry_fields, 7, TB_BENCH_RETRIES_HEADER, add_retry, NULL, out,
                     err);
}

/* ---- client output ---- */

static int key_is(const char *tok, size_t klen, const char *key)
{
    return strlen(key) == klen && !memcmp(tok, key, klen);
}

void tb_bench_client_output_parse(const char *text, size_t len, tb_bench_client_output *out)
{
    memset(out, 0, sizeof *out);
    out->enable_tee = -1;
    size_t i = 0;
    while (i < len) {
        while (i < len && (isspace((unsigned char)text[i]) || text[i] == 0))
            i++;
        size_t start = i;
        while (i < len && !isspace((unsigned char)text[i]) && text[i] != 0)
            i++;
        const char *tok = text + start;
        size_t tlen = i - start;
        const char *eq = memchr(tok, '=', tlen);
        if (!eq)
            continue;
        size_t klen = (size_t)(eq - tok);
        char val[64];
        size_t vlen = tlen - klen - 1;
        int fits = vlen < sizeof val;
        if (fits) {
            memcpy(val, eq + 1, vlen);
            val[vlen] = 0;
        }
        double v = 0;
        int num_ok = fits && parse_ms(val, &v) == 0;
        unsigned bit = 0;
        double *slot = NULL;
        if (key_is(tok, klen, "NOTARIZATION_MS")) {
            bit = TB_BENCH_HAS_NOTARIZATION;
            slot = &out->notarization_ms;
        } else if (key_is(tok, klen, "TOTAL_E2E_MS")) {
            bit = TB_BENCH_HAS_TOTAL_E2E;
            slot = &out->total_e2e_ms;
        } else if (key_is(tok, klen, "TDX_VERIFY_MS")) {
            bit = TB_BENCH_HAS_TDX_VERIFY;
            slot = &out->tdx_verify_ms;
        } else if (key_is(tok, klen, "ENABLE_TEE_ATTESTATION")) {
            int b;
            out->enable_tee = fits && parse_bool(val, &b) == 0 ? b : -1;
            continue;
        } else {
            continue;
        }
        if (num_ok) {
            out->has |= bit;
            *slot = v;
        } else {
            out->has &= ~bit;
            *slot = 0;
        }
    }
}
