/* tlsn/session: one session in two headless Chromium processes (see session.h).
 *
 * State per party: started (its Chromium runs), configured (its page asked for
 * its configuration), the phase it is in and since when, done or failed. A 200 ms
 * timer checks the deadlines, samples the Chromium groups' CPU and memory, notices
 * a Chromium that exited and the cancel flag; it stops the loop when the session
 * is over (both done, or the first failure, whose line is kept in s->why).
 * Invariant: s->why is empty until the session has failed, and is never
 * overwritten after. */
#include "tlsn/session.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "base/clock.h"
#include "base/embed.h"
#include "base/hex.h"
#include "base/proc.h"
#include "tlsn/tee.h"
#include "tlsn/wasm.h"

/* The pages: one page for both parties (served as /prover.html and /verifier.html)
 * and the party's worker. */
TB_EMBED(tb_tlsn_party_js, "src/tlsn/pages/party.js");
TB_EMBED(tb_tlsn_party_html, "src/tlsn/pages/party.html");

#define TICK_NS 200000000ull
#define MAX_PHASE 32

static const char *const role_name[TB_TLSN_ROLES] = {"prover", "verifier"};

typedef struct party {
    tb_proc proc;
    int started, configured, done, failed;
    char phase[MAX_PHASE];
    uint64_t since_ns; /* the phase's (or the start's) time */
    /* when teebench received the report of a phase's start / end (0: not yet) */
    struct {
        char name[MAX_PHASE];
        uint64_t start_ns, end_ns;
    } marks[12];
    int n_marks;
    /* CPU: the last user+system ticks seen of each pid of the group */
    struct {
        int pid;
        unsigned long long ticks;
    } seen[256];
    int n_seen;
} party;

typedef struct sess {
    const tb_tlsn_session_config *c;
    tb_tlsn_session_result *r;
    tb_tlsn_hub *hub;
    tb_tlsn_tee tee;
    uint8_t sid[TB_TLSN_SESSION_ID_LEN];
    party p[TB_TLSN_ROLES];
    uint64_t t0;
    char why[TB_ERR_MAX];
    const volatile sig_atomic_t *cancel;
    int over;
    long ticks_per_s, page_kib;
} sess;

void tb_tlsn_session_config_defaults(tb_tlsn_session_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->chromium, sizeof c->chromium, "chromium");
    snprintf(c->target_host, sizeof c->target_host, "127.0.0.1");
    c->target_port = 4000;
    snprintf(c->server_name, sizeof c->server_name, "test-server.io");
    snprintf(c->uri, sizeof c->uri, "/formats/json?size=4");
    c->tee_kind = TB_TEE_SIM;
    c->threads = 2;
    c->max_sent_data = 4096;
    c->max_recv_data = 16384;
    snprintf(c->network, sizeof c->network, "Bandwidth");
    snprintf(c->log_level, sizeof c->log_level, "Warn");
    c->startup_timeout_s = 60;
    c->phase_timeout_s = 900; /* a loaded 2-core machine: a session of 5 minutes seen */
}

int tb_tlsn_find_chromium(const char *name, char *out, size_t n, tb_err *err)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) < 0)
            return tb_errf(err, "Chromium: %s is not an executable", name);
        snprintf(out, n, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    for (const char *p = path && path[0] ? path : "/usr/bin:/bin"; *p;) {
        const char *e = strchr(p, ':');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        int w = snprintf(out, n, "%.*s/%s", (int)l, p, name);
        if (w > 0 && (size_t)w < n && l && access(out, X_OK) == 0)
            return 0;
        p += l + (e ? 1 : 0);
    }
    out[0] = 0;
    return tb_errf(err,
                   "Chromium is not installed: no %s in PATH (scripts/setup.sh --tlsn installs "
                   "Debian's chromium; or give --chromium PATH)",
                   name);
}

