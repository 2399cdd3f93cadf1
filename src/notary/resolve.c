/* notary/resolve: name resolution under a deadline (declared in internal.h).
 *
 * A lookup is shared by two parties, the waiter (the notarization that asked)
 * and its thread; `refs` counts those still holding it and the last one frees
 * it. Everything shared -- a lookup's refs, done, gai and res, the resolver's
 * refs, running count and per-client counts -- changes only under the
 * resolver's mutex. Invariants: running == the number of lookup threads that
 * have not finished getaddrinfo, and every client's counts are what those
 * threads hold; a lookup's eventfd is written exactly once, when done becomes 1;
 * the resolver lives while its owner or any thread holds it. */
#include "notary/internal.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/clock.h"

#define HOST_MAX 256

struct tb_notary_resolver {
    pthread_mutex_t mu;
    int refs; /* the owner (until released) + one per running thread */
    size_t running, max;
    tb_notary_quota2 per; /* running lookups per client address and prefix */
    tb_notary_lookup_fn lookup;
    void *ctx;
};

typedef struct lookup {
    tb_notary_resolver *r;
    int refs; /* the waiter (until it leaves) + the thread (until it ends) */
    int done, gai;
    struct addrinfo *res; /* owned until taken by the waiter */
    int efd;              /* eventfd, written when done */
    tb_notary_client who;
    char host[HOST_MAX], port[8];
} lookup;

static int default_lookup(void *ctx, const char *host, const char *port,
                          const struct addrinfo *hints, struct addrinfo **res)
{
    (void)ctx;
    return getaddrinfo(host, port, hints, res);
}

tb_notary_resolver *tb_notary_resolver_new(const tb_notary_resolver_opts *o, tb_err *err)
{
    if (!o->max || !o->per_addr || !o->per_prefix) {
        tb_errf(err, "resolver: the caps on lookups must be at least 1");
        return NULL;
    }
    tb_notary_resolver *r = calloc(1, sizeof *r);
    if (!r) {
        tb_errf(err, "resolver: out of memory");
        return NULL;
    }
    if (tb_notary_quota2_init(&r->per, o->max, o->per_addr, o->per_prefix, err) < 0) {
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->mu, NULL);
    r->refs = 1;
    r->max = o->max;
    r->lookup = o->lookup ? o->lookup : default_lookup;
    r->ctx = o->ctx;
    return r;
}

static void resolver_free(tb_notary_resolver *r)
{
    tb_notary_quota2_clear(&r->per);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

/* Drops one reference of r; the caller holds r->mu, which this releases. */
static void resolver_unref_unlock(tb_notary_resolver *r)
{
    int last = --r->refs == 0;
    pthread_mutex_unlock(&r->mu);
    if (last)
        resolver_free(r);
}

void tb_notary_resolver_release(tb_notary_resolver *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    resolver_unref_unlock(r);
}

size_t tb_notary_resolver_running(tb_notary_resolver *r)
{
    pthread_mutex_lock(&r->mu);
    size_t n = r->running;
    pthread_mutex_unlock(&r->mu);
    return n;
}

static void lookup_free(lookup *l)
{
    if (l->res)
        freeaddrinfo(l->res);
    close(l->efd);
    free(l);
}

static void *lookup_main(void *arg)
{
    lookup *l = arg;
    tb_notary_resolver *r = l->r;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    int gai = r->lookup(r->ctx, l->host, l->port, &hints, &res);
    pthread_mutex_lock(&r->mu);
    l->gai = gai;
    l->res = gai ? NULL : res;
    l->done = 1;
    r->running--;
    tb_notary_quota2_give(&r->per, &l->who);
    uint64_t one = 1;
    ssize_t w = write(l->efd, &one, sizeof one);
    (void)w; /* a fresh eventfd written once cannot overflow */
    int last = --l->refs == 0;
    if (last)
        lookup_free(l);
    resolver_unref_unlock(r);
    return NULL;
}

/* Counts a new lookup for who, or says why not (under r->mu). */
static int admit(tb_notary_resolver *r, const tb_notary_client *who, int *status, tb_err *err)
{
    if (r->running >= r->max) {
        *status = 503;
        return tb_errf(err, "%zu name resolutions in flight (the notary's limit): try again later",
                       r->running);
    }
    tb_notary_admit a = tb_notary_quota2_take(&r->per, who);
    if (a == TB_NOTARY_ADMIT_OK) {
        r->running++;
        return 0;
    }
    *status = 429;
    if (a == TB_NOTARY_ADMIT_ADDR)
        return tb_errf(err,
                       "this client address has %zu name resolutions in flight (the limit): "
                       "wait for them to end (the session is still unused)",
                       tb_notary_quota_count(&r->per.addr, who->addr));
    return tb_errf(err,
                   "this client's network (IPv4 /24, IPv6 /64) has %zu name resolutions in "
                   "flight (the limit): wait for them to end (the session is still unused)",
                   tb_notary_quota_count(&r->per.prefix, who->prefix));
}

/* Starts l's thread (l->refs = 2). Returns 0, or -1 (nothing started; the
 * counts are given back). */
static int start_lookup(tb_notary_resolver *r, lookup *l, int *status, tb_err *err)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&r->mu);
    if (admit(r, &l->who, status, err) < 0) {
        pthread_mutex_unlock(&r->mu);
        pthread_attr_destroy(&at);
        return -1;
    }
    r->refs++;
    l->refs = 2;
    pthread_t th;
    int e = pthread_create(&th, &at, lookup_main, l);
    if (e) {
        r->refs--;
        r->running--;
        tb_notary_quota2_give(&r->per, &l->who);
    }
    pthread_mutex_unlock(&r->mu);
    pthread_attr_destroy(&at);
    if (e) {
        *status = 503;
        errno = e;
        return tb_errno(err, "starting a name resolution thread");
    }
    return 0;
}

