/* fleet/fleet: the environment list and the sequence (see fleet.h).
 *
 * Invariants: f->envs is made once, by tb_fleet_plan, after every VM's label is
 * final, and holds each name once; tb_fleet_run goes through it in order and never
 * begins an environment once the stop flag is set; a VM started for an environment
 * is stopped before the next one begins (run_env_vm); every record handed to
 * hooks->done is in the result, and only those. */
#include "fleet/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/linkage.h"
#include "workloads/http.h"
#include "workloads/network.h"

tb_fleet *tb_fleet_new(const tb_fleet_opts *o)
{
    tb_fleet *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    if (o)
        f->o = *o;
    tb_vm_spec_init(&f->vm_spec);
    f->vm_spec.snapshot = 1; /* every kind boots the same disk: the first boot changes none */
    f->running = -1;
    return f;
}

void tb_fleet_free(tb_fleet *f)
{
    if (!f)
        return;
    tb_vm_state_free(&f->st);
    free(f);
}

int tb_fleet_add_target(tb_fleet *f, const char *spec, tb_err *err)
{
    if (f->n_targets == TB_FLEET_MAX_TARGETS)
        return tb_errf(err, "%s: at most %d targets", spec, TB_FLEET_MAX_TARGETS);
    tb_remote_target *t = &f->targets[f->n_targets];
    if (tb_remote_target_parse(spec, t, err) < 0)
        return -1;
    for (int i = 0; i < f->n_targets; i++)
        if (!strcmp(f->targets[i].name, t->name))
            return tb_errf(err, "%s: the name %s is used twice", spec, t->name);
    f->target_specs[f->n_targets++] = spec;
    return 0;
}

/* Environment i of the list: with VMs this machine, then each VM, then the targets. */
static void env_make(const tb_fleet *f, int i, tb_fleet_env *e)
{
    int nv = f->n_vms ? 1 + f->n_vms : 0;
    memset(e, 0, sizeof *e);
    e->vm = -1;
    if (i >= nv) {
        e->t = f->targets[i - nv];
        snprintf(e->where, sizeof e->where, "%s", strchr(f->target_specs[i - nv], '=') + 1);
        return;
    }
    if (i == 0) {
        e->t.kind = TB_TARGET_LOCAL;
        snprintf(e->t.name, sizeof e->t.name, "%s", f->o.host_label ? f->o.host_label : "host");
        snprintf(e->where, sizeof e->where, "this machine");
        return;
    }
    const tb_fleet_vm *v = &f->vms[i - 1];
    e->t.kind = TB_TARGET_VM;
    snprintf(e->t.name, sizeof e->t.name, "%s", v->label);
    snprintf(e->t.vm, sizeof e->t.vm, "%s", v->label);
    snprintf(e->where, sizeof e->where, "a %s VM started here (vm:%s)",
             tb_vm_kind_name(v->env.kind), v->label);
    e->vm = i - 1;
}

int tb_fleet_plan(tb_fleet *f, tb_err *err)
{
    int rc = f->n_vms ? fleet_vm_plan(f, err) : 0;
    if (rc < 0)
        return rc;
    f->n_envs = (f->n_vms ? 1 + f->n_vms : 0) + f->n_targets;
    for (int i = 0; i < f->n_envs; i++) {
        env_make(f, i, &f->envs[i]);
        for (int j = 0; j < i; j++)
            if (!strcmp(f->envs[i].t.name, f->envs[j].t.name)) {
                tb_errf(err,
                        "%s names two environments (--label, --vm-kinds and --target names "
                        "must differ)",
                        f->envs[i].t.name);
                return TB_FLEET_USAGE;
            }
    }
    return 0;
}

int tb_fleet_check(const tb_fleet *f, const tb_suite_plan *p, tb_err *err)
{
    if (!f->o.net_client_local || !tb_suite_plan_enabled(p, &tb_wl_network))
        return 0;
    if (!f->n_envs) {
        tb_errf(err, "--net-client local: needs a --target NAME=ssh://... (the network "
                     "servers there, the clients here)");
        return TB_FLEET_USAGE;
    }
    for (int i = 0; i < f->n_envs; i++) /* a VM first: with --vm-kinds the host is too */
        if (f->envs[i].t.kind == TB_TARGET_VM) {
            tb_errf(err,
                    "--net-client local: %s is a VM (%s): only SSH is forwarded into it, so "
                    "the clients here cannot reach its servers (only ssh:// targets)",
                    f->envs[i].t.name, f->envs[i].where);
            return TB_FLEET_USAGE;
        }
    for (int i = 0; i < f->n_envs; i++)
        if (f->envs[i].t.kind == TB_TARGET_LOCAL) {
            tb_errf(err,
                    "--net-client local: %s is this machine: its clients and servers would "
                    "both be here (only ssh:// targets)",
                    f->envs[i].t.name);
            return TB_FLEET_USAGE;
        }
    return 0;
}

