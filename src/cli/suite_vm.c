/* cli/suite_vm: see suite_vm.h. */
#include "cli/suite_vm.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/vm_flags.h"
#include "vm/image.h"

#define CMD "suite"

void cli_suite_vms_init(cli_suite_vms *v)
{
    memset(v, 0, sizeof *v);
    tb_vm_spec_init(&v->spec);
    v->spec.snapshot = 1; /* every kind boots the same disk: the first boot changes none */
    v->running = -1;
}

int cli_suite_vms_flag(cli_suite_vms *v, int c, const char *value)
{
    if (!v->flag)
        v->flag = c;
    return cli_vm_flag_take(CMD, cli_vm_flags_suite, c, value, &v->spec);
}

/* The spec of kind i, named name. */
static void spec_of(const cli_suite_vms *v, int i, const char *name, tb_vm_spec *s)
{
    *s = v->spec;
    s->kind = v->envs[i].kind;
    s->swiotlb = v->envs[i].swiotlb;
    snprintf(s->name, sizeof s->name, "%s", name);
}

int cli_suite_vms_check(cli_suite_vms *v)
{
    tb_err e;
    if (!v->kinds) {
        if (!v->flag)
            return 0;
        for (const struct option *o = cli_vm_flags_suite; o->name; o++)
            if (o->val == v->flag)
                return cli_fail_code(2, CMD, "--%s: describes the VMs of --vm-kinds (none given)",
                                     o->name);
        return cli_fail_code(2, CMD, "VM flags need --vm-kinds");
    }
    if (tb_suite_vm_kinds_parse(v->kinds, v->envs, TB_SUITE_VM_MAX, &v->n, &e) < 0)
        return cli_fail_code(2, CMD, "--vm-kinds %s: %s", v->kinds, e.msg);
    if (!v->spec.image && !v->spec.kernel) {
        /* the image `teebench vm image` keeps in the data directory */
        if (tb_vm_image_default_path(TB_VM_IMAGE_DEFAULT_SUITE, 0, v->default_image,
                                     sizeof v->default_image, &e) < 0)
            return cli_fail_code(2, CMD,
                                 "--vm-kinds: nothing to boot (no --image or --kernel) "
                                 "and no default image: %s",
                                 e.msg);
        v->spec.image = v->default_image;
        v->build_image = access(v->default_image, R_OK) != 0;
    }
    for (int i = 0; i < v->n; i++) {
        tb_vm_spec s;
        spec_of(v, i, v->envs[i].label, &s);
        if (tb_vm_spec_check(&s, &e) < 0)
            return cli_fail_code(2, CMD, "--vm-kinds: %s: %s", v->envs[i].label, e.msg);
    }
    return 0;
}

int cli_suite_vm_base(const char *vm_dir, char *out, size_t len, tb_err *err)
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

int cli_suite_vms_plan(cli_suite_vms *v, const char *vm_dir)
{
    tb_err e;
    if (!v->n)
        return 0;
    if (cli_suite_vm_base(vm_dir, v->base, sizeof v->base, &e) < 0)
        return cli_fail_code(2, CMD, "%s", e.msg);
    tb_vm_host h;
    const char *tmp = getenv("TMPDIR");
    if (tb_vm_host_probe_spec(&v->spec, tmp && tmp[0] == '/' ? tmp : "/tmp", NULL, &h, &e) < 0)
        return cli_fail(CMD, "%s", e.msg);
    const tb_vm_qemu *q = &h.qemu[v->envs[0].kind];
    if (q->major || q->minor)
        snprintf(v->qemu_version, sizeof v->qemu_version, "%d.%d.%d", q->major, q->minor, q->micro);
    for (int i = 0; i < v->n; i++) {
        tb_vm_spec s;
        spec_of(v, i, v->envs[i].label, &s);
        v->refused[i] = tb_vm_plan_make(&s, &h, 0, &v->plans[i], &e) < 0;
        if (v->refused[i])
            snprintf(v->why[i], sizeof v->why[i], "%s", e.msg);
        tb_suite_vm_label(&v->envs[i], !v->refused[i] && v->plans[i].tcg, v->labels[i],
                          sizeof v->labels[i]);
    }
    return 0;
}

