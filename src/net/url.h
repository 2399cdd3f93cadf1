/* url: parses absolute http:// and https:// URLs into their parts.
 *
 * Accepted: scheme "http" or "https" (any case), optional userinfo is rejected,
 * host = reg-name, IPv4 or bracketed IPv6, optional ":port" (1..65535), then an
 * optional path-and-query starting with "/" or "?" (no fragment sent; "#..." is
 * dropped). No whitespace or control bytes anywhere. The result is fixed-size
 * (no allocation); over-long parts are an error. */
#ifndef TB_NET_URL_H
#define TB_NET_URL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

#define TB_URL_HOST_MAX 256
#define TB_URL_PATH_MAX 8192

typedef struct tb_url {
    bool tls;                   /* https */
    char host[TB_URL_HOST_MAX]; /* without brackets for IPv6 */
    char port[6];               /* decimal, defaulted from the scheme */
    uint16_t port_num;
    bool port_explicit;         /* the URL named a port */
    bool ipv6;                  /* host was a bracketed IPv6 literal */
    char path[TB_URL_PATH_MAX]; /* path and query, at least "/" */
} tb_url;

/* Returns 0, or -1 with err saying what is wrong with s. */
int tb_url_parse(const char *s, tb_url *u, tb_err *err);

/* Writes the Host header value ("host", "host:port" when the port is not the
 * scheme's default, brackets around IPv6) into out. Returns its length, or -1
 * if it does not fit. */
int tb_url_host_header(const tb_url *u, char *out, size_t size);

#endif