void tb_tlsn_session_result_clear(tb_tlsn_session_result *r)
{
    for (int i = 0; i < TB_TLSN_ROLES; i++)
        json_decref(r->out[i]);
    memset(r, 0, sizeof *r);
}

double tb_tlsn_session_phase(const tb_tlsn_session_result *r, int role, const char *phase)
{
    json_t *v =
        r->out[role] ? json_object_get(json_object_get(r->out[role], "phases"), phase) : NULL;
    return json_is_number(v) ? json_number_value(v) : -1;
}

static void fail(sess *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(sess *s, const char *fmt, ...)
{
    if (!s->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->why, sizeof s->why, fmt, ap);
        va_end(ap);
    }
    s->over = 1;
    tb_ev_stop(tb_tlsn_hub_loop(s->hub));
}

static void note(void *ctx, const char *line)
{
    sess *s = ctx;
    /* the proxy's failures are the session's: the prover's request cannot succeed */
    if (!strncmp(line, "proxy: the target", 17) && strstr(line, "refused"))
        fail(s, "%s", line);
    else if (!strncmp(line, "proxy: the target", 17) && strstr(line, "unreachable"))
        fail(s, "%s", line);
    if (s->c->log)
        s->c->log(s->c->log_ctx, line);
}

/* ---- base64 ---- */

static int b64_decode(const char *in, uint8_t **out, size_t *len, tb_err *err)
{
    size_t n = strlen(in);
    if (n % 4)
        return tb_errf(err, "not base64");
    uint8_t *p = malloc(n / 4 * 3 + 1);
    if (!p)
        return tb_errf(err, "out of memory");
    int w = n ? EVP_DecodeBlock(p, (const unsigned char *)in, (int)n) : 0;
    if (w < 0) {
        free(p);
        return tb_errf(err, "not base64");
    }
    size_t l = (size_t)w;
    if (n && in[n - 1] == '=')
        l--;
    if (n > 1 && in[n - 2] == '=')
        l--;
    *out = p;
    *len = l;
    return 0;
}

static char *b64_encode(const uint8_t *p, size_t n)
{
    char *s = malloc(4 * ((n + 2) / 3) + 1);
    if (s)
        EVP_EncodeBlock((unsigned char *)s, p, (int)n);
    return s;
}

/* ---- the pages' endpoint ---- */

static int role_of(json_t *body, tb_err *err)
{
    const char *r = json_string_value(json_object_get(body, "role"));
    if (r && !strcmp(r, "prover"))
        return TB_TLSN_PROVER;
    if (r && !strcmp(r, "verifier"))
        return TB_TLSN_VERIFIER;
    return tb_errf(err, "no role");
}

/* Puts j (NULL: it could not be built) into resp as compact JSON; frees j. */
static int reply_json(tb_buf *resp, json_t *j, tb_err *err)
{
    char *txt = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!txt)
        return tb_errf(err, "out of memory");
    tb_buf_puts(resp, txt);
    free(txt);
    return 0;
}

static int api_config(sess *s, json_t *body, tb_buf *resp, tb_err *err)
{
    int role = role_of(body, err);
    if (role < 0)
        return -1;
    const tb_tlsn_session_config *c = s->c;
    party *p = &s->p[role];
    p->configured = 1;
    p->since_ns = tb_mono_ns();
    snprintf(p->phase, sizeof p->phase, "config");
    char base[64], sid[33], mpc[160], tee[160], proxy[160];
    int port = tb_tlsn_hub_port(s->hub);
    snprintf(base, sizeof base, "ws://127.0.0.1:%d", port);
    tb_hex_encode(s->sid, sizeof s->sid, sid);
    snprintf(mpc, sizeof mpc, "%s/relay/%s/mpc/%s", base, sid, role_name[role]);
    snprintf(tee, sizeof tee, "%s/relay/%s/tee/%s", base, sid, role_name[role]);
    snprintf(proxy, sizeof proxy, "%s/proxy/%s", base, sid);
    json_t *j = json_pack("{ss ss ss ss ss ss ss si sI sI sb sb ss ss}", "session", sid,
                          "relay_mpc", mpc, "relay_tee", tee, "proxy", proxy, "server_name",
                          c->server_name, "host", c->server_name, "uri", c->uri, "threads",
                          c->threads, "max_sent_data", (json_int_t)c->max_sent_data,
                          "max_recv_data", (json_int_t)c->max_recv_data, "tee", c->tee, "verify",
                          c->verify, "network", c->network, "log_level", c->log_level);
    return reply_json(resp, j, err);
}

