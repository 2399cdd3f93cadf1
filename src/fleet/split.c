/* fleet/split: `suite run --http-client local`, the source document's setup for an
 * ssh target -- nginx runs in the environment under test (started there with
 * `teebench nginx start`, on the address ssh reaches, a port chosen here), the load
 * generator here, so the environment's network path is part of the figure; the rest
 * of the suite runs there, and the http.nginx.* metrics measured from here are merged
 * into that environment's record.
 *
 * Invariants: the nginx started there is stopped again on every path after it
 * started (a failure to stop it is said, not fatal), and the run directories made
 * there for it are removed; only the http workload's metrics of target nginx (by its
 * table) are merged, and only from a load run that completed. */
#include "fleet/internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "workloads/http.h"

int tb_fleet_split_port(unsigned long seed, int attempt)
{
    return 20000 + (int)((seed + (unsigned long)attempt * 104729) % 40000);
}

void tb_fleet_split_workloads(const tb_suite_plan *p, char *out, size_t n)
{
    const tb_wl_http_params *h = tb_suite_plan_params(p, &tb_wl_http);
    out[0] = 0;
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (!p->enabled[i] || (w->flags & TB_WL_ALWAYS) || (w == &tb_wl_http && !h->serve_tls))
            continue;
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s", l ? "," : "", w->name);
    }
    if (!out[0])
        snprintf(out, n, "env");
}

/* Removes the run directories nginx start made there (dirs[0..n)); a failure is said. */
static void remove_dirs(const tb_remote_target *t, const tb_remote_opts *o, char dirs[][128], int n,
                        const tb_suite_hooks *sh)
{
    tb_buf cmd = {0};
    int rc = tb_buf_puts(&cmd, "rm -rf --");
    for (int i = 0; i < n && rc == 0; i++)
        rc = tb_buf_puts(&cmd, " ") < 0 || tb_remote_shell_quote(dirs[i], &cmd) < 0 ? -1 : 0;
    tb_err e;
    int code = 0;
    if (rc < 0)
        tb_suite_info(sh, "removing nginx's run directory there: out of memory");
    else if (tb_remote_sh(t, o, (const char *)cmd.p, 30000, NULL, NULL, NULL, &code, &e) < 0 ||
             code != 0)
        tb_suite_info(sh, "removing nginx's run directory %s there: %s", dirs[0],
                      code ? "rm failed" : e.msg);
    tb_buf_clear(&cmd);
}

int fleet_http_from_here(const tb_suite_plan *p, const tb_remote_target *t, const tb_remote_opts *o,
                         const tb_fleet_hooks *h, tb_record **out, tb_err *err)
{
    char host[256], dirs[3][128], port[16], url[320];
    if (tb_remote_hostname(t, o, host, sizeof host, err) < 0)
        return -1;
    int v6 = strchr(host, ':') != NULL;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long seed = (unsigned long)(ts.tv_nsec / 1000) + (unsigned long)getpid() * 7919;
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
        remove_dirs(t, o, dirs, n, &sh);
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
        remove_dirs(t, o, dirs, n, &sh);
    if (rc == 0 && strcmp((*out)->status, "complete")) {
        rc = tb_errf(err, "--http-client local: the load from here %s",
                     !strcmp((*out)->status, "interrupted") ? "was interrupted" : "failed");
        tb_record_free(*out);
        *out = NULL;
    }
    return rc;
}

int tb_fleet_merge_http(tb_record *r, const tb_record *http, const char *client_host, tb_err *err)
{
    for (size_t i = 0; i < http->n_metrics; i++) {
        const tb_metric *m = &http->metrics[i];
        tb_wl_match wm; /* the http workload's metrics of target nginx */
        if (!tb_wl_metric_find(m->name, &wm) || wm.workload != &tb_wl_http ||
            strcmp(wm.part, "nginx"))
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
    json_array_foreach(http->commands, n, c) json_array_append(r->commands, c);
    json_object_set_new(r->extra, "http_client",
                        json_pack("{s:s, s:s, s:o}", "mode", "local", "client", client_host, "env",
                                  json_deep_copy(http->env)));
    /* the remote ran the profile's other workloads (--set http.targets marked them
       "custom"); nginx's were measured from here: together, the profile's suite */
    if (http->profile && tb_record_set_str(&r->profile, http->profile, err) < 0)
        return -1;
    return 0;
}
