/* csv: see csv.h. Invariant: tb_csv_text_value(unquoted tb_csv_text(s)) == s for
 * every s, and tb_csv_text never writes a cell a spreadsheet evaluates. */
#include "base/csv.h"
#include "base/internal.h"

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
