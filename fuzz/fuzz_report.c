/* libFuzzer target: the report page of any result document that record accepts.
 * The bytes are read as tb_record_read_file does (json_loadb, the strict reader); a
 * record that parses is compared with itself (two environments, the second a copy)
 * and alone, and both pages (HTML and markdown with its SVG files) are built. Nothing
 * from the input may appear as markup: no "<script" or "<iframe" in any output, and
 * no NUL byte. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "record/record.h"
#include "report/report.h"

static void check_text(const tb_buf *b)
{
    if (!b->p)
        return;
    if (memchr(b->p, 0, b->len) || strstr((const char *)b->p, "<script") ||
        strstr((const char *)b->p, "<iframe"))
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
        check_text(&p.doc);
        for (size_t i = 0; i < p.n_files; i++)
            check_text(&p.files[i].data);
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