static void mark(party *p, const char *phase, int end)
{
    int i;
    for (i = 0; i < p->n_marks && strcmp(p->marks[i].name, phase); i++)
        ;
    if (i == p->n_marks) {
        if (p->n_marks == (int)(sizeof p->marks / sizeof p->marks[0]))
            return;
        snprintf(p->marks[i].name, sizeof p->marks[i].name, "%s", phase);
        p->marks[i].start_ns = p->marks[i].end_ns = 0;
        p->n_marks++;
    }
    if (end)
        p->marks[i].end_ns = tb_mono_ns();
    else
        p->marks[i].start_ns = tb_mono_ns();
}

static uint64_t mark_at(const party *p, const char *phase, int end)
{
    for (int i = 0; i < p->n_marks; i++)
        if (!strcmp(p->marks[i].name, phase))
            return end ? p->marks[i].end_ns : p->marks[i].start_ns;
    return 0;
}

/* The notarization on teebench's clock: from the prover's setup to the end of both
   parties' work -- the prover's reveal and the verifier's verify(), and in TEE modes
   the quote's arrival at the prover (its own check is tdx_verify_ms, apart). */
static void notarization_time(sess *s)
{
    const party *pr = &s->p[TB_TLSN_PROVER], *vf = &s->p[TB_TLSN_VERIFIER];
    uint64_t t0 = mark_at(pr, "setup", 0), end = mark_at(pr, "reveal", 1),
             v = mark_at(vf, "verify", 1), t = mark_at(pr, "tee", 1);
    if (!t0 || !end || !v || (s->c->tee && !t))
        return;
    if (v > end)
        end = v;
    if (t > end)
        end = t;
    s->r->notarization_ms = (double)(end - t0) / 1e6;
}

static int api_report(sess *s, json_t *body, tb_buf *resp, tb_err *err)
{
    int role = role_of(body, err);
    if (role < 0)
        return -1;
    party *p = &s->p[role];
    const char *ev = json_string_value(json_object_get(body, "event"));
    const char *ph = json_string_value(json_object_get(body, "phase"));
    tb_buf_puts(resp, "{}");
    if (!ev)
        return tb_errf(err, "no event");
    if (!strcmp(ev, "phase") && ph) {
        const char *st = json_string_value(json_object_get(body, "state"));
        mark(p, ph, st && !strcmp(st, "end"));
        snprintf(p->phase, sizeof p->phase, "%s", ph);
        p->since_ns = tb_mono_ns();
        if (st && !strcmp(st, "end"))
            snprintf(p->phase, sizeof p->phase, "after %s", ph);
        return 0;
    }
    if (!strcmp(ev, "done")) {
        p->done = 1;
        json_decref(s->r->out[role]);
        s->r->out[role] = json_incref(body);
        s->r->wall_ms = (tb_mono_ns() - s->t0) / 1000000u;
        if (s->p[!role].done) {
            notarization_time(s);
            s->over = 1;
            tb_ev_stop(tb_tlsn_hub_loop(s->hub));
        }
        return 0;
    }
    if (!strcmp(ev, "error")) {
        const char *m = json_string_value(json_object_get(body, "message"));
        p->failed = 1;
        fail(s, "the %s failed in its %s phase: %s", role_name[role], ph ? ph : "?",
             m ? m : "(no message)");
        return 0;
    }
    return tb_errf(err, "unknown event %s", ev);
}

