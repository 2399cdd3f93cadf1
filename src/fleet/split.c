/* fleet/split: a workload's servers in an ssh target, its clients here, so the
 * environment's network path (virtio, a TD's bounce buffers) is part of the figure:
 * - `suite run --http-client local`, the source document's setup: nginx runs in the
 *   environment under test (started there with `teebench nginx start`, on the address
 *   ssh reaches, a port chosen here), the load generator here;
 * - `suite run --net-client local`: the network workload's servers (`teebench network
 *   serve --daemon` there: the echo server and the iperf3 servers, the same way), its
 *   clients (iperf3 -c, the round trips) here.
 * The rest of the suite runs there, and the metrics measured from here (http's of
 * target nginx, the network workload's) are merged into that environment's record.
 *
 * Invariants: the servers started there are stopped again on every path after they
 * started (a failure to stop them is said, not fatal), and the run directories made
 * there for them are removed (those of failed starts too); only the metrics the
 * workload's table names (http: of target nginx) are merged, and only from a run here
 * that completed. */
#include "fleet/internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "workloads/http.h"
#include "workloads/network.h"

int tb_fleet_split_port(unsigned long seed, int attempt)
{
    return 20000 + (int)((seed + (unsigned long)attempt * 104729) % 40000);
}

void tb_fleet_split_workloads(const tb_suite_plan *p, int http_here, int network_here, char *out,
                              size_t n)
{
    const tb_wl_http_params *h = tb_suite_plan_params(p, &tb_wl_http);
    out[0] = 0;
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (!p->enabled[i] || (w->flags & TB_WL_ALWAYS) ||
            (http_here && w == &tb_wl_http && !h->serve_tls) ||
            (network_here && w == &tb_wl_network))
            continue;
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s", l ? "," : "", w->name);
    }
    if (!out[0])
        snprintf(out, n, "env");
}

/* Removes the run directories what ("nginx", "the network servers") made there
   (dirs[0..n)); a failure is said. */
static void remove_dirs(const tb_remote_target *t, const tb_remote_opts *o, char dirs[][128], int n,
                        const char *what, const tb_suite_hooks *sh)
{
    tb_buf cmd = {0};
    int rc = tb_buf_puts(&cmd, "rm -rf --");
    for (int i = 0; i < n && rc == 0; i++)
        rc = tb_buf_puts(&cmd, " ") < 0 || tb_remote_shell_quote(dirs[i], &cmd) < 0 ? -1 : 0;
    tb_err e;
    int code = 0;
    if (rc < 0)
        tb_suite_info(sh, "removing the run directory of %s there: out of memory", what);
    else if (tb_remote_sh(t, o, (const char *)cmd.p, 30000, NULL, NULL, NULL, &code, &e) < 0 ||
             code != 0)
        tb_suite_info(sh, "removing the run directory of %s (%s) there: %s", what, dirs[0],
                      code ? "rm failed" : e.msg);
    tb_buf_clear(&cmd);
}

/* The seed of tb_fleet_split_port: the clock and this process. */
static unsigned long port_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long)(ts.tv_nsec / 1000) + (unsigned long)getpid() * 7919;
}

