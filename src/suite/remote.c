/* suite/remote: see remote.h. The one loop here, pump(), moves bytes between a
 * child ssh and this process with poll(2): stdin fed from memory or a file,
 * stdout collected (the suite's result: written to a temporary file), stderr split
 * into lines as they arrive. It never blocks on one stream while another is full,
 * and it checks the stop flag at least every 100 ms. Whatever the remote sends, what
 * is held stays bounded: a stderr line's first ERR_LINE_MAX bytes, ERR_KEEP of
 * stderr's tail, OUT_KEEP of a command's stdout, and nothing of the result in memory
 * until tb_record_read_fd reads it within its limits. */
#include "suite/internal.h"
#include "suite/remote.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/argv.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/proc.h"

#define ERR_KEEP (64u << 10)     /* stderr kept for messages */
#define ERR_LINE_MAX (64u << 10) /* of a longer stderr line, the rest is dropped */
#define FLOOD_MAX (1u << 20)     /* stderr after an interrupt that says it is not stopping */
#define OUT_MAX (256u << 20)     /* a result larger than this is refused */
#define OUT_KEEP (1u << 20)      /* of another command's stdout, what is kept */
#define CMD_MAX (120u << 10)     /* a remote command longer than this is refused */
#define EXIT_ABSENT 201          /* the probe's "no such binary there" */

/* ---------- targets ---------- */

/* A VM's name as vm:VM gives it: 1..63 of [A-Za-z0-9_.-]. */
static int vm_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
            return 0;
    return 1;
}

static int parse_port(const char *s, int *port)
{
    if (!*s || strlen(s) > 5)
        return -1;
    int v = 0;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < 1 || v > 65535 || s[0] == '0')
        return -1;
    *port = v;
    return 0;
}

/* host[:port] or [v6][:port] of an ssh:// URL (without user and path). */
static int parse_hostport(const char *hp, tb_remote_target *t, tb_err *err)
{
    const char *host = hp, *colon = NULL;
    size_t hl;
    if (hp[0] == '[') {
        const char *close = strchr(hp, ']');
        if (!close)
            return tb_errf(err, "%s: unclosed '[' in the host", hp);
        host = hp + 1;
        hl = (size_t)(close - host);
        if (close[1] == ':')
            colon = close + 1;
        else if (close[1])
            return tb_errf(err, "%s: unexpected text after ']'", hp);
    } else {
        colon = strchr(hp, ':');
        hl = colon ? (size_t)(colon - hp) : strlen(hp);
    }
    if (hl == 0 || hl >= sizeof t->host)
        return tb_errf(err, "ssh URL: %s host", hl ? "too long a" : "no");
    for (size_t i = 0; i < hl; i++)
        if (!isalnum((unsigned char)host[i]) && !strchr("-._:%", host[i]))
            return tb_errf(err, "ssh URL: '%.*s' is not a host name or address", (int)hl, host);
    if (host[0] == '-')
        return tb_errf(err, "ssh URL: a host may not start with '-'");
    memcpy(t->host, host, hl);
    t->host[hl] = 0;
    if (colon && parse_port(colon + 1, &t->port) < 0)
        return tb_errf(err, "ssh URL: '%s' is not a port (1-65535)", colon + 1);
    return 0;
}

int tb_remote_target_parse(const char *spec, tb_remote_target *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(spec, '=');
    if (!eq)
        return tb_errf(err,
                       "%s: a target is NAME=ssh://[user@]host[:port], NAME=vm:VM or "
                       "NAME=local",
                       spec);
    size_t nl = (size_t)(eq - spec);
    if (nl > TB_RECORD_LABEL_MAX)
        return tb_errf(err, "%s: the name must be a label (" TB_RECORD_LABEL_RULE ")", spec);
    memcpy(out->name, spec, nl);
    if (!tb_record_label_valid(out->name)) {
        out->name[0] = 0;
        return tb_errf(err, "%s: the name must be a label (" TB_RECORD_LABEL_RULE ")", spec);
    }
    const char *u = eq + 1;
    if (!strcmp(u, "local")) {
        out->kind = TB_TARGET_LOCAL;
        return 0;
    }
    if (!strncmp(u, "vm:", 3)) {
        out->kind = TB_TARGET_VM;
        if (!vm_name_ok(u + 3, strlen(u + 3)))
            return tb_errf(err, "%s: the VM name must be 1-63 of [A-Za-z0-9_.-]", spec);
        snprintf(out->vm, sizeof out->vm, "%s", u + 3);
        return 0;
    }
    if (strncmp(u, "ssh://", 6))
        return tb_errf(err,
                       "%s: not an ssh:// URL (targets: NAME=ssh://[user@]host[:port], "
                       "NAME=vm:VM, NAME=local)",
                       spec);
    out->kind = TB_TARGET_SSH;
    char rest[512];
    if (snprintf(rest, sizeof rest, "%s", u + 6) >= (int)sizeof rest)
        return tb_errf(err, "%s: URL too long", spec);
    size_t rl = strlen(rest);
    if (rl && rest[rl - 1] == '/')
        rest[--rl] = 0;
    if (strchr(rest, '/') || strchr(rest, '?') || strchr(rest, '#'))
        return tb_errf(err, "%s: an ssh:// target has no path or query", spec);
    char *hp = rest, *at = strrchr(rest, '@');
    if (at) {
        *at = 0;
        size_t ul = strlen(rest);
        if (!ul || ul >= sizeof out->user || rest[0] == '-')
            return tb_errf(err, "%s: bad user name", spec);
        for (size_t i = 0; i < ul; i++)
            if (!isalnum((unsigned char)rest[i]) && !strchr("_.-", rest[i]))
                return tb_errf(err, "%s: bad user name", spec);
        memcpy(out->user, rest, ul + 1);
        hp = at + 1;
    }
    return parse_hostport(hp, out, err) < 0 ? tb_err_wrap(err, "%s", spec) : 0;
}