/* The session's REPORTDATA from a page's body: nonce, server_name, sent, recv. */
static int body_report_data(sess *s, json_t *body, uint8_t rd[64], tb_err *err)
{
    const char *nonce = json_string_value(json_object_get(body, "nonce"));
    const char *name = json_string_value(json_object_get(body, "server_name"));
    const char *sent = json_string_value(json_object_get(body, "sent"));
    const char *recv = json_string_value(json_object_get(body, "recv"));
    uint8_t nb[TB_TLSN_NONCE_LEN];
    if (!nonce || strlen(nonce) != 2 * TB_TLSN_NONCE_LEN ||
        tb_hex_decode(nonce, strlen(nonce), nb, sizeof nb) < 0)
        return tb_errf(err, "the nonce is not %d bytes of hex", TB_TLSN_NONCE_LEN);
    if (!name || !sent || !recv)
        return tb_errf(err, "server_name, sent and recv are needed");
    uint8_t *sp = NULL, *rp = NULL;
    size_t sl, rl;
    if (b64_decode(sent, &sp, &sl, err) < 0 || b64_decode(recv, &rp, &rl, err) < 0) {
        free(sp);
        return -1;
    }
    tb_tlsn_tee_report_data(s->sid, nb, name, sp, sl, rp, rl, rd);
    free(sp);
    free(rp);
    return 0;
}

static int api_quote(sess *s, json_t *body, tb_buf *resp, tb_err *err)
{
    uint8_t rd[64];
    if (!s->c->tee)
        return tb_errf(err, "this session has no TEE message");
    if (body_report_data(s, body, rd, err) < 0)
        return -1;
    uint8_t *q = NULL;
    size_t ql = 0;
    uint64_t t = tb_mono_ns();
    if (tb_tlsn_tee_quote(&s->tee, rd, &q, &ql, err) < 0)
        return tb_err_wrap(err, "the quote");
    s->r->quote_ms = (double)(tb_mono_ns() - t) / 1e6;
    s->r->quote_len = ql;
    s->r->simulated = tb_tee_simulated(s->tee.kind);
    char *b = b64_encode(q, ql);
    free(q);
    json_t *j = b ? json_pack("{ss ss sb}", "quote", b, "tee", tb_tee_name(s->tee.kind),
                              "simulated", tb_tee_simulated(s->tee.kind))
                  : NULL;
    free(b);
    return reply_json(resp, j, err);
}

static int api_verify(sess *s, json_t *body, tb_buf *resp, tb_err *err)
{
    uint8_t rd[64];
    if (!s->c->verify)
        return tb_errf(err, "this session does not verify the quote");
    if (body_report_data(s, body, rd, err) < 0)
        return -1;
    const char *qs = json_string_value(json_object_get(body, "quote"));
    uint8_t *q = NULL;
    size_t ql = 0;
    if (!qs || b64_decode(qs, &q, &ql, err) < 0)
        return tb_errf(err, "no quote in base64");
    uint64_t t = tb_mono_ns();
    int rc = tb_tlsn_tee_verify(&s->tee, q, ql, rd, err);
    s->r->tdx_verify_ms = (double)(tb_mono_ns() - t) / 1e6;
    free(q);
    if (rc < 0)
        return tb_err_wrap(err, "the quote did not verify");
    tb_buf_printf(resp, "{\"ok\":true,\"ms\":%.3f}", s->r->tdx_verify_ms);
    return 0;
}

