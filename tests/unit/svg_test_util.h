/* Helpers of the report tests (test_svg.c, test_report_html.c): counting substrings
 * and a small well-formedness check of SVG text. Header-only: static functions. */
#ifndef TB_TEST_SVG_UTIL_H
#define TB_TEST_SVG_UTIL_H

#include <stddef.h>
#include <string.h>

static inline size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Tags balance (names match, self-closing allowed), no text outside the root element,
   no raw '<' inside text, attribute values quoted without '<'. */
static inline int well_formed(const char *s)
{
    char stack[64][32];
    size_t depth = 0;
    const char *p = s;
    int seen_root = 0;
    while (*p) {
        if (*p != '<') {
            if (!depth && *p != '\n' && *p != ' ')
                return 0;
            p++;
            continue;
        }
        const char *end = strchr(p, '>');
        if (!end)
            return 0;
        for (const char *q = p + 1; q < end; q++)
            if (*q == '<')
                return 0;
        if (p[1] == '/') {
            if (!depth)
                return 0;
            size_t n = strlen(stack[depth - 1]);
            if (strncmp(p + 2, stack[depth - 1], n) || p[2 + n] != '>')
                return 0;
            depth--;
        } else if (end[-1] != '/') {
            if (depth == 64)
                return 0;
            if (!depth && seen_root)
                return 0;
            seen_root = 1;
            size_t n = strcspn(p + 1, " >/");
            if (n >= 32)
                return 0;
            memcpy(stack[depth], p + 1, n);
            stack[depth][n] = 0;
            depth++;
        }
        p = end + 1;
    }
    return depth == 0 && seen_root;
}

#endif