/* ---------- ssh command lines ---------- */

void tb_remote_argv_free(char **argv)
{
    tb_argv_free(argv);
}

/* ssh and its options, up to (not including) the host. */
static void ssh_options(tb_argv *b, const tb_remote_target *t, const tb_remote_opts *o)
{
    tb_argv_add(b, "%s", o->ssh_program ? o->ssh_program : "ssh");
    if (o->ssh_config)
        tb_argv_add(b, "-F"), tb_argv_add(b, "%s", o->ssh_config);
    tb_argv_add(b, "-o"), tb_argv_add(b, "BatchMode=yes");
    tb_argv_add(b, "-o"),
        tb_argv_add(b, "ConnectTimeout=%d", o->connect_timeout_s > 0 ? o->connect_timeout_s : 10);
    tb_argv_add(b, "-o"), tb_argv_add(b, "ServerAliveInterval=15");
    if (o->control_dir) {
        tb_argv_add(b, "-o"), tb_argv_add(b, "ControlMaster=auto");
        tb_argv_add(b, "-o"), tb_argv_add(b, "ControlPath=%s/%%C", o->control_dir);
        tb_argv_add(b, "-o"), tb_argv_add(b, "ControlPersist=60");
    }
    if (t->identity[0])
        tb_argv_add(b, "-i"), tb_argv_add(b, "%s", t->identity), tb_argv_add(b, "-o"),
            tb_argv_add(b, "IdentitiesOnly=yes");
    if (t->known_hosts[0]) {
        tb_argv_add(b, "-o"), tb_argv_add(b, "UserKnownHostsFile=%s", t->known_hosts);
        tb_argv_add(b, "-o"), tb_argv_add(b, "StrictHostKeyChecking=accept-new");
    }
    if (t->port)
        tb_argv_add(b, "-p"), tb_argv_add(b, "%d", t->port);
    if (t->user[0])
        tb_argv_add(b, "-l"), tb_argv_add(b, "%s", t->user);
}

char **tb_remote_ssh_argv(const tb_remote_target *t, const tb_remote_opts *o, const char *cmd)
{
    tb_argv b = {0};
    ssh_options(&b, t, o);
    tb_argv_add(&b, "--");
    tb_argv_add(&b, "%s", t->host);
    tb_argv_add(&b, "%s", cmd);
    return tb_argv_take(&b);
}

/* ssh -O exit: closes the control master of t (errors ignored: there may be none). */
static void close_master(const tb_remote_target *t, const tb_remote_opts *o)
{
    if (!o->control_dir)
        return;
    tb_argv b = {0};
    ssh_options(&b, t, o);
    tb_argv_add(&b, "-O");
    tb_argv_add(&b, "exit");
    tb_argv_add(&b, "--");
    tb_argv_add(&b, "%s", t->host);
    char **argv = tb_argv_take(&b);
    if (argv) {
        tb_proc_opts po = {.argv = argv};
        tb_proc_result r;
        tb_err e;
        tb_proc_run(&po, 10000, NULL, &r, &e);
    }
    tb_argv_free(argv);
}

int tb_remote_shell_quote(const char *word, tb_buf *out)
{
    int rc = tb_buf_puts(out, "'");
    for (const char *p = word; *p && rc == 0; p++)
        rc = *p == '\'' ? tb_buf_puts(out, "'\\''") : tb_buf_append(out, p, 1);
    return rc == 0 ? tb_buf_puts(out, "'") : -1;
}

int tb_remote_binary_name(const char *path, char *out, size_t out_len, tb_err *err)
{
    tb_buf b = {0};
    if (tb_file_read(path, 1u << 30, &b, err) < 0)
        return tb_err_wrap(err, "reading this teebench to copy it");
    unsigned char md[32];
    unsigned mdlen = 0;
    int ok = EVP_Digest(b.p, b.len, md, &mdlen, EVP_sha256(), NULL);
    tb_buf_clear(&b);
    if (!ok)
        return tb_errf(err, "sha256 of %s failed", path);
    if (snprintf(out, out_len, "teebench-%s-%02x%02x%02x%02x%02x%02x", TEEBENCH_VERSION, md[0],
                 md[1], md[2], md[3], md[4], md[5]) >= (int)out_len)
        return tb_errf(err, "binary name too long");
    return 0;
}

