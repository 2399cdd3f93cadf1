/* csv: writing one CSV cell -- RFC 4180 quoting, and text that a spreadsheet
 * must not run as a formula -- for every CSV file teebench writes (results
 * export, compare --format csv, bench's results.csv and retries.csv).
 *
 * A text cell (a label, a metric name, a unit, a mode, a path: anything that may
 * come from someone else) that a spreadsheet would take for a formula -- it
 * starts with '=', '+', '-', '@', TAB or CR, after any leading single quotes
 * (OWASP's CSV injection list) -- gets one more leading single quote and is
 * quoted: "=HYPERLINK(...)" is written "'=HYPERLINK(...)". Other cells are
 * quoted when they hold ',', '"', CR or LF, a '"' written twice. The leading
 * quote is reversible (tb_csv_text_value): a cell of single quotes followed by
 * one of those characters always carries one quote more than its value, so a
 * reader of teebench's own files gets back exactly what was written.
 * Numbers are not text cells: callers write them as they are (-3.5 stays a
 * number a spreadsheet can add up).
 *
 * tb_csv_row is the one row writer: each tb_csv_put_* writes the separator
 * before every cell but the first, tb_csv_row_end the '\n'; the first failure
 * (OOM) sticks, so a caller writes a whole row and checks once.
 *
 * Pure functions over caller buffers; nothing here allocates but tb_buf. */
#ifndef TB_BASE_CSV_H
#define TB_BASE_CSV_H

#include <stddef.h>

#include "base/buf.h"

/* Appends the text cell s (NULL: empty) to out, quoted as above, without a
   separator. 0 or -1 (OOM). */
int tb_csv_text(tb_buf *out, const char *s);

/* The value of a text cell as read back (its RFC 4180 quoting already undone):
   cell without the quote tb_csv_text added, a pointer into cell. */
const char *tb_csv_text_value(const char *cell);

/* One row being written to out (not owned). A plain value: start it with
   tb_csv_row_begin. */
typedef struct tb_csv_row {
    tb_buf *out;
    size_t cells; /* written so far */
    int rc;       /* 0, or -1 after the first failure */
} tb_csv_row;

void tb_csv_row_begin(tb_csv_row *r, tb_buf *out);
/* A text cell: tb_csv_text's quoting and formula guard. */
void tb_csv_put_text(tb_csv_row *r, const char *s);
/* A cell written as it is (NULL: empty): a number, a 0/1, a name teebench chose. */
void tb_csv_put_raw(tb_csv_row *r, const char *cell);
/* A raw cell from a printf format. */
void tb_csv_put_printf(tb_csv_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A number as "%.7g"; NaN (no value) is an empty cell. */
void tb_csv_put_num(tb_csv_row *r, double v);
/* Ends the row with '\n'. 0, or -1 when any cell of it failed (OOM). */
int tb_csv_row_end(tb_csv_row *r);

#endif
