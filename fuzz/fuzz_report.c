/* libFuzzer target: the report page of any result document that record accepts.
 * The bytes are read as tb_record_read_file does (json_loadb, the strict reader); a
 * record that parses is compared with itself (two environments, the second a copy)
 * and alone, and both pages (HTML and markdown with its SVG files) are built. Nothing
 * from the input may appear as markup: no "<script" or "<iframe" in any output (in
 * markdown, outside its fenced code blocks, where commands are shown verbatim and no
 * renderer reads markup), and no NUL byte. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "record/internal.h"
#include "record/record.h"
#include "report/report.h"

static size_t backticks(const char *s)
{
    size_t n = 0;
    while (s[n] == '`')
        n++;
    return n;
}

/* Markup outside markdown code fences (an opening line of n >= 3 backticks, closed by
   a line of at least n backticks and nothing else). */
static int markup_outside_fences(const char *s)
{
    size_t fence = 0;
    for (const char *line = s; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line), n = backticks(line);
        if (!fence && n >= 3) {
            fence = n;
        } else if (fence && n >= fence && n == len) {
            fence = 0;
        } else if (!fence) {
            char *copy = strndup(line, len);
            if (!copy)
                __builtin_trap();
            int bad = strstr(copy, "<script") || strstr(copy, "<iframe");
            free(copy);
            if (bad)
                return 1;
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

static void check_text(const tb_buf *b, int markdown)
{
    if (!b->p)
        return;
    const char *s = (const char *)b->p;
    if (memchr(b->p, 0, b->len))
        __builtin_trap();
    if (markdown ? markup_outside_fences(s) : (strstr(s, "<script") || strstr(s, "<iframe")))
        __builtin_trap();
}

static void pages(const tb_record *const *recs, size_t n)
{
    tb_compare c;
    tb_err err;
    if (tb_compare_build(recs, n, n - 1, TB_COMPARE_ALPHA, &c, &err) < 0)
        return; /* e.g. the same metric with two units: compare refuses it */
    for (int fmt = 0; fmt < 2; fmt++) {
        tb_page p;
        tb_page_opts o = {"fuzz", "2026-01-01T00:00:00Z", "teebench report fuzz", "f"};
        if (tb_page_build(&c, fmt ? TB_PAGE_MARKDOWN : TB_PAGE_HTML, &o, &p, &err) < 0)
            __builtin_trap(); /* only out of memory fails */
        check_text(&p.doc, fmt);
        for (size_t i = 0; i < p.n_files; i++)
            check_text(&p.files[i].data, 0);
        tb_page_free(&p);
    }
    tb_compare_clear(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return 0;
    tb_record *r[2] = {NULL, NULL};
    tb_err err;
    if (tb_record_from_json(doc, &r[0], &err) == 0 && tb_record_from_json(doc, &r[1], &err) == 0) {
        pages((const tb_record *const *)r, 1);
        pages((const tb_record *const *)r, 2);
    }
    tb_record_free(r[0]);
    tb_record_free(r[1]);
    json_decref(doc);
    return 0;
}