int tb_fleet_remote_args(const tb_fleet_opts *o, const char *workloads, const char *extra_set,
                         const char **out, int cap)
{
    int n = 0;
#define ARG(x)                                                                                     \
    do {                                                                                           \
        if (n + 1 >= cap)                                                                          \
            return -1;                                                                             \
        out[n++] = (x);                                                                            \
    } while (0)
    if (o->profile) {
        ARG("--profile");
        ARG(o->profile);
    }
    if (workloads || o->workloads) {
        ARG("--workloads");
        ARG(workloads ? workloads : o->workloads);
    }
    if (o->repeat) {
        ARG("--repeat");
        ARG(o->repeat);
    }
    for (int i = 0; i < o->n_sets; i++) {
        ARG("--set");
        ARG(o->sets[i]);
    }
    if (extra_set) {
        ARG("--set");
        ARG(extra_set);
    }
#undef ARG
    out[n] = NULL;
    return n;
}

/* build/teebench-static beside this teebench (`make static`), copied to remotes where
   this build cannot run (suite/remote); NULL when there is none or this is it. */
static const char *static_beside(const char *self, char *out, size_t len)
{
    const char *slash = strrchr(self, '/');
    if (tb_linkage_static() || !slash ||
        snprintf(out, len, "%.*s/teebench-static", (int)(slash - self), self) >= (int)len)
        return NULL;
    return access(out, X_OK) == 0 && strcmp(out, self) ? out : NULL;
}

/* One environment: here (a local target) or elsewhere. 0 and *out, or -1 with err;
 *failed set when a step before its suite failed there (--guest-setup). */
static int run_env(const tb_fleet *f, const tb_suite_plan *p, const tb_fleet_env *e,
                   const char *control_dir, const tb_fleet_hooks *h, tb_record **out, int *failed,
                   tb_err *err)
{
    tb_suite_hooks sh = h->suite;
    if (e->t.kind == TB_TARGET_LOCAL) {
        tb_suite_plan lp = *p;
        snprintf(lp.label, sizeof lp.label, "%s", e->t.name);
        return tb_suite_run(&lp, &sh, out, err);
    }
    tb_remote_target rt = e->t;
    if (rt.kind == TB_TARGET_VM && fleet_vm_target(f, &rt, h, err) < 0)
        return -1;
    char fallback[PATH_MAX];
    fleet_note_user(p, &rt, h);
    tb_remote_opts o = {.local_binary = p->self_exe,
                        .fallback_binary = static_beside(p->self_exe, fallback, sizeof fallback),
                        .remote_binary = f->o.remote_binary,
                        .ssh_config = f->o.ssh_config,
                        .control_dir = control_dir,
                        .suite_doc = f->o.suite_doc,
                        .ssh_program = f->o.ssh_program,
                        .stop_grace_ms = f->o.stop_grace_ms};
    const tb_wl_http_params *hp = tb_suite_plan_params(p, &tb_wl_http);
    int split = f->o.http_client_local && tb_suite_plan_enabled(p, &tb_wl_http) && hp->nginx;
    if (split && rt.kind == TB_TARGET_VM)
        return tb_errf(err, "--http-client local: not for vm: targets (only SSH is forwarded "
                            "into the guest)");
    /* (tb_fleet_check refuses it before the run; a caller that did not check is told
       here) */
    int nsplit = f->o.net_client_local && tb_suite_plan_enabled(p, &tb_wl_network);
    if (nsplit && e->t.kind == TB_TARGET_VM)
        return tb_errf(err, "--net-client local: not for vm: targets (only SSH is forwarded "
                            "into the guest)");
    if (f->o.guest_setup)
        fleet_guest_setup(p, &rt, &o, h, failed);
    tb_record *http = NULL, *net = NULL;
    char workloads[256] = "";
    if (split && fleet_http_from_here(p, &rt, &o, h, &http, err) < 0)
        return -1;
    if (nsplit && fleet_network_from_here(p, &rt, &o, h, &net, err) < 0) {
        tb_record_free(http);
        return -1;
    }
    if (split || nsplit)
        tb_fleet_split_workloads(p, split, nsplit, workloads, sizeof workloads);
    const char *args[160];
    if (tb_fleet_remote_args(&f->o, split || nsplit ? workloads : NULL,
                             split && hp->serve_tls ? "http.targets=serve-tls" : NULL, args,
                             160) < 0) {
        tb_record_free(http);
        tb_record_free(net);
        return tb_errf(err, "too many suite arguments for a remote run");
    }
    o.suite_args = (char *const *)args;
    int rc = tb_remote_run(&rt, &o, &sh, out, err);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (rc == 0 && ((http && tb_fleet_merge_http(*out, http, host, err) < 0) ||
                    (net && tb_fleet_merge_network(*out, net, host, err) < 0))) {
        tb_record_free(*out);
        *out = NULL;
        rc = -1;
    }
    tb_record_free(net);
    tb_record_free(http);
    return rc;
}

