/* fixture: embedded fixture documents and the compact JSON re-encoding.
 *
 * The documents of testdata/fixture are embedded at compile time (base/embed), so
 * the binary carries them and never reads the source tree at run time; the unit
 * test compares the embedded bytes with the files. */
#include "serve/fixture.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/embed.h"

#define FIXTURE_DIR "testdata/fixture/"

TB_EMBED(tb_fixture_1kb_json, FIXTURE_DIR "1kb.json");
TB_EMBED(tb_fixture_4kb_json, FIXTURE_DIR "4kb.json");
TB_EMBED(tb_fixture_8kb_json, FIXTURE_DIR "8kb.json");
TB_EMBED(tb_fixture_4kb_html, FIXTURE_DIR "4kb.html");

static const char welcome_page[] =
    "<!DOCTYPE html>\n"
    "<html>\n"
    "<head>\n"
    "<title>teebench fixture server</title>\n"
    "<style>\n"
    "html { color-scheme: light dark; }\n"
    "body { width: 35em; margin: 0 auto;\n"
    "font-family: Tahoma, Verdana, Arial, sans-serif; }\n"
    "</style>\n"
    "</head>\n"
    "<body>\n"
    "<h1>teebench fixture server</h1>\n"
    "<p>This page is served by <code>teebench serve</code>. It has the\n"
    "size of the default nginx welcome page, so a benchmark of\n"
    "<code>/</code> moves the same bytes against either server.</p>\n"
    "\n"
    "<p>Other routes: <code>/formats/json?size=1|4|8</code>,\n"
    "<code>/formats/html</code>, <code>/bytes?size=N</code>.</p>\n"
    "<p><em>What does TDX cost us?</em></p>\n"
    "</body>\n"
    "</html>\n";

_Static_assert(sizeof welcome_page - 1 == TB_FIXTURE_WELCOME_LEN, "welcome page is 615 bytes");

int tb_fixture_doc(const char *name, tb_blob *out, tb_err *err)
{
    static const struct {
        const char *name;
        const uint8_t *start, *end;
    } docs[] = {
        {"1kb.json", tb_fixture_1kb_json_start, tb_fixture_1kb_json_end},
        {"4kb.json", tb_fixture_4kb_json_start, tb_fixture_4kb_json_end},
        {"8kb.json", tb_fixture_8kb_json_start, tb_fixture_8kb_json_end},
        {"4kb.html", tb_fixture_4kb_html_start, tb_fixture_4kb_html_end},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        if (!strcmp(name, docs[i].name)) {
            out->p = docs[i].start;
            out->len = (size_t)(docs[i].end - docs[i].start);
            return 0;
        }
    }
    return tb_errf(err, "fixture document %s: no such document", name);
}

tb_blob tb_fixture_welcome(void)
{
    return (tb_blob){(const uint8_t *)welcome_page, TB_FIXTURE_WELCOME_LEN};
}

/* The fewest significant digits (1..17) with which "%.*g" reads back as v. */
static int shortest_digits(double v)
{
    char tmp[64];
    for (int p = 1; p < 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, v);
        if (strtod(tmp, NULL) == v)
            return p;
    }
    return 17;
}

/* The precision that writes every real in j exactly: the largest shortest one.
 * Up to 15 digits, a real needing fewer prints the same under the larger
 * precision (%g drops trailing zeros); above that it may print longer, but it
 * still reads back as the same double. */
static int max_precision(json_t *j, int depth)
{
    int best = 1;
    if (depth > 64)
        return 17;
    if (json_is_real(j)) {
        best = shortest_digits(json_real_value(j));
    } else if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v)
        {
            int p = max_precision(v, depth + 1);
            best = p > best ? p : best;
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
        {
            int p = max_precision(v, depth + 1);
            best = p > best ? p : best;
        }
    }
    return best;
}

int tb_fixture_compact_json(const uint8_t *doc, size_t len, tb_buf *out, tb_err *err)
{
    json_error_t jerr;
    json_t *j = json_loadb((const char *)doc, len, JSON_DECODE_ANY, &jerr);
    if (!j)
        return tb_errf(err, "JSON document: line %d column %d: %s", jerr.line, jerr.column,
                       jerr.text);
    int prec = max_precision(j, 0);
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
                                JSON_REAL_PRECISION(prec));
    json_decref(j);
    if (!s)
        return tb_errf(err, "JSON document: re-encoding failed (out of memory)");
    int rc = tb_buf_puts(out, s);
    free(s);
    if (rc < 0)
        return tb_errf(err, "JSON document: out of memory");
    return 0;
}