/* Waits until l is done, the deadline passes or cancel_fd is readable.
 * Returns 1 done, 0 deadline, -1 cancelled. */
static int wait_lookup(const lookup *l, uint64_t deadline_ns, int cancel_fd)
{
    for (;;) {
        uint64_t now = tb_mono_ns();
        if (now >= deadline_ns)
            return 0;
        int ms = (int)((deadline_ns - now + 999999) / 1000000);
        struct pollfd p[2] = {{l->efd, POLLIN, 0}, {cancel_fd, POLLIN, 0}};
        int n = poll(p, cancel_fd >= 0 ? 2 : 1, ms);
        if (n > 0 && cancel_fd >= 0 && p[1].revents)
            return -1;
        if (n > 0 && p[0].revents)
            return 1;
    }
}

/* A numeric host needs no lookup thread: 1 with *res, 0 when host is a name. */
static int numeric(const char *host, const char *port, struct addrinfo **res)
{
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST;
    return getaddrinfo(host, port, &hints, res) == 0;
}

int tb_notary_resolve(tb_notary_resolver *r, const tb_notary_client *who, const char *host,
                      uint16_t port, uint64_t deadline_ns, int cancel_fd, struct addrinfo **res,
                      int *status, tb_err *err)
{
    *res = NULL;
    char ps[8];
    snprintf(ps, sizeof ps, "%u", port);
    if (numeric(host, ps, res))
        return 0;
    if (tb_mono_ns() >= deadline_ns) { /* no time left: no thread either */
        *status = 504;
        return tb_errf(err, "resolving the name: no answer before the deadline");
    }
    if (strlen(host) >= HOST_MAX) {
        *status = 502;
        return tb_errf(err, "cannot resolve: the name is too long");
    }
    lookup *l = calloc(1, sizeof *l);
    if (!l || (l->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        free(l);
        *status = 503;
        return tb_errf(err, "cannot resolve: out of memory or file descriptors");
    }
    l->r = r;
    l->who = *who;
    snprintf(l->host, sizeof l->host, "%s", host);
    memcpy(l->port, ps, sizeof ps);
    if (start_lookup(r, l, status, err) < 0) {
        lookup_free(l);
        return -1;
    }
    int w = wait_lookup(l, deadline_ns, cancel_fd);
    pthread_mutex_lock(&r->mu);
    int done = l->done, gai = l->gai;
    if (done) {
        *res = l->res;
        l->res = NULL;
    }
    int last = --l->refs == 0;
    pthread_mutex_unlock(&r->mu);
    if (last)
        lookup_free(l);
    if (done && !gai)
        return 0;
    if (done) {
        *status = 502;
        return tb_errf(err, "cannot resolve: %s", gai_strerror(gai));
    }
    *status = w < 0 ? 503 : 504;
    return w < 0 ? tb_errf(err, "resolving the name: abandoned, the notary is stopping")
                 : tb_errf(err, "resolving the name: no answer before the deadline");
}
