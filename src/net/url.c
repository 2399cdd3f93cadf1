/* url: absolute http(s) URL parsing. See url.h. */
#include "net/url.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool host_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '%';
}

static bool path_char(unsigned char c)
{
    return c > 0x20 && c < 0x7f && c != '#';
}

int tb_url_parse(const char *s, tb_url *u, tb_err *err)
{
    memset(u, 0, sizeof *u);
    const char *p = s;
    if (!strncasecmp(p, "http://", 7)) {
        p += 7;
    } else if (!strncasecmp(p, "https://", 8)) {
        p += 8;
        u->tls = true;
    } else {
        return tb_errf(err, "invalid URL: %s: scheme must be http:// or https://", s);
    }
    const char *h = p, *he;
    if (*p == '[') {
        he = strchr(p, ']');
        if (!he)
            return tb_errf(err, "invalid URL: %s: unterminated [IPv6] host", s);
        h = p + 1;
        for (const char *q = h; q < he; q++)
            if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') ||
                  (*q >= 'A' && *q <= 'F') || *q == ':' || *q == '.'))
                return tb_errf(err, "invalid URL: %s: bad IPv6 address", s);
        p = he + 1;
        u->ipv6 = true;
    } else {
        while (host_char((unsigned char)*p))
            p++;
        he = p;
    }
    if (*p == '@')
        return tb_errf(err, "invalid URL: %s: user info is not supported", s);
    size_t hl = (size_t)(he - h);
    if (hl == 0)
        return tb_errf(err, "invalid URL: %s: no host", s);
    if (hl >= sizeof u->host)
        return tb_errf(err, "invalid URL: %s: host name too long", s);
    memcpy(u->host, h, hl);
    unsigned long port = u->tls ? 443 : 80;
    if (*p == ':') {
        p++;
        unsigned long v = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 6) {
            v = v * 10 + (unsigned long)(*p++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 5 || v == 0 || v > 65535)
            return tb_errf(err, "invalid URL: %s: bad port", s);
        port = v;
        u->port_explicit = true;
    }
    u->port_num = (uint16_t)port;
    snprintf(u->port, sizeof u->port, "%lu", port);
    if (*p != '\0' && *p != '/' && *p != '?' && *p != '#')
        return tb_errf(err, "invalid URL: %s: unexpected '%c' after the host", s,
                       (*p > 0x20 && *p < 0x7f) ? *p : '?');
    size_t n = 0;
    if (*p == '?')
        u->path[n++] = '/';
    for (; *p && *p != '#'; p++) {
        if (!path_char((unsigned char)*p))
            return tb_errf(err, "invalid URL: %s: bad character in path", s);
        if (n + 1 >= sizeof u->path)
            return tb_errf(err, "invalid URL: path longer than %d bytes", TB_URL_PATH_MAX - 1);
        u->path[n++] = *p;
    }
    for (; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
            return tb_errf(err, "invalid URL: %s: bad character in fragment", s);
    if (n == 0)
        u->path[n++] = '/';
    u->path[n] = '\0';
    return 0;
}

int tb_url_host_header(const tb_url *u, char *out, size_t size)
{
    bool deflt = u->port_num == (u->tls ? 443 : 80);
    int n = snprintf(out, size, "%s%s%s%s%s", u->ipv6 ? "[" : "", u->host, u->ipv6 ? "]" : "",
                     deflt ? "" : ":", deflt ? "" : u->port);
    return (n < 0 || (size_t)n >= size) ? -1 : n;
}
