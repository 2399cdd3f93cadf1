/* fleet/vm: the VMs of `suite run --vm-kinds` (see fleet.h). Before the first
 * environment runs every kind is checked (tb_fleet_set_vm_kinds: no host access),
 * planned on this host (fleet_vm_plan: a refusal -- a TD on a host without TDX, a
 * QEMU build without its object -- is kept and fails that environment alone) and
 * preflighted (tb_fleet_preflight: unreadable boot files, a name already running:
 * nothing runs). At its turn a VM is started (its boot time kept), the suite runs
 * inside through suite/remote as a vm:NAME target, the record gets the VM's facts
 * (fleet/vmenv) and the VM is stopped.
 *
 * Invariants: one VM runs at a time (f->running, f->st); each lives in the VM run
 * directory under its environment label, so `teebench vm list|ssh` see it while the
 * suite runs there; a TCG guest's label ends in "-tcg" and a note says that no figure
 * from it means anything; a start that fails or is interrupted leaves nothing running
 * (vm/vm). Progress is INFO events; refusals and notes go to hooks->say. */
#include "fleet/internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/image.h"

/* The spec of VM i, named name. */
static void spec_of(const tb_fleet *f, int i, const char *name, tb_vm_spec *s)
{
    *s = f->vm_spec;
    s->kind = f->vms[i].env.kind;
    s->swiotlb = f->vms[i].env.swiotlb;
    snprintf(s->name, sizeof s->name, "%s", name);
}

int tb_fleet_set_vm_kinds(tb_fleet *f, const char *kinds, tb_err *err)
{
    tb_fleet_vm_env envs[TB_FLEET_VM_MAX];
    tb_err e;
    int n = 0;
    if (tb_fleet_vm_kinds_parse(kinds, envs, TB_FLEET_VM_MAX, &n, &e) < 0)
        return tb_errf(err, "--vm-kinds %s: %s", kinds, e.msg);
    f->n_vms = n;
    for (int i = 0; i < n; i++) {
        memset(&f->vms[i], 0, sizeof f->vms[i]);
        f->vms[i].env = envs[i];
    }
    if (!f->vm_spec.image && !f->vm_spec.kernel) {
        /* the image `teebench vm image` keeps in the data directory */
        if (tb_vm_image_default_path(TB_VM_IMAGE_DEFAULT_SUITE, 0, f->default_image,
                                     sizeof f->default_image, &e) < 0)
            return tb_errf(err,
                           "--vm-kinds: nothing to boot (no --image or --kernel) and no "
                           "default image: %s",
                           e.msg);
        f->vm_spec.image = f->default_image;
        f->build_image = access(f->default_image, R_OK) != 0;
    }
    for (int i = 0; i < f->n_vms; i++) {
        tb_vm_spec s;
        spec_of(f, i, f->vms[i].env.label, &s);
        if (tb_vm_spec_check(&s, &e) < 0)
            return tb_errf(err, "--vm-kinds: %s: %s", f->vms[i].env.label, e.msg);
    }
    return 0;
}

int fleet_vm_base(const char *vm_dir, char *out, size_t len, tb_err *err)
{
    if (!vm_dir)
        return tb_vm_default_dir(out, len, err);
    char cwd[PATH_MAX];
    if (vm_dir[0] != '/' && !getcwd(cwd, sizeof cwd))
        return tb_errno(err, "--vm-dir %s: the working directory", vm_dir);
    /* absolute: QEMU -daemonize changes to / */
    if ((vm_dir[0] == '/' ? snprintf(out, len, "%s", vm_dir)
                          : snprintf(out, len, "%s/%s", cwd, vm_dir)) >= (int)len)
        return tb_errf(err, "--vm-dir %s: path too long", vm_dir);
    return 0;
}

int fleet_vm_plan(tb_fleet *f, tb_err *err)
{
    if (fleet_vm_base(f->o.vm_dir, f->vm_base, sizeof f->vm_base, err) < 0)
        return TB_FLEET_USAGE;
    tb_vm_host host;
    const char *tmp = getenv("TMPDIR");
    if (tb_vm_host_probe_spec(&f->vm_spec, tmp && tmp[0] == '/' ? tmp : "/tmp", NULL, &host, err) <
        0)
        return -1;
    const tb_vm_qemu *q = &host.qemu[f->vms[0].env.kind];
    if (q->major || q->minor)
        snprintf(f->qemu_version, sizeof f->qemu_version, "%d.%d.%d", q->major, q->minor, q->micro);
    for (int i = 0; i < f->n_vms; i++) {
        tb_fleet_vm *v = &f->vms[i];
        tb_vm_spec s;
        tb_err e;
        spec_of(f, i, v->env.label, &s);
        v->refused = tb_vm_plan_make(&s, &host, 0, &v->plan, &e) < 0;
        if (v->refused)
            snprintf(v->why, sizeof v->why, "%s", e.msg);
        tb_fleet_vm_label(&v->env, !v->refused && v->plan.tcg, v->label, sizeof v->label);
    }
    return 0;
}