const char *tb_remote_package_of(const char *text, char *lib, size_t lib_len)
{
    static const struct {
        const char *soname, *package;
    } map[] = {
        {"libssl.so.3", "libssl3"},
        {"libcrypto.so.3", "libssl3"},
        {"libcurl.so.4", "libcurl4"},
        {"libjansson.so.4", "libjansson4"},
        {"libsqlite3.so.0", "libsqlite3-0"},
        {"liblua5.4.so.0", "liblua5.4-0"},
        {"libz.so.1", "zlib1g"},
        {"libgcc_s.so.1", "libgcc-s1"}, /* clang's sanitizer builds */
        {"libm.so.6", "libc6"},
        {"libc.so.6", "libc6"},
    };
    const char *k = strstr(text, "error while loading shared libraries: ");
    if (!k)
        return NULL;
    k += strlen("error while loading shared libraries: ");
    size_t n = strcspn(k, ": \n");
    if (lib_len)
        snprintf(lib, lib_len, "%.*s", (int)n, k);
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].soname) == n && !memcmp(k, map[i].soname, n))
            return map[i].package;
    return "";
}

/* 1-3 decimal digits at *p (nothing else: no sign, no space), their value in *v; p moves
   past them. 0 when there are none. */
static int digits(const char **p, unsigned *v)
{
    int n = 0;
    for (*v = 0; n < 3 && isdigit((unsigned char)**p); n++, (*p)++)
        *v = *v * 10 + (unsigned)(**p - '0');
    return n > 0 && !isdigit((unsigned char)**p);
}

int tb_remote_glibc_needed(const char *text, char *ver, size_t ver_len)
{
    static const char key[] = "version `GLIBC_";
    int found = 0;
    unsigned best_major = 0, best_minor = 0;
    for (const char *k = strstr(text, key); k; k = strstr(k, key)) {
        k += sizeof key - 1;
        unsigned major = 0, minor = 0;
        const char *p = k;
        if (!digits(&p, &major) || *p++ != '.' || !digits(&p, &minor) || *p != '\'')
            continue;
        if (!found || major > best_major || (major == best_major && minor > best_minor)) {
            best_major = major;
            best_minor = minor;
        }
        found = 1;
    }
    if (found && ver_len)
        snprintf(ver, ver_len, "%u.%u", best_major, best_minor);
    return found;
}

/* ---------- refused logins ---------- */

char **tb_remote_copy_id_argv(const tb_remote_target *t, const char *ssh_config)
{
    tb_argv b = {0};
    tb_argv_add(&b, "ssh-copy-id");
    if (ssh_config)
        tb_argv_add(&b, "-F"), tb_argv_add(&b, "%s", ssh_config);
    if (t->port)
        tb_argv_add(&b, "-p"), tb_argv_add(&b, "%d", t->port);
    tb_argv_add(&b, "%s%s%s", t->user, t->user[0] ? "@" : "", t->host);
    return tb_argv_take(&b);
}