int fleet_http_from_here(const tb_suite_plan *p, const tb_remote_target *t, const tb_remote_opts *o,
                         const tb_fleet_hooks *h, tb_record **out, tb_err *err)
{
    char host[256], dirs[3][128], port[16], url[320];
    if (tb_remote_hostname(t, o, host, sizeof host, err) < 0)
        return -1;
    int v6 = strchr(host, ':') != NULL;
    unsigned long seed = port_seed();
    const tb_wl_http_params *params = tb_suite_plan_params(p, &tb_wl_http);
    char workers[16] = "auto";
    if (params->server_threads > 0)
        snprintf(workers, sizeof workers, "%d", params->server_threads);
    tb_suite_hooks sh = h->suite;
    int rc = -1, n = 0;
    for (; n < 3 && rc < 0; n++) {
        snprintf(port, sizeof port, "%d", tb_fleet_split_port(seed, n));
        snprintf(dirs[n], sizeof dirs[n], "/tmp/teebench-http-client.%s.%s", t->name, port);
        char *start[] = {"nginx", "start", "--addr",    host,    "--port", port,
                         "--dir", dirs[n], "--workers", workers, NULL};
        rc = tb_remote_teebench(t, o, start, sh.stop, NULL, err);
    }
    if (rc < 0) {
        remove_dirs(t, o, dirs, n, "nginx", &sh);
        return tb_err_wrap(err, "--http-client local: nginx on %s", t->host);
    }
    char *dir = dirs[n - 1];
    snprintf(url, sizeof url, v6 ? "http://[%s]:%s/" : "http://%s:%s/", host, port);
    tb_suite_info(&sh, "nginx at %s, the load generator here (--http-client local)", url);
    tb_suite_plan hp = *p;
    tb_wl_http_params *hh = tb_suite_plan_params(&hp, &tb_wl_http);
    for (size_t i = 0; i < tb_workload_count(); i++)
        hp.enabled[i] =
            (tb_workload_at(i)->flags & TB_WL_ALWAYS) || tb_workload_at(i) == &tb_wl_http;
    hh->serve_tls = 0;
    snprintf(hp.label, sizeof hp.label, "%s", t->name);
    if (snprintf(hh->nginx_url, sizeof hh->nginx_url, "%s", url) >= (int)sizeof hh->nginx_url)
        rc = tb_errf(err, "--http-client local: URL too long: %s", url);
    else
        rc = tb_suite_run(&hp, &sh, out, err);
    char *stop[] = {"nginx", "stop", "--dir", dir, NULL};
    tb_err e;
    if (tb_remote_teebench(t, o, stop, NULL, NULL, &e) < 0)
        tb_suite_info(&sh, "stopping nginx there: %s", e.msg);
    else
        remove_dirs(t, o, dirs, n, "nginx", &sh);
    if (rc == 0 && strcmp((*out)->status, "complete")) {
        rc = tb_errf(err, "--http-client local: the load from here %s",
                     !strcmp((*out)->status, "interrupted") ? "was interrupted" : "failed");
        tb_record_free(*out);
        *out = NULL;
    }
    return rc;
}