/* One environment with its VM around it: started before and stopped after (on every
   path; a VM that cannot be stopped is said and sets *failed), a VM's facts added to
   its record. 0 and *out, or -1 with err. */
static int run_env_vm(tb_fleet *f, const tb_suite_plan *p, const tb_fleet_env *e,
                      const char *control_dir, const tb_fleet_hooks *h, tb_record **out,
                      int *failed, tb_err *err)
{
    int rc = e->vm >= 0 ? fleet_vm_start(f, e->vm, &h->suite, err) : 0;
    if (rc == 0)
        rc = run_env(f, p, e, control_dir, h, out, failed, err);
    char base[1024];
    tb_err ve;
    if (rc == 0 && e->t.kind == TB_TARGET_VM &&
        (fleet_vm_base(f->o.vm_dir, base, sizeof base, &ve) < 0 ||
         fleet_vm_annotate(base, e->t.vm, e->vm >= 0 ? f->qemu_version : NULL, *out, &ve) < 0))
        fleet_say(h, TB_FLEET_ERROR, "%s: the VM's facts are not in the record: %s", e->t.name,
                  ve.msg);
    const volatile sig_atomic_t *stop = h->suite.stop;
    if (e->vm >= 0 && fleet_vm_stop(f, &h->suite, stop && *stop, &ve) < 0) {
        fleet_say(h, TB_FLEET_ERROR, "%s: %s", e->t.name, ve.msg);
        *failed = 1;
        return rc;
    }
    if (rc == 0 && e->vm >= 0 && f->o.n_boot_memory && !(stop && *stop) &&
        fleet_vm_boot_sizes(f, e->vm, *out, h, &ve) < 0) {
        fleet_say(h, TB_FLEET_ERROR, "%s: %s", e->t.name, ve.msg);
        *failed = 1;
    }
    return rc;
}

int tb_fleet_run(tb_fleet *f, const tb_suite_plan *p, const tb_fleet_hooks *h, tb_fleet_result *res,
                 tb_err *err)
{
    memset(res, 0, sizeof *res);
    char control_dir[] = "/tmp/teebench-ssh-XXXXXX"; /* short: socket paths are limited */
    if (!mkdtemp(control_dir))
        return tb_errno(err, "control socket directory");
    const volatile sig_atomic_t *stop = h->suite.stop;
    for (int i = 0; i < f->n_envs && !(stop && *stop); i++) {
        const tb_fleet_env *e = &f->envs[i];
        if (e->vm >= 0 && f->vms[e->vm].refused) { /* said by tb_fleet_preflight */
            res->failed = 1;
            continue;
        }
        if (h->begin)
            h->begin(e, h->ctx);
        tb_record *r = NULL;
        tb_err ee;
        if (run_env_vm(f, p, e, control_dir, h, &r, &res->failed, &ee) < 0) {
            fleet_say(h, TB_FLEET_ERROR, "%s: %s", e->t.name, ee.msg);
            res->failed = 1;
            continue;
        }
        res->recs[res->n] = r;
        res->env[res->n++] = i;
        if (h->done)
            h->done(e, r, h->ctx);
    }
    rmdir(control_dir);
    return 0;
}

void tb_fleet_result_clear(tb_fleet_result *res)
{
    for (size_t i = 0; i < res->n; i++)
        tb_record_free(res->recs[i]);
    memset(res, 0, sizeof *res);
}
