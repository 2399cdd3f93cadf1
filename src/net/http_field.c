/* http_field: HTTP field syntax helpers (see http_field.h). ASCII only: case is
 * folded for A-Z alone, whatever the locale. */
#include "net/http_field.h"

#include <string.h>

/* TB_HTTP_TCHAR (1) | TB_HTTP_TEXT (2) of every byte: 3 for the tchars, 2 for the
 * other text bytes (HTAB, SP, the separators, obs-text), 0 for CTLs and DEL. */
const uint8_t tb_http_cls[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 3, 2, 3, 3, 3, 3, 3, 2, 2, 3, 3, 2, 3, 3, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2,
    2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 3, 2, 3, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

static uint8_t lower(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

static bool same_nocase(const uint8_t *p, const char *want, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (lower(p[k]) != lower((uint8_t)want[k]))
            return false;
    return true;
}

int tb_http_name_is(const void *p, size_t n, const char *want)
{
    return strlen(want) == n && same_nocase(p, want, n);
}

int tb_http_digits(const void *p, size_t n, size_t max_digits, uint64_t *out)
{
    const uint8_t *v = p;
    if (n == 0 || n > max_digits || n > 19)
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    *out = x;
    return 0;
}

bool tb_http_has_token(const void *p, size_t n, const char *tok, bool last)
{
    const uint8_t *v = p;
    size_t tl = strlen(tok), i = 0;
    bool found = false;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e == s)
            continue;
        bool eq = e - s == tl && same_nocase(v + s, tok, tl);
        found = last ? eq : (found || eq);
    }
    return found;
}