static int api(void *ctx, const char *name, const uint8_t *body, size_t len, tb_buf *resp,
               tb_err *err)
{
    sess *s = ctx;
    json_error_t je;
    json_t *j = json_loadb((const char *)body, len, 0, &je);
    if (!json_is_object(j)) {
        json_decref(j);
        return tb_errf(err, "the body is not a JSON object");
    }
    int rc;
    if (!strcmp(name, "config"))
        rc = api_config(s, j, resp, err);
    else if (!strcmp(name, "report"))
        rc = api_report(s, j, resp, err);
    else if (!strcmp(name, "quote"))
        rc = api_quote(s, j, resp, err);
    else if (!strcmp(name, "verify"))
        rc = api_verify(s, j, resp, err);
    else
        rc = tb_errf(err, "no endpoint %s", name);
    json_decref(j);
    return rc;
}

/* ---- Chromium ---- */

static int start_party(sess *s, int role, tb_err *err)
{
    const tb_tlsn_session_config *c = s->c;
    char profile[4200], url[128], udd[4300];
    snprintf(profile, sizeof profile, "%s/%s-profile", c->work_dir, role_name[role]);
    snprintf(s->r->log[role], sizeof s->r->log[role], "%s/%s.chromium.log", c->work_dir,
             role_name[role]);
    if (mkdir(profile, 0700) < 0 && errno != EEXIST)
        return tb_errno(err, "%s", profile);
    snprintf(udd, sizeof udd, "--user-data-dir=%s", profile);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/%s.html", tb_tlsn_hub_port(s->hub),
             role_name[role]);
    char *argv[] = {(char *)c->chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-quic",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--disable-extensions",
                    "--disable-background-timer-throttling",
                    "--disable-renderer-backgrounding",
                    "--enable-logging=stderr",
                    "--v=0",
                    udd,
                    url,
                    NULL};
    tb_proc_opts o = {.argv = argv, .stdout_path = s->r->log[role], .stderr_path = NULL};
    /* one log: stdout and stderr into the same file */
    int fd = open(s->r->log[role], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return tb_errno(err, "%s", s->r->log[role]);
    o.stdout_path = NULL;
    o.stdout_fd = fd;
    o.stderr_fd = fd;
    int rc = tb_proc_spawn(&o, &s->p[role].proc, err);
    close(fd);
    if (rc < 0)
        return tb_err_wrap(err, "starting the %s's Chromium (%s)", role_name[role], c->chromium);
    s->p[role].started = 1;
    s->p[role].since_ns = tb_mono_ns();
    snprintf(s->p[role].phase, sizeof s->p[role].phase, "startup");
    return 0;
}

/* Sums the CPU ticks and RSS of every process in the group pgid. */
static void sample_group(sess *s, party *p)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    unsigned long long rss_pages = 0;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = 0;
        char *rp = strrchr(buf, ')');
        if (!rp)
            continue;
        /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
           utime stime cutime cstime priority nice threads itrealvalue starttime vsize rss */
        char st;
        int ppid, pgrp;
        unsigned long long f[20];
        if (sscanf(rp + 2,
                   "%c %d %d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                   "%llu %llu %llu %llu %llu %llu",
                   &st, &ppid, &pgrp, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8],
                   &f[9], &f[10], &f[11], &f[12], &f[13], &f[14], &f[15], &f[16], &f[17],
                   &f[18]) < 22)
            continue;
        if (pgrp != p->proc.pid)
            continue;
        unsigned long long ticks = f[8] + f[9]; /* utime + stime */
        rss_pages += f[18];
        int pid = atoi(e->d_name), i;
        for (i = 0; i < p->n_seen && p->seen[i].pid != pid; i++)
            ;
        if (i == p->n_seen && p->n_seen < (int)(sizeof p->seen / sizeof p->seen[0]))
            p->seen[p->n_seen++].pid = pid;
        if (i < p->n_seen)
            p->seen[i].ticks = ticks;
    }
    closedir(d);
    unsigned long long total = 0;
    for (int i = 0; i < p->n_seen; i++)
        total += p->seen[i].ticks;
    int role = (int)(p - s->p);
    s->r->cpu_ms[role] = (double)total * 1000.0 / (double)s->ticks_per_s;
    double mib = (double)rss_pages * (double)s->page_kib / 1024.0;
    if (mib > s->r->peak_rss_mib[role])
        s->r->peak_rss_mib[role] = mib;
}