/* The default image, built now when it is not there yet (minutes, said first). */
static int build_default_image(cli_suite_vms *v)
{
    tb_err e;
    char self[1024], log[1200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return cli_fail(CMD, "--vm-kinds: cannot find this teebench (/proc/self/exe)");
    self[n] = 0;
    tb_vm_image_recipe r = {
        .suite = TB_VM_IMAGE_DEFAULT_SUITE, .output = v->default_image, .teebench = self};
    if (tb_vm_image_check(&r, &e) < 0)
        return cli_fail(CMD,
                        "--vm-kinds: nothing to boot: no --image or --kernel, and the default "
                        "guest image (%s) cannot be built here: %s",
                        v->default_image, e.msg);
    fprintf(stderr,
            "teebench: suite: no --image: building the guest image %s once (teebench vm image: "
            "Debian 12 with cloud-init, openssh-server, nginx and this teebench; a few minutes)\n",
            v->default_image);
    fflush(stderr);
    if (tb_vm_image_build(&r, NULL, log, sizeof log, &e) < 0)
        return cli_fail(CMD, "--vm-kinds: building the default guest image %s failed: %s",
                        v->default_image, e.msg);
    v->build_image = 0;
    return 0;
}

int cli_suite_vms_preflight(cli_suite_vms *v)
{
    tb_err e;
    int runnable = 0;
    for (int i = 0; i < v->n; i++)
        runnable |= !v->refused[i];
    if (v->build_image && runnable && build_default_image(v) != 0)
        return 1;
    for (int i = 0; i < v->n; i++) {
        tb_vm_spec s;
        spec_of(v, i, v->labels[i], &s);
        if (!v->refused[i] && tb_vm_preflight(&s, v->base, &e) < 0)
            return cli_fail(CMD, "%s: %s", v->labels[i], e.msg);
    }
    for (int i = 0; i < v->n; i++) {
        if (v->refused[i])
            cli_fail(CMD, "%s: refused: %s", v->labels[i], v->why[i]);
        for (int k = 0; !v->refused[i] && k < v->plans[i].nnotes; k++)
            fprintf(stderr, "teebench: suite: %s: NOTE: %s\n", v->labels[i], v->plans[i].notes[k]);
    }
    fflush(stderr);
    return 0;
}

/* One INFO event through the hooks (the printer tags it with the environment). */
static void info(tb_suite_hooks *hooks, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(tb_suite_hooks *hooks, const char *fmt, ...)
{
    if (!hooks || !hooks->progress)
        return;
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    tb_suite_event ev = {.kind = TB_SUITE_EV_INFO,
                         .workload = "",
                         .target = "",
                         .status = "",
                         .text = text,
                         .eta_s = -1};
    hooks->progress(&ev, hooks->ctx);
}

int cli_suite_vms_start(cli_suite_vms *v, int i, tb_suite_hooks *hooks, tb_err *err)
{
    if (v->refused[i])
        return tb_errf(err, "refused on this host (said above)");
    tb_vm_spec s;
    spec_of(v, i, v->labels[i], &s);
    s.stop = hooks ? hooks->stop : NULL;
    info(hooks, "starting VM %s (%s, %s, %d vCPU%s, %llu MiB) in %s", s.name,
         tb_vm_spec_kind_label(&s), v->plans[i].tcg ? "TCG EMULATION" : "KVM", s.cpus,
         s.cpus == 1 ? "" : "s", (unsigned long long)(s.memory >> 20), v->base);
    if (tb_vm_start(&s, &v->plans[i], v->base, &v->st, err) < 0)
        return tb_err_wrap(err, "starting VM %s", s.name);
    v->running = i;
    char url[128];
    tb_vm_ssh_url(&v->st, url, sizeof url);
    info(hooks, "booted in %.1f s (vm start to the first SSH login), %s", v->st.boot_ns / 1e9, url);
    if (v->st.swiotlb_param[0]) /* regular-swiotlb: tb_vm_start checked the guest has it */
        info(hooks, "bounce buffers forced: the guest's /proc/cmdline has %s (%s)",
             v->st.swiotlb_param, v->st.swiotlb_how);
    return 0;
}

int cli_suite_vms_stop(cli_suite_vms *v, tb_suite_hooks *hooks, int interrupted, tb_err *err)
{
    if (v->running < 0)
        return 0;
    tb_vm_stop_how how;
    pid_t pid = v->st.pid;
    int rc = tb_vm_stop(&v->st, interrupted ? 5000 : 30000, &how, err);
    static const char *const said[] = {"was not running any more", "powered off",
                                       "stopped (QMP quit)", "killed (SIGKILL)"};
    if (rc == 0)
        info(hooks, "VM %s (QEMU pid %d) %s", v->st.name, (int)pid, said[how]);
    else
        tb_err_wrap(err, "stopping VM %s (QEMU pid %d)", v->st.name, (int)pid);
    tb_vm_state_free(&v->st);
    v->running = -1;
    return rc;
}

int cli_suite_vm_annotate(const char *base, const char *name, const char *qemu_version,
                          tb_record *r, tb_err *err)
{
    tb_vm_state st;
    if (tb_vm_load(base, name, &st, err) < 0)
        return -1;
    int rc = tb_suite_vm_annotate(r, &st, qemu_version && *qemu_version ? qemu_version : NULL, err);
    tb_vm_state_free(&st);
    return rc;
}
