/* csv: see csv.h. Invariant: tb_csv_text_value(unquoted tb_csv_text(s)) == s for
 * every s, and tb_csv_text never writes a cell a spreadsheet evaluates. */
#include "base/csv.h"
#include "base/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int tb_csv_formula_like(const char *s)
{
    if (!s)
        return 0;
    while (*s == '\'')
        s++;
    return *s && strchr("=+-@\t\r", *s) != NULL;
}

int tb_csv_text(tb_buf *out, const char *s)
{
    if (!s)
        s = "";
    int guard = tb_csv_formula_like(s);
    if (!guard && !strpbrk(s, ",\"\r\n"))
        return tb_buf_puts(out, s);
    if (tb_buf_puts(out, guard ? "\"'" : "\"") < 0)
        return -1;
    for (const char *p = s; *p;) {
        size_t run = strcspn(p, "\"");
        if (run && tb_buf_append(out, p, run) < 0)
            return -1;
        p += run;
        if (*p == '"') {
            if (tb_buf_puts(out, "\"\"") < 0)
                return -1;
            p++;
        }
    }
    return tb_buf_puts(out, "\"");
}

const char *tb_csv_text_value(const char *cell)
{
    return cell[0] == '\'' && tb_csv_formula_like(cell) ? cell + 1 : cell;
}

void tb_csv_row_begin(tb_csv_row *r, tb_buf *out)
{
    r->out = out;
    r->cells = 0;
    r->rc = 0;
}

/* The separator before every cell but the first; 0 when the row may go on. */
static int next_cell(tb_csv_row *r)
{
    if (r->rc == 0 && r->cells++ > 0 && tb_buf_puts(r->out, ",") < 0)
        r->rc = -1;
    return r->rc;
}

void tb_csv_put_text(tb_csv_row *r, const char *s)
{
    if (next_cell(r) == 0 && tb_csv_text(r->out, s) < 0)
        r->rc = -1;
}

void tb_csv_put_raw(tb_csv_row *r, const char *cell)
{
    if (next_cell(r) == 0 && cell && tb_buf_puts(r->out, cell) < 0)
        r->rc = -1;
}

void tb_csv_put_printf(tb_csv_row *r, const char *fmt, ...)
{
    char cell[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cell, sizeof cell, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof cell) {
        r->rc = -1;
        return;
    }
    tb_csv_put_raw(r, cell);
}

void tb_csv_put_num(tb_csv_row *r, double v)
{
    if (isnan(v))
        tb_csv_put_raw(r, "");
    else
        tb_csv_put_printf(r, "%.7g", v);
}

int tb_csv_row_end(tb_csv_row *r)
{
    if (r->rc == 0 && tb_buf_puts(r->out, "\n") < 0)
        r->rc = -1;
    return r->rc;
}