static void check_party(sess *s, int role, uint64_t now)
{
    const tb_tlsn_session_config *c = s->c;
    party *p = &s->p[role];
    if (!p->started || p->done)
        return;
    if (!tb_proc_alive(&p->proc)) {
        fail(s, "the %s's Chromium exited with code %d in its %s phase (its log: %s)",
             role_name[role], p->proc.code, p->phase, s->r->log[role]);
        return;
    }
    uint64_t startup = (uint64_t)c->startup_timeout_s * 1000000000ull;
    uint64_t limit = p->configured ? (uint64_t)c->phase_timeout_s * 1000000000ull : startup;
    /* its peer's connection to the relay is a start too: a party in its setup whose peer
       has not connected for startup_timeout_s will never finish it */
    if (p->configured && !strcmp(p->phase, "setup") && now - p->since_ns > startup) {
        tb_tlsn_hub_stats st;
        tb_tlsn_hub_stats_get(s->hub, &st);
        if (!st.connected[TB_TLSN_MPC][!role]) {
            fail(s,
                 "the %s's setup phase did not finish: the %s never connected to the relay "
                 "within %d s",
                 role_name[role], role_name[!role], c->startup_timeout_s);
            return;
        }
    }
    if (now - p->since_ns <= limit)
        return;
    if (!p->configured) {
        fail(s, "the %s's page did not start within %d s (its Chromium's log: %s)", role_name[role],
             c->startup_timeout_s, s->r->log[role]);
        return;
    }
    tb_tlsn_hub_stats st;
    tb_tlsn_hub_stats_get(s->hub, &st);
    const char *who = "";
    if (!strcmp(p->phase, "setup") && !st.connected[TB_TLSN_MPC][!role])
        who = role == TB_TLSN_PROVER ? ": the verifier never connected to the relay"
                                     : ": the prover never connected to the relay";
    else if (!strcmp(p->phase, "request") && !st.proxy_connections)
        who = ": the prover never connected to the proxy";
    else if ((!strcmp(p->phase, "tee") || !strcmp(p->phase, "quote")) &&
             !st.connected[TB_TLSN_TEE][!role])
        who = role == TB_TLSN_PROVER ? ": the verifier never connected to the TEE channel"
                                     : ": the prover never connected to the TEE channel";
    fail(s, "the %s's %s phase did not finish within %d s%s", role_name[role], p->phase,
         c->phase_timeout_s, who);
}

static int64_t tick(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)l;
    (void)id;
    sess *s = data;
    if (s->cancel && *s->cancel) {
        fail(s, "interrupted");
        return TB_EV_NOMORE;
    }
    uint64_t now = tb_mono_ns();
    for (int i = 0; i < TB_TLSN_ROLES; i++) {
        if (s->p[i].started && s->p[i].proc.pid > 0)
            sample_group(s, &s->p[i]);
        check_party(s, i, now);
    }
    return s->over ? TB_EV_NOMORE : (int64_t)TICK_NS;
}

static int add_files(sess *s, tb_tlsn_wasm *w, tb_err *err)
{
    if (tb_tlsn_hub_add_file(s->hub, "party.js", NULL, tb_tlsn_party_js_start,
                             TB_EMBED_LEN(tb_tlsn_party_js), err) < 0)
        return -1;
    for (int role = 0; role < TB_TLSN_ROLES; role++) {
        char page[32];
        snprintf(page, sizeof page, "%s.html", role_name[role]);
        if (tb_tlsn_hub_add_file(s->hub, page, NULL, tb_tlsn_party_html_start,
                                 TB_EMBED_LEN(tb_tlsn_party_html), err) < 0)
            return -1;
    }
    for (int i = 0; i < TB_TLSN_WASM_FILES; i++) {
        char path[256];
        snprintf(path, sizeof path, "pkg/%s", w->files[i].path);
        if (tb_tlsn_hub_add_file(s->hub, path, NULL, w->files[i].data.p, w->files[i].data.len,
                                 err) < 0)
            return -1;
    }
    return 0;
}

