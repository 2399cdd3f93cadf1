/* nginx: drives a real nginx (Debian's /usr/sbin/nginx) as a benchmark target,
 * with a configuration of our own in a run directory, and counts its access log.
 *
 * The run directory holds everything nginx touches: nginx.conf, nginx.pid,
 * access.log, error.log, tmp/ (body and proxy temp paths) and, unless a root is
 * given, html/ (index.html: nginx's own 615-byte welcome page when installed,
 * else the fixture server's page of the same size). No system file is read or
 * written besides the nginx binary and mime-less built-ins. nginx's master runs as
 * the current user; started as root, its workers (which parse HTTP) run as an
 * unprivileged user (opts.user; default www-data, else nobody), never as root
 * unless asked. nginx daemonizes ("daemon on"): tb_nginx_start returns once it
 * answers on its port, and
 * tb_nginx_stop signals the pid in nginx.pid and waits for it to be gone.
 * The access log is on (one line per request, written unbuffered; count it
 * with tb_log_count_lines from load/logcount.h).
 *
 * The run directory is trusted only when nothing but the caller can change it:
 * it is created 0700 (0710 with the workers' group as root: they may traverse it,
 * not list or write it), and an existing one is refused when it is a symlink, is
 * owned by another user or is writable by group or others (another user could
 * otherwise redirect start.log onto a root file or html onto a private
 * directory). Files in it are opened without following symlinks. Started as
 * root, every directory above the document root must let the workers through
 * (checked from the mode bits; the error names the one that does not).
 *
 * Nothing here prints; errors fill tb_err. */
#ifndef TB_SERVE_NGINX_H
#define TB_SERVE_NGINX_H

#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_NGINX_BIN "/usr/sbin/nginx"

typedef struct tb_nginx_opts {
    const char *dir;  /* run directory (created if missing); required */
    const char *addr; /* listen address (default 127.0.0.1) */
    int port;         /* 1..65535 */
    const char *root; /* document root; NULL: <dir>/html with index.html */
    int workers;      /* worker_processes (>= 1) */
    int tls;          /* listen with ssl (cert and key required) */
    const char *cert; /* PEM chain, e.g. the fixture PKI's server.pem */
    const char *key;
    const char *nginx; /* binary (default TB_NGINX_BIN) */
    const char *user;  /* workers' user when started as root (NULL: www-data if it
                          exists, else nobody; "root" only when asked); ignored otherwise */
} tb_nginx_opts;

/* Writes the run directory and config, starts nginx, and waits up to timeout_ms
 * until it accepts connections; its master's pid goes to *pid (pid may be NULL).
 * Fails if nginx already runs from this dir, if it cannot start (its own error
 * message is included: port in use, bad cert), or if it does not answer in time
 * (then it is stopped again). */
int tb_nginx_start(const tb_nginx_opts *o, int timeout_ms, pid_t *pid, tb_err *err);

/* Stops the nginx whose pid is in <dir>/nginx.pid (SIGTERM, then SIGKILL after
 * timeout_ms) and waits until it is gone. Fails if none runs from dir. */
int tb_nginx_stop(const char *dir, int timeout_ms, tb_err *err);

/* The pid of the nginx running from dir, or -1 with err if none. */
pid_t tb_nginx_pid(const char *dir, tb_err *err);

/* Paths inside a run directory ("<dir>/access.log", ...); -1 if too long. */
int tb_nginx_path(const char *dir, const char *name, char *out, size_t size, tb_err *err);

/* The access log's line count (one line per request) is tb_log_count_lines in
 * load/logcount.h; <dir>/access.log is its path (tb_nginx_path(dir, "access.log")). */

#endif