int fleet_network_from_here(const tb_suite_plan *p, const tb_remote_target *t,
                            const tb_remote_opts *o, const tb_fleet_hooks *h, tb_record **out,
                            tb_err *err)
{
    char host[256], dirs[3][128], port[16], procs[16], server[300];
    if (tb_remote_hostname(t, o, host, sizeof host, err) < 0)
        return -1;
    const tb_wl_network_params *np = tb_suite_plan_params(p, &tb_wl_network);
    /* as many iperf3 servers as the clients here may use, counted as for an iperf3 that
       carries a process's streams in one thread (the clients probe which kind theirs is
       only later; extra servers cost nothing); none when iperf3 is missing here: tcp and
       udp are skipped then, and the host there needs none */
    tb_err ie;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int k = tb_wl_network_have_iperf3(np->iperf3_bin, &ie) == 0
                ? tb_wl_network_server_procs(np, ncpu > 0 ? (int)ncpu : 1, 0)
                : 0;
    snprintf(procs, sizeof procs, "%d", k);
    tb_suite_hooks sh = h->suite;
    unsigned long seed = port_seed();
    int rc = -1, n = 0;
    for (; n < 3 && rc < 0 && !(sh.stop && *sh.stop); n++) {
        /* echo on the port, iperf3 on the ones after it: serve says when one is taken */
        snprintf(port, sizeof port, "%d", tb_fleet_split_port(seed, n));
        snprintf(dirs[n], sizeof dirs[n], "/tmp/teebench-net-client.%s.%s", t->name, port);
        char *start[] = {"network", "serve",  "--daemon", "--dir",   dirs[n], "--addr",
                         host,      "--port", port,       "--procs", procs,   NULL};
        rc = tb_remote_teebench(t, o, start, sh.stop, NULL, err);
    }
    if (rc < 0) {
        if (n == 0)
            tb_errf(err, "interrupted");
        remove_dirs(t, o, dirs, n, "the network servers", &sh);
        return tb_err_wrap(err, "--net-client local: the network servers on %s", t->host);
    }
    char *dir = dirs[n - 1];
    snprintf(server, sizeof server, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
    tb_suite_info(&sh,
                  "network servers at %s (echo; %s iperf3 after it), the clients here "
                  "(--net-client local)",
                  server, procs);
    tb_suite_plan lp = *p;
    for (size_t i = 0; i < tb_workload_count(); i++)
        lp.enabled[i] =
            (tb_workload_at(i)->flags & TB_WL_ALWAYS) || tb_workload_at(i) == &tb_wl_network;
    snprintf(lp.label, sizeof lp.label, "%s", t->name);
    rc = tb_wl_params_set(&tb_wl_network, tb_suite_plan_params(&lp, &tb_wl_network), "server",
                          server, NULL, err);
    if (rc == 0)
        rc = tb_suite_run(&lp, &sh, out, err);
    char *stop[] = {"network", "serve", "--stop", "--dir", dir, NULL};
    tb_err e;
    if (tb_remote_teebench(t, o, stop, NULL, NULL, &e) < 0)
        fleet_say(h, TB_FLEET_ERROR,
                  "%s: stopping the network servers there: %s (teebench network serve --stop "
                  "--dir %s, there)",
                  t->name, e.msg, dir);
    else
        remove_dirs(t, o, dirs, n, "the network servers", &sh);
    if (rc == 0 && strcmp((*out)->status, "complete")) {
        rc = tb_errf(err, "--net-client local: the clients here %s",
                     !strcmp((*out)->status, "interrupted") ? "were interrupted" : "failed");
        tb_record_free(*out);
        *out = NULL;
    }
    return rc;
}

/* Puts the metrics of here that workload w's table names (of target part, when not
   NULL) into r with their samples and notes, here's commands, its extra.skipped and
   .warnings (appended), extra.<key> {mode "local", client, env, versions: here's} and
   here's profile. 0, or -1 with err. */
static int merge_here(tb_record *r, const tb_record *here, const tb_workload *w, const char *part,
                      const char *key, const char *client_host, tb_err *err)
{
    for (size_t i = 0; i < here->n_metrics; i++) {
        const tb_metric *m = &here->metrics[i];
        tb_wl_match wm; /* the workload's metrics (of that target) */
        if (!tb_wl_metric_find(m->name, &wm) || wm.workload != w || (part && strcmp(wm.part, part)))
            continue;
        tb_metric *d = tb_record_metric(r, m->name, m->unit, m->better, m->workload, err);
        if (!d || (m->note && tb_metric_set_note(d, m->note, err) < 0))
            return -1;
        for (size_t k = 0; k < m->n; k++)
            if (tb_metric_add(d, m->samples[k], err) < 0)
                return -1;
    }
    size_t n;
    json_t *c;
    json_array_foreach(here->commands, n, c) json_array_append(r->commands, c);
    /* what was skipped or warned of here (iperf3 missing here: tcp and udp) is said in
       the record, never lost */
    static const char *const lists[] = {"skipped", "warnings"};
    for (int i = 0; i < 2; i++) {
        json_t *src = json_object_get(here->extra, lists[i]);
        json_t *dst = json_object_get(r->extra, lists[i]);
        if (!json_array_size(src))
            continue;
        if (!json_is_array(dst)) {
            dst = json_array();
            if (json_object_set_new(r->extra, lists[i], dst) < 0)
                return tb_errf(err, "out of memory");
        }
        if (json_array_extend(dst, src) < 0)
            return tb_errf(err, "out of memory");
    }
    json_object_set_new(r->extra, key,
                        json_pack("{s:s, s:s, s:o, s:o}", "mode", "local", "client", client_host,
                                  "env", json_deep_copy(here->env), "versions",
                                  here->versions ? json_deep_copy(here->versions) : json_object()));
    /* the remote ran the profile's other workloads (--set http.targets or --workloads
       marked them "custom"); these were measured from here: together, the profile's suite */
    if (here->profile && tb_record_set_str(&r->profile, here->profile, err) < 0)
        return -1;
    return 0;
}

int tb_fleet_merge_http(tb_record *r, const tb_record *http, const char *client_host, tb_err *err)
{
    return merge_here(r, http, &tb_wl_http, "nginx", "http_client", client_host, err);
}

int tb_fleet_merge_network(tb_record *r, const tb_record *net, const char *client_host, tb_err *err)
{
    return merge_here(r, net, &tb_wl_network, NULL, "network_client", client_host, err);
}