/* The default image, built now when it is not there yet (minutes: said first). */
static int build_default_image(tb_fleet *f, const tb_fleet_hooks *h, tb_err *err)
{
    tb_err e;
    char self[1024], log[1200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return tb_errf(err, "--vm-kinds: cannot find this teebench (/proc/self/exe)");
    self[n] = 0;
    tb_vm_image_recipe r = {
        .suite = TB_VM_IMAGE_DEFAULT_SUITE, .output = f->default_image, .teebench = self};
    if (tb_vm_image_check(&r, &e) < 0)
        return tb_errf(err,
                       "--vm-kinds: nothing to boot: no --image or --kernel, and the default "
                       "guest image (%s) cannot be built here: %s",
                       f->default_image, e.msg);
    fleet_say(h, TB_FLEET_NOTE,
              "no --image: building the guest image %s once (teebench vm image: Debian 12 "
              "with cloud-init, openssh-server, nginx and this teebench; a few minutes)",
              f->default_image);
    if (tb_vm_image_build(&r, NULL, log, sizeof log, &e) < 0)
        return tb_errf(err, "--vm-kinds: building the default guest image %s failed: %s",
                       f->default_image, e.msg);
    f->build_image = 0;
    return 0;
}

int tb_fleet_preflight(tb_fleet *f, const tb_fleet_hooks *h, tb_err *err)
{
    int runnable = 0;
    for (int i = 0; i < f->n_vms; i++)
        runnable |= !f->vms[i].refused;
    if (f->build_image && runnable && build_default_image(f, h, err) < 0)
        return -1;
    for (int i = 0; i < f->n_vms; i++) {
        tb_vm_spec s;
        tb_err e;
        spec_of(f, i, f->vms[i].label, &s);
        if (!f->vms[i].refused && tb_vm_preflight(&s, f->vm_base, &e) < 0)
            return tb_errf(err, "%s: %s", f->vms[i].label, e.msg);
    }
    for (int i = 0; i < f->n_vms; i++) {
        const tb_fleet_vm *v = &f->vms[i];
        if (v->refused)
            fleet_say(h, TB_FLEET_ERROR, "%s: refused: %s", v->label, v->why);
        for (int k = 0; !v->refused && k < v->plan.nnotes; k++)
            fleet_say(h, TB_FLEET_NOTE, "%s: NOTE: %s", v->label, v->plan.notes[k]);
    }
    return 0;
}

int fleet_vm_start(tb_fleet *f, int i, const tb_suite_hooks *h, tb_err *err)
{
    const tb_fleet_vm *v = &f->vms[i];
    if (v->refused)
        return tb_errf(err, "refused on this host (said above)");
    tb_vm_spec s;
    spec_of(f, i, v->label, &s);
    s.stop = h ? h->stop : NULL;
    tb_suite_info(h, "starting VM %s (%s, %s, %d vCPU%s, %llu MiB) in %s", s.name,
                  tb_vm_spec_kind_label(&s), v->plan.tcg ? "TCG EMULATION" : "KVM", s.cpus,
                  s.cpus == 1 ? "" : "s", (unsigned long long)(s.memory >> 20), f->vm_base);
    if (tb_vm_start(&s, &v->plan, f->vm_base, &f->st, err) < 0)
        return tb_err_wrap(err, "starting VM %s", s.name);
    f->running = i;
    char url[128];
    tb_vm_ssh_url(&f->st, url, sizeof url);
    tb_suite_info(h, "booted in %.1f s (vm start to the first SSH login), %s", f->st.boot_ns / 1e9,
                  url);
    if (f->st.swiotlb_param[0]) /* regular-swiotlb: tb_vm_start checked the guest has it */
        tb_suite_info(h, "bounce buffers forced: the guest's /proc/cmdline has %s (%s)",
                      f->st.swiotlb_param, f->st.swiotlb_how);
    return 0;
}

int fleet_vm_stop(tb_fleet *f, const tb_suite_hooks *h, int interrupted, tb_err *err)
{
    if (f->running < 0)
        return 0;
    tb_vm_stop_how how;
    pid_t pid = f->st.pid;
    int rc = tb_vm_stop(&f->st, interrupted ? 5000 : 30000, &how, err);
    static const char *const said[] = {"was not running any more", "powered off",
                                       "stopped (QMP quit)", "killed (SIGKILL)"};
    if (rc == 0)
        tb_suite_info(h, "VM %s (QEMU pid %d) %s", f->st.name, (int)pid, said[how]);
    else
        tb_err_wrap(err, "stopping VM %s (QEMU pid %d)", f->st.name, (int)pid);
    tb_vm_state_free(&f->st);
    memset(&f->st, 0, sizeof f->st);
    f->running = -1;
    return rc;
}

/* vm.boot.mem.<N>mib.s = seconds, one sample (workloads/vm's sweep by memory). */
static int boot_point(tb_record *r, uint64_t memory, double s, int tcg, tb_err *err)
{
    char name[64];
    snprintf(name, sizeof name, "vm.boot.mem.%llumib.s", (unsigned long long)(memory >> 20));
    tb_wl_match wm;
    if (!tb_wl_metric_find(name, &wm))
        return tb_errf(err, "%s is in no workload's table", name);
    tb_metric *m =
        tb_record_metric(r, name, wm.metric->unit, wm.metric->better, wm.workload->name, err);
    return !m || tb_metric_add(m, s, err) < 0 ||
                   tb_metric_set_note(m,
                                      tcg ? "vm start to the first SSH login at this guest "
                                            "memory (TCG emulation)"
                                          : "vm start to the first SSH login at this guest memory",
                                      err) < 0
               ? -1
               : 0;
}

int fleet_vm_boot_sizes(tb_fleet *f, int i, tb_record *r, const tb_fleet_hooks *h, tb_err *err)
{
    const tb_fleet_vm *v = &f->vms[i];
    const volatile sig_atomic_t *stop = h->suite.stop;
    const tb_metric *own = tb_record_find(r, "vm.boot.s");
    tb_err e;
    if (own && own->n && boot_point(r, f->vm_spec.memory, own->samples[0], v->plan.tcg, &e) < 0)
        fleet_say(h, TB_FLEET_ERROR, "%s: %s", v->label, e.msg);
    for (int k = 0; k < f->o.n_boot_memory && !(stop && *stop); k++) {
        uint64_t mem = f->o.boot_memory[k];
        if (mem == f->vm_spec.memory)
            continue; /* the suite's own boot is that point */
        tb_vm_spec s;
        spec_of(f, i, v->label, &s);
        s.memory = mem;
        s.stop = stop;
        tb_suite_info(&h->suite, "booting VM %s again with %llu MiB (boot time by memory)", s.name,
                      (unsigned long long)(mem >> 20));
        if (tb_vm_start(&s, &v->plan, f->vm_base, &f->st, &e) < 0) {
            fleet_say(h, TB_FLEET_ERROR, "%s: the boot with %llu MiB: %s", v->label,
                      (unsigned long long)(mem >> 20), e.msg);
            continue;
        }
        f->running = i;
        tb_suite_info(&h->suite, "booted with %llu MiB in %.1f s", (unsigned long long)(mem >> 20),
                      f->st.boot_ns / 1e9);
        if (boot_point(r, mem, f->st.boot_ns / 1e9, v->plan.tcg, &e) < 0)
            fleet_say(h, TB_FLEET_ERROR, "%s: %s", v->label, e.msg);
        if (fleet_vm_stop(f, &h->suite, stop && *stop, err) < 0)
            return -1;
    }
    return 0;
}

int fleet_vm_annotate(const char *base, const char *name, const char *qemu_version, tb_record *r,
                      tb_err *err)
{
    tb_vm_state st;
    if (tb_vm_load(base, name, &st, err) < 0)
        return -1;
    int rc = tb_fleet_vm_annotate(r, &st, qemu_version && *qemu_version ? qemu_version : NULL, err);
    tb_vm_state_free(&st);
    return rc;
}

int fleet_vm_target(const tb_fleet *f, tb_remote_target *t, const tb_fleet_hooks *h, tb_err *err)
{
    char base[1024];
    if (fleet_vm_base(f->o.vm_dir, base, sizeof base, err) < 0)
        return -1;
    tb_vm_state st;
    if (tb_vm_load(base, t->vm, &st, err) < 0)
        return tb_err_wrap(err, "vm:%s", t->vm);
    int alive = tb_vm_alive(&st);
    snprintf(t->host, sizeof t->host, "127.0.0.1");
    t->port = st.ssh_port;
    snprintf(t->user, sizeof t->user, "%s", st.ssh_user[0] ? st.ssh_user : "root");
    snprintf(t->identity, sizeof t->identity, "%s", st.ssh_key);
    snprintf(t->known_hosts, sizeof t->known_hosts, "%s", st.paths.known_hosts);
    int tcg = st.tcg;
    tb_vm_state_free(&st);
    if (!alive)
        return tb_errf(err, "vm:%s is not running (teebench vm start %s ...)", t->vm, t->vm);
    if (tcg)
        fleet_say(h, TB_FLEET_NOTE,
                  "NOTE: vm:%s runs under TCG (emulation): no performance figure from it "
                  "means anything",
                  t->vm);
    return 0;
}