int tb_tlsn_session_run(const tb_tlsn_session_config *c, const volatile sig_atomic_t *cancel,
                        tb_tlsn_session_result *r, tb_err *err)
{
    memset(r, 0, sizeof *r);
    r->quote_ms = r->tdx_verify_ms = r->notarization_ms = -1;
    if (c->threads < 1 || c->threads > 64)
        return tb_errf(err, "threads per party must be 1 to 64");
    sess *s = calloc(1, sizeof *s);
    if (!s)
        return tb_errf(err, "out of memory");
    s->c = c;
    s->r = r;
    s->cancel = cancel;
    s->ticks_per_s = sysconf(_SC_CLK_TCK);
    s->page_kib = sysconf(_SC_PAGESIZE) / 1024;
    int rc = -1;
    tb_tlsn_wasm w;
    memset(&w, 0, sizeof w);
    if (tb_tlsn_wasm_load(c->wasm_dir, &w, err) < 0)
        goto out;
    if (c->fixture_ca[0]) {
        tb_buf *m = tb_tlsn_wasm_module(&w);
        if (tb_tlsn_wasm_substitute_root(m->p, m->len, c->fixture_ca, err) < 0) {
            tb_err_wrap(err, "substituting the fixture root");
            goto out;
        }
        r->substituted = 1;
    }
    if (c->tee && tb_tlsn_tee_open(c->tee_kind, c->sim_dir, &s->tee, err) < 0)
        goto out;
    snprintf(s->tee.collateral, sizeof s->tee.collateral, "%s", c->collateral);
    snprintf(s->tee.pccs, sizeof s->tee.pccs, "%s", c->pccs);
    if (RAND_bytes(s->sid, sizeof s->sid) != 1) {
        tb_errf(err, "no random bytes for the session id");
        goto out;
    }
    tb_hex_encode(s->sid, sizeof s->sid, r->session);
    char port[16];
    snprintf(port, sizeof port, "%d", c->target_port);
    tb_tlsn_hub_config hc = {.host = "127.0.0.1",
                             .session = r->session,
                             .target_host = c->target_host,
                             .target_port = port,
                             .api = api,
                             .note = note,
                             .ctx = s};
    if (tb_tlsn_hub_new(&hc, &s->hub, err) < 0 || add_files(s, &w, err) < 0)
        goto out;
    s->t0 = tb_mono_ns();
    if (start_party(s, TB_TLSN_VERIFIER, err) < 0 || start_party(s, TB_TLSN_PROVER, err) < 0)
        goto out;
    tb_ev_loop *l = tb_tlsn_hub_loop(s->hub);
    if (!tb_ev_timer_add(l, TICK_NS, tick, s)) {
        tb_errf(err, "no timer");
        goto out;
    }
    if (tb_ev_run(l, err) < 0)
        goto out;
    for (int i = 0; i < TB_TLSN_ROLES; i++)
        if (s->p[i].started && s->p[i].proc.pid > 0)
            sample_group(s, &s->p[i]);
    if (s->why[0]) {
        tb_errf(err, "%s", s->why);
        goto out;
    }
    rc = 0;
out:
    for (int i = 0; i < TB_TLSN_ROLES; i++)
        if (s->p[i].started && s->p[i].proc.pid > 0)
            tb_proc_stop(&s->p[i].proc, 2000);
    if (s->hub) {
        tb_tlsn_hub_stats_get(s->hub, &r->hub);
        tb_tlsn_hub_free(s->hub);
    }
    tb_tlsn_tee_close(&s->tee);
    tb_tlsn_wasm_clear(&w);
    free(s);
    return rc;
}