int tb_remote_auth_hint(const tb_remote_target *t, const char *ssh_config, const char *text,
                        char *out, size_t len)
{
    const char *k = text ? strstr(text, "Permission denied (") : NULL;
    if (!k)
        return 0;
    k += strlen("Permission denied (");
    char methods[128];
    snprintf(methods, sizeof methods, "%.*s", (int)strcspn(k, ")\n"), k);
    char who[400];
    snprintf(who, sizeof who, "%s%s%s", t->user[0] ? t->user : "", t->user[0] ? "@" : "", t->host);
    if (strstr(methods, "password") || strstr(methods, "keyboard-interactive")) {
        char **argv = tb_remote_copy_id_argv(t, ssh_config);
        tb_buf cmd = {0};
        for (char **a = argv; a && *a; a++) {
            int safe = **a && strspn(*a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789_@%+=:,./-") == strlen(*a);
            if (a != argv)
                tb_buf_puts(&cmd, " ");
            if (safe)
                tb_buf_puts(&cmd, *a);
            else
                tb_remote_shell_quote(*a, &cmd);
        }
        tb_remote_argv_free(argv);
        snprintf(out, len,
                 "%s accepts no key of yours, only a password (%s), and teebench's ssh runs in "
                 "BatchMode, which never types one: install your key there once with `%s` "
                 "(or add --ssh-copy-id to run it here on this terminal), then run this again",
                 who, methods, cmd.p ? (const char *)cmd.p : "ssh-copy-id");
        tb_buf_clear(&cmd);
        return 1;
    }
    snprintf(out, len,
             "%s refuses every key of yours (it accepts: %s): authorize one of your public keys "
             "in that user's ~/.ssh/authorized_keys there, or give ssh the right one (-i in "
             "--ssh-config FILE)",
             who, methods);
    return 1;
}

/* ---------- moving bytes ---------- */

/* One stderr line: its first len bytes (at most ERR_LINE_MAX), and how many more it had
   that were dropped. */
typedef void (*line_fn)(const char *line, size_t len, size_t cut, void *ctx);

typedef struct pump_io {
    const uint8_t *in; /* fed to stdin, then stdin is closed; NULL: stdin stays open
                          until *stop (or the child ends) */
    size_t in_len;
    tb_buf *out;       /* stdout (NULL: discarded, unless out_fd) */
    size_t out_keep;   /* > 0: only the first out_keep bytes of it go to out */
    const int *out_fd; /* non-NULL: stdout is written to this file instead (the result) */
    tb_buf *err;       /* the last ERR_KEEP bytes of stderr */
    line_fn on_line;
    void *ctx;
    /* *stop non-zero: with in set (a probe, a copy) the child is killed and pump
       fails with "interrupted"; without (the suite) stdin is closed -- the remote
       wrapper interrupts the suite -- and the child gets stop_grace_ms to end, unless
       it floods stderr meanwhile (see pump_read) */
    const volatile sig_atomic_t *stop;
    int64_t stop_grace_ms;
    int64_t timeout_ms; /* < 0: none */
} pump_io;

/* What pump keeps between reads. */
typedef struct pump_state {
    tb_buf line;       /* the stderr line so far: its first ERR_LINE_MAX bytes */
    size_t cut;        /* bytes of it beyond those, dropped */
    size_t out_len;    /* stdout bytes so far */
    int stopping;      /* *stop was seen */
    size_t since_stop; /* stderr bytes since then */
} pump_state;

/* Splits new stderr bytes into lines for on_line. Each byte is looked at once, and
   a line holds at most ERR_LINE_MAX bytes here however long it is (the rest is counted,
   not kept): a remote that sends 200 MB without a newline costs one pass over them
   and 64 KiB. */
static int feed_lines(pump_io *io, pump_state *ps, const char *p, size_t n)
{
    if (io->err) { /* the tail, for messages */
        if (n >= ERR_KEEP) {
            tb_buf_reset(io->err);
            if (tb_buf_append(io->err, p + n - ERR_KEEP, ERR_KEEP) < 0)
                return -1;
        } else {
            if (tb_buf_append(io->err, p, n) < 0)
                return -1;
            if (io->err->len > ERR_KEEP)
                tb_buf_consume(io->err, io->err->len - ERR_KEEP);
        }
    }
    while (n) {
        const char *nl = memchr(p, '\n', n);
        size_t k = nl ? (size_t)(nl - p) : n, room = ERR_LINE_MAX - ps->line.len;
        size_t take = k < room ? k : room;
        if (tb_buf_append(&ps->line, p, take) < 0)
            return -1;
        ps->cut += k - take;
        if (!nl)
            break;
        if (io->on_line)
            io->on_line((const char *)ps->line.p, ps->line.len, ps->cut, io->ctx);
        tb_buf_reset(&ps->line);
        ps->cut = 0;
        p += k + 1;
        n -= k + 1;
    }
    return 0;
}

/* Reads one chunk of fd into the right place; 0 at EOF (fd closed, set to -1). */
static int pump_read(int *fd, pump_io *io, pump_state *ps, int is_err, tb_err *err)
{
    char chunk[65536];
    ssize_t r = read(*fd, chunk, sizeof chunk);
    if (r < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : tb_errno(err, "reading from ssh");
    if (r == 0) {
        close(*fd);
        *fd = -1;
        return 0;
    }
    if (is_err) {
        size_t cut = ps->cut;
        if (feed_lines(io, ps, chunk, (size_t)r) < 0)
            return tb_errf(err, "out of memory");
        /* interrupted: a suite that stops sends a few lines; one that goes on
           sending a line over ERR_LINE_MAX or more than FLOOD_MAX is not stopping */
        if (ps->stopping &&
            ((ps->cut > cut && ps->cut) || (ps->since_stop += (size_t)r) > FLOOD_MAX))
            return tb_errf(err, "interrupted, and it went on writing to stderr instead of "
                                "stopping");
    } else if (io->out || io->out_fd) {
        if (ps->out_len + (size_t)r > OUT_MAX)
            return tb_errf(err, "the remote sent more than %u MiB", OUT_MAX >> 20);
        ps->out_len += (size_t)r;
        if (io->out_fd) {
            for (ssize_t done = 0; done < r;) {
                ssize_t w = write(*io->out_fd, chunk + done, (size_t)(r - done));
                if (w < 0 && errno != EINTR)
                    return tb_errno(err, "keeping the result in a temporary file");
                done += w > 0 ? w : 0;
            }
        } else {
            size_t keep = (size_t)r;
            if (io->out_keep)
                keep = io->out->len >= io->out_keep         ? 0
                       : io->out_keep - io->out->len < keep ? io->out_keep - io->out->len
                                                            : keep;
            if (tb_buf_append(io->out, chunk, keep) < 0)
                return tb_errf(err, "out of memory");
        }
    }
    return 1;
}

/* Runs argv to its end, moving bytes as io says. *code = its exit code. */
static int pump(char **argv, pump_io *io, int *code, tb_err *err)
{
    tb_proc_opts po = {.argv = argv,
                       .pipes = TB_PROC_PIPE_IN | TB_PROC_PIPE_OUT | TB_PROC_PIPE_ERR};
    tb_proc p;
    if (tb_proc_spawn(&po, &p, err) < 0)
        return -1;
    fcntl(p.in, F_SETFL, O_NONBLOCK);
    size_t sent = 0;
    pump_state ps = {0};
    int rc = 0;
    uint64_t t0 = tb_mono_ns();
    if (io->in && io->in_len == 0) {
        close(p.in); /* nothing to send: EOF at once */
        p.in = -1;
    }
    uint64_t stopped = 0; /* when *stop was seen (suite mode) */
    while (p.out >= 0 || p.err >= 0) {
        if (io->stop && *io->stop && io->in) {
            rc = tb_errf(err, "interrupted");
            break;
        }
        if (io->stop && *io->stop && !stopped) {
            stopped = tb_mono_ns();
            ps.stopping = 1;
            if (p.in >= 0)
                close(p.in); /* the remote wrapper interrupts the suite */
            p.in = -1;
        }
        if (stopped && tb_mono_ns() - stopped > (uint64_t)io->stop_grace_ms * 1000000) {
            rc = tb_errf(err, "interrupted, and it did not stop within %.1f s",
                         (double)io->stop_grace_ms / 1000);
            break;
        }
        if (io->timeout_ms >= 0 && (int64_t)((tb_mono_ns() - t0) / 1000000) > io->timeout_ms) {
            rc = tb_errf(err, "no answer within %lld s", (long long)(io->timeout_ms / 1000));
            break;
        }
        struct pollfd f[3] = {{p.out, POLLIN, 0}, {p.err, POLLIN, 0}, {-1, POLLOUT, 0}};
        if (io->in && p.in >= 0 && sent < io->in_len)
            f[2].fd = p.in;
        int n = poll(f, 3, 100);
        if (n < 0 && errno != EINTR) {
            rc = tb_errno(err, "poll");
            break;
        }
        if (n <= 0)
            continue;
        if (f[0].revents && pump_read(&p.out, io, &ps, 0, err) < 0) {
            rc = -1;
            break;
        }
        if (f[1].revents && pump_read(&p.err, io, &ps, 1, err) < 0) {
            rc = -1;
            break;
        }
        if (f[2].revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t w = write(p.in, io->in + sent, io->in_len - sent);
            if (w > 0)
                sent += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == io->in_len) {
                close(p.in);
                p.in = -1;
            }
        }
    }
    if (rc == 0 && (ps.line.len || ps.cut) && io->on_line)
        io->on_line((const char *)ps.line.p, ps.line.len, ps.cut, io->ctx);
    tb_buf_clear(&ps.line);
    tb_proc_close_pipes(&p);
    if (rc < 0) {
        tb_proc_kill(&p);
        return -1;
    }
    if (tb_proc_wait(&p, 30000, NULL, err) != TB_PROC_EXITED) {
        tb_proc_kill(&p);
        return tb_errf(err, "ssh did not exit after closing its output");
    }
    *code = p.code;
    return 0;
}

/* Runs one shell command there, in (may be NULL: nothing) on its stdin; out (the
   first OUT_KEEP bytes of its stdout) and errb may be NULL. Killed and "interrupted"
   when *stop is set (stop may be NULL). */
static int ssh_cmd(const tb_remote_target *t, const tb_remote_opts *o, const char *cmd,
                   const tb_buf *in, tb_buf *out, tb_buf *errb, int64_t timeout_ms,
                   const volatile sig_atomic_t *stop, int *code, tb_err *err)
{
    if (stop && *stop)
        return tb_errf(err, "interrupted");
    char **argv = tb_remote_ssh_argv(t, o, cmd);
    if (!argv)
        return tb_errf(err, "out of memory");
    static const uint8_t nothing[1];
    pump_io io = {.in = in ? in->p : nothing,
                  .in_len = in ? in->len : 0,
                  .out = out,
                  .out_keep = OUT_KEEP,
                  .err = errb,
                  .stop = stop,
                  .timeout_ms = timeout_ms};
    int rc = pump(argv, &io, code, err);
    tb_remote_argv_free(argv);
    return rc;
}

/* ---------- the steps ---------- */

/* The shell expression of the remote binary's path. */
static int remote_path_expr(const tb_remote_opts *o, const char *bin_name, tb_buf *cmd)
{
    if (o->remote_binary) {
        /* a leading ~/ is the remote user's home, as it would be typed there */
        int home = !strncmp(o->remote_binary, "~/", 2);
        return tb_buf_puts(cmd, home ? "f=\"$HOME\"/" : "f=") < 0 ||
                       tb_remote_shell_quote(o->remote_binary + (home ? 2 : 0), cmd) < 0 ||
                       tb_buf_puts(cmd, "; ") < 0
                   ? -1
                   : 0;
    }
    return tb_buf_printf(cmd, "d=\"${XDG_CACHE_HOME:-$HOME/.cache}/teebench\"; f=\"$d/%s\"; ",
                         bin_name);
}

/* What `teebench --version` there said. */
typedef struct probe_res {
    int code;         /* its exit code; EXIT_ABSENT: no file; 255: ssh failed */
    char version[80]; /* first line of its stdout */
    char line[300];   /* last line of its stderr */
    char lib[64];     /* a shared library the loader did not find */
    const char *pkg;  /* its Debian package ("" unknown); NULL: no loader message */
    char glibc[16];   /* the glibc version the loader said is missing; "": none */
} probe_res;

static int probe(const tb_remote_target *t, const tb_remote_opts *o, const char *name,
                 const volatile sig_atomic_t *stop, probe_res *pr, tb_err *err)
{
    tb_buf cmd = {0}, out = {0}, errb = {0};
    memset(pr, 0, sizeof *pr);
    pr->code = -1;
    int rc =
        remote_path_expr(o, name, &cmd) < 0 ||
                tb_buf_printf(&cmd,
                              "if [ -e \"$f\" ]; then exec \"$f\" --version; "
                              "else exit %d; fi",
                              EXIT_ABSENT) < 0
            ? tb_errf(err, "out of memory")
            : ssh_cmd(t, o, (const char *)cmd.p, NULL, &out, &errb, 120000, stop, &pr->code, err);
    if (rc == 0) {
        const char *v = out.p ? (const char *)out.p : "";
        snprintf(pr->version, sizeof pr->version, "%.*s", (int)strcspn(v, "\r\n"), v);
        tb_buf_last_line(&errb, pr->line, sizeof pr->line);
        const char *e = errb.p ? (const char *)errb.p : "";
        pr->pkg = tb_remote_package_of(e, pr->lib, sizeof pr->lib);
        tb_remote_glibc_needed(e, pr->glibc, sizeof pr->glibc);
    }
    tb_buf_clear(&cmd);
    tb_buf_clear(&out);
    tb_buf_clear(&errb);
    return rc;
}

/* Streams this build there. The remote end checks that every byte arrived before the
   file gets its name (a connection that drops mid-copy gives cat an early EOF, not an
   error) and removes what it wrote when anything fails. */
static int upload(const tb_remote_target *t, const tb_remote_opts *o, const char *path,
                  const char *name, const volatile sig_atomic_t *stop, tb_err *err)
{
    tb_buf bin = {0}, cmd = {0}, errb = {0};
    if (tb_file_read(path, 1u << 30, &bin, err) < 0)
        return tb_err_wrap(err, "reading this teebench to copy it");
    int code = -1;
    int rc =
        remote_path_expr(o, name, &cmd) < 0 ||
                tb_buf_printf(&cmd,
                              "umask 077; mkdir -p \"$d\" && t=\"$d/.upload.$$\" && "
                              "{ cat >\"$t\" && n=$(($(wc -c <\"$t\"))) && "
                              "{ [ \"$n\" -eq %zu ] || "
                              "{ echo \"short copy: $n of %zu bytes arrived\" >&2; false; }; } "
                              "&& chmod 755 \"$t\" && mv -f \"$t\" \"$f\" || "
                              "{ rm -f \"$t\"; exit 1; }; }",
                              bin.len, bin.len) < 0
            ? tb_errf(err, "out of memory")
            : ssh_cmd(t, o, (const char *)cmd.p, &bin, NULL, &errb, 600000, stop, &code, err);
    char line[300];
    tb_buf_last_line(&errb, line, sizeof line);
    tb_buf_clear(&bin);
    tb_buf_clear(&cmd);
    tb_buf_clear(&errb);
    if (rc < 0)
        return tb_err_wrap(err, "copying teebench to %s", t->host);
    if (code != 0)
        return tb_errf(err, "copying teebench to %s failed (exit %d): %s", t->host, code,
                       line[0] ? line : "no message");
    return 0;
}

/* Why a probed teebench cannot run there for want of something the loader needs (a
   shared library, a newer glibc), into out; 0 when that is not the reason. */
static int loader_missing(const probe_res *pr, char *out, size_t len)
{
    if (pr->pkg)
        snprintf(out, len, "%s is missing (Debian package %s)", pr->lib,
                 pr->pkg[0] ? pr->pkg : "unknown");
    else if (pr->glibc[0])
        snprintf(out, len, "it needs glibc %s or later, which is not there", pr->glibc);
    else
        return 0;
    return 1;
}

/* Step 1 and 2: a teebench of this build runs there. The copy is made when the
   file is absent, and made again once when it is there but does not run as this
   build (a damaged file: the name says which build it must be). Where this build
   cannot run for want of a library or of a newer glibc, o->fallback_binary takes its
   place (from the probe on); *why then says what was missing, else why[0] = 0. */
static int ensure_binary(const tb_remote_target *t, const tb_remote_opts *o,
                         const volatile sig_atomic_t *stop, char *name, size_t name_len, char *why,
                         size_t why_len, tb_err *err)
{
    const char *local = o->local_binary;
    name[0] = 0;
    why[0] = 0;
    if (!o->remote_binary && tb_remote_binary_name(local, name, name_len, err) < 0)
        return -1;
    for (int copied = 0;;) {
        probe_res pr;
        if (probe(t, o, name, stop, &pr, err) < 0)
            return tb_err_wrap(err, "reaching %s", t->host);
        if (pr.code == 0 && !strcmp(pr.version, "teebench " TEEBENCH_VERSION))
            return 0;
        char hint[700];
        if (pr.code == 255 && tb_remote_auth_hint(t, o->ssh_config, pr.line, hint, sizeof hint))
            return tb_errf(err, "%s", hint);
        if (pr.code == 255)
            return tb_errf(err, "ssh to %s failed: %s", t->host, pr.line[0] ? pr.line : "exit 255");
        char missing[200];
        if (loader_missing(&pr, missing, sizeof missing)) {
            int can_fall_back =
                !o->remote_binary && o->fallback_binary && local != o->fallback_binary;
            if (!can_fall_back)
                return tb_errf(err, "teebench cannot run on %s: %s%s", t->host, missing,
                               o->remote_binary || local == o->fallback_binary
                                   ? ""
                                   : "; `make static` builds build/teebench-static, which "
                                     "needs no library there");
            snprintf(why, why_len, "%s", missing);
            local = o->fallback_binary;
            copied = 0;
            if (tb_remote_binary_name(local, name, name_len, err) < 0)
                return -1;
            continue;
        }
        if (o->remote_binary || copied) {
            if (pr.code == 0)
                return tb_errf(err, "%s on %s says '%s', this is %s",
                               o->remote_binary ? o->remote_binary : name, t->host, pr.version,
                               TEEBENCH_VERSION);
            return tb_errf(err, "teebench on %s does not run (exit %d): %s", t->host, pr.code,
                           pr.line[0] ? pr.line : "no message");
        }
        if (upload(t, o, local, name, stop, err) < 0)
            return -1;
        copied = 1;
    }
}

typedef struct progress_ctx {
    tb_suite_hooks *hooks;
    const tb_remote_target *t;
    int ended; /* the END event came: the remote's summary follows (the record has it) */
} progress_ctx;

/* One stderr line of the remote suite: a progress event (re-delivered) or text. Its
   strings are the remote's: the printer escapes them (base/text). */
static void on_line(const char *line, size_t len, size_t cut, void *vctx)
{
    progress_ctx *c = vctx;
    if (!c->hooks || !c->hooks->progress || (len == 0 && !cut))
        return;
    json_error_t je;
    json_t *doc = line[0] == '{' && !cut ? json_loadb(line, len, 0, &je) : NULL;
    tb_suite_event ev;
    tb_err e;
    if (doc && tb_suite_event_from_json(doc, &ev, &e) == 0) {
        c->ended |= ev.kind == TB_SUITE_EV_END;
        c->hooks->progress(&ev, c->hooks->ctx);
    } else if (!c->ended || (len >= 9 && !strncmp(line, "teebench:", 9))) {
        char text[1024];
        if (cut)
            snprintf(text, sizeof text, "%.*s... (a line of %zu bytes, cut)",
                     len < 200 ? (int)len : 200, line, len + cut);
        else
            snprintf(text, sizeof text, "%.*s", (int)len, line);
        tb_suite_event info = {.kind = TB_SUITE_EV_INFO,
                               .workload = "",
                               .target = "",
                               .status = "",
                               .text = text,
                               .eta_s = -1};
        c->hooks->progress(&info, c->hooks->ctx);
    }
    json_decref(doc);
}

/* A file for the result, gone when closed: unnamed in $TMPDIR (or /tmp). -1 with err. */
static int result_file(tb_err *err)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[4096];
    snprintf(path, sizeof path, "%s/teebench-result.XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC); /* a file system without O_TMPFILE */
    if (fd < 0)
        return tb_errno(err, "a temporary file for the result in %s", dir);
    unlink(path);
    return fd;
}

/* Step 3: the command that runs the suite there and interrupts it when stdin closes. */
static int suite_cmd(const tb_remote_target *t, const tb_remote_opts *o, const char *bin_name,
                     tb_buf *cmd)
{
    if (remote_path_expr(o, bin_name, cmd) < 0 || tb_buf_puts(cmd, "s=; ") < 0)
        return -1;
    if (o->suite_doc && (tb_buf_puts(cmd, "s=$(mktemp) || exit 1; printf '%s' ") < 0 ||
                         tb_remote_shell_quote(o->suite_doc, cmd) < 0 ||
                         tb_buf_puts(cmd, " >\"$s\" || exit 1; ") < 0))
        return -1;
    if (tb_buf_puts(cmd, "exec 3<&0; \"$f\" suite run") < 0)
        return -1;
    if (o->suite_doc && tb_buf_puts(cmd, " --suite \"$s\"") < 0)
        return -1;
    for (char *const *a = o->suite_args; a && *a; a++)
        if (tb_buf_puts(cmd, " ") < 0 || tb_remote_shell_quote(*a, cmd) < 0)
            return -1;
    if (tb_buf_puts(cmd, " --label ") < 0 || tb_remote_shell_quote(t->name, cmd) < 0)
        return -1;
    /* stdin closed (this end stopped) -> SIGINT: the suite stops, keeps what it finished */
    return tb_buf_puts(
        cmd, " --no-store -o - --progress=jsonl </dev/null & p=$!; "
             "{ cat <&3; kill -INT $p; } >/dev/null 2>&1 & w=$!; "
             "wait $p; rc=$?; kill $w 2>/dev/null; [ -z \"$s\" ] || rm -f \"$s\"; exit $rc");
}

int tb_remote_run(const tb_remote_target *t, const tb_remote_opts *o, tb_suite_hooks *hooks,
                  tb_record **out, tb_err *err)
{
    *out = NULL;
    if (t->kind == TB_TARGET_LOCAL)
        return tb_errf(err, "%s: a local target runs here, not over ssh", t->name);
    const volatile sig_atomic_t *stop = hooks ? hooks->stop : NULL;
    char name[96], why[200];
    int rc = ensure_binary(t, o, stop, name, sizeof name, why, sizeof why, err);
    if (rc == 0 && why[0])
        tb_suite_info(hooks,
                      "this teebench cannot run on %s (%s): running the self-contained build "
                      "there (%s)",
                      t->host, why, name);
    if (rc == 0 && stop && *stop)
        rc = tb_errf(err, "interrupted before the suite started on %s", t->host);
    tb_buf cmd = {0}, errb = {0};
    int code = -1, fd = -1;
    if (rc == 0 && suite_cmd(t, o, name, &cmd) < 0)
        rc = tb_errf(err, "out of memory");
    /* the command is one argument of ssh here and of the shell there (Linux: 128 KiB) */
    if (rc == 0 && cmd.len > CMD_MAX)
        rc = tb_errf(err,
                     "the suite's arguments and file are %zu KiB, more than ssh can send (%u KiB)",
                     cmd.len >> 10, CMD_MAX >> 10);
    /* the result goes to a file, not to memory: at most OUT_MAX bytes of it */
    if (rc == 0 && (fd = result_file(err)) < 0)
        rc = -1;
    if (rc == 0) {
        char **argv = tb_remote_ssh_argv(t, o, (const char *)cmd.p);
        progress_ctx pc = {.hooks = hooks, .t = t};
        pump_io io = {.in = NULL,
                      .out_fd = &fd,
                      .err = &errb,
                      .on_line = on_line,
                      .ctx = &pc,
                      .stop = stop,
                      .stop_grace_ms = o->stop_grace_ms > 0 ? o->stop_grace_ms : 60000,
                      .timeout_ms = -1};
        rc = argv ? pump(argv, &io, &code, err) : tb_errf(err, "out of memory");
        if (rc < 0)
            tb_err_wrap(err, "the suite on %s", t->host);
        tb_remote_argv_free(argv);
    }
    if (rc == 0) {
        char line[300];
        tb_buf_last_line(&errb, line, sizeof line);
        off_t size = lseek(fd, 0, SEEK_END);
        tb_err e;
        if (size <= 0 || lseek(fd, 0, SEEK_SET) != 0) {
            rc = tb_errf(err, "the suite on %s exited %d without a result%s%s", t->host, code,
                         line[0] ? ": " : "", line);
        } else if (tb_record_read_fd(fd, out, &e) < 0) {
            /* a suite that failed and left half a document: its exit and last line say
               more than where the JSON broke off */
            if (code != 0 && strncmp(e.msg, "too large", 9))
                rc = tb_errf(err, "the suite on %s exited %d without a result%s%s", t->host, code,
                             line[0] ? ": " : "", line);
            else
                rc = tb_errf(err, "the result from %s: %s", t->host, e.msg);
        } else if (tb_record_set_str(&(*out)->label, t->name, err) < 0) {
            rc = -1; /* the target's name, whatever the remote called itself */
        }
        if (rc < 0) {
            tb_record_free(*out);
            *out = NULL;
        }
    }
    if (fd >= 0)
        close(fd);
    tb_buf_clear(&cmd);
    tb_buf_clear(&errb);
    close_master(t, o);
    return rc;
}

/* ---------- other commands there (--http-client local) ---------- */

int tb_remote_teebench(const tb_remote_target *t, const tb_remote_opts *o, char *const *args,
                       const volatile sig_atomic_t *stop, tb_buf *out, tb_err *err)
{
    char name[96], why[200];
    if (ensure_binary(t, o, stop, name, sizeof name, why, sizeof why, err) < 0)
        return -1;
    tb_buf cmd = {0}, errb = {0};
    int code = -1,
        rc = remote_path_expr(o, name, &cmd) < 0 || tb_buf_puts(&cmd, "exec \"$f\"") < 0 ? -1 : 0;
    for (char *const *a = args; rc == 0 && *a; a++)
        if (tb_buf_puts(&cmd, " ") < 0 || tb_remote_shell_quote(*a, &cmd) < 0)
            rc = -1;
    if (rc < 0)
        rc = tb_errf(err, "out of memory");
    else
        rc = ssh_cmd(t, o, (const char *)cmd.p, NULL, out, &errb, 120000, stop, &code, err);
    if (rc == 0 && code != 0) {
        char line[300];
        tb_buf_last_line(&errb, line, sizeof line);
        rc = tb_errf(err, "teebench %s on %s exited %d%s%s", args[0] ? args[0] : "", t->host, code,
                     line[0] ? ": " : "", line);
    }
    tb_buf_clear(&cmd);
    tb_buf_clear(&errb);
    return rc;
}

int tb_remote_sh(const tb_remote_target *t, const tb_remote_opts *o, const char *cmd,
                 int64_t timeout_ms, const volatile sig_atomic_t *stop, tb_buf *out, tb_buf *errb,
                 int *code, tb_err *err)
{
    return ssh_cmd(t, o, cmd, NULL, out, errb, timeout_ms, stop, code, err);
}

int tb_remote_hostname(const tb_remote_target *t, const tb_remote_opts *o, char *out, size_t len,
                       tb_err *err)
{
    tb_argv b = {0};
    ssh_options(&b, t, o);
    tb_argv_add(&b, "-G");
    tb_argv_add(&b, "--");
    tb_argv_add(&b, "%s", t->host);
    char **argv = tb_argv_take(&b);
    if (!argv)
        return tb_errf(err, "out of memory");
    tb_buf res = {0}, errb = {0};
    static const uint8_t nothing[1];
    pump_io io = {.in = nothing, .in_len = 0, .out = &res, .err = &errb, .timeout_ms = 10000};
    int code = -1, rc = pump(argv, &io, &code, err);
    tb_argv_free(argv);
    out[0] = 0;
    /* ssh -G prints the resolved configuration, one "keyword value" a line */
    for (const char *p = res.p ? (const char *)res.p : ""; rc == 0 && *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 9 && !strncmp(p, "hostname ", 9) && n - 9 < len) {
            memcpy(out, p + 9, n - 9);
            out[n - 9] = 0;
            break;
        }
        p += n + (p[n] == '\n');
    }
    if (rc == 0 && (code != 0 || !out[0]))
        rc = tb_errf(err, "ssh -G %s: no host name (exit %d)", t->host, code);
    tb_buf_clear(&res);
    tb_buf_clear(&errb);
    return rc;
}
