/* fleet/vmenv: see vmenv.h. Pure: parsing, labels, and additions to a record. */
#include "fleet/vmenv.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "suite/suite.h"
#include "workloads/workload.h"

/* One item "KIND" or "LABEL=KIND" of len bytes. */
static int parse_item(const char *item, size_t len, tb_fleet_vm_env *e, tb_err *err)
{
    char text[128];
    if (len == 0)
        return tb_errf(err, "an empty entry (want KIND or LABEL=KIND, e.g. regular,tdx)");
    if (len >= sizeof text)
        return tb_errf(err, "'%.40s...': entry too long", item);
    memcpy(text, item, len);
    text[len] = 0;
    char *eq = strchr(text, '=');
    const char *kind = eq ? eq + 1 : text;
    if (tb_vm_kind_parse_ext(kind, &e->kind, &e->swiotlb, err) < 0)
        return tb_err_wrap(err, "%s", text);
    e->named = eq != NULL;
    if (!eq) {
        /* "vm-regular-swiotlb" whatever its pool: a pool of its own needs LABEL= to run
           next to another */
        snprintf(e->label, sizeof e->label, "vm-%s",
                 e->swiotlb ? "regular-swiotlb" : tb_vm_kind_name(e->kind));
        return 0;
    }
    *eq = 0;
    /* a label (lowercase) that is also a VM name, with room for nothing more */
    if (!tb_record_name_valid(text) || !tb_vm_name_ok(text))
        return tb_errf(err,
                       "%s=%s: the label must be 1..%d of [a-z0-9_.-], not starting with "
                       ". or - (it also names the VM)",
                       text, kind, TB_VM_NAME_MAX);
    memcpy(e->label, text, strlen(text) + 1); /* tb_vm_name_ok: it fits */
    return 0;
}

int tb_fleet_vm_kinds_parse(const char *list, tb_fleet_vm_env *out, int max, int *n, tb_err *err)
{
    *n = 0;
    if (!list || !*list)
        return tb_errf(err, "no kinds (want e.g. regular,tdx)");
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (*n == max)
            return tb_errf(err, "at most %d VMs", max);
        tb_fleet_vm_env *e = &out[*n];
        if (parse_item(p, len, e, err) < 0)
            return -1;
        for (int i = 0; i < *n; i++)
            if (!strcmp(out[i].label, e->label))
                return tb_errf(err,
                               "%s twice (give each its own label: LABEL=KIND, e.g. "
                               "a=regular,b=regular)",
                               e->label);
        (*n)++;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

void tb_fleet_vm_label(const tb_fleet_vm_env *e, int tcg, char *out, size_t len)
{
    snprintf(out, len, "%s%s", e->label, tcg && !e->named ? "-tcg" : "");
}

/* extra.vm.swiotlb: {"forced": true, "param", "nslabs", "pool_bytes", "how", "guest_cmdline"}
   for a regular-swiotlb VM, {"forced": false} for another (a TD's kernel bounces its I/O
   whatever: its env facts' "swiotlb" says with which pool). */
static json_t *vm_swiotlb(const tb_vm_state *st)
{
    if (!st->swiotlb_param[0])
        return json_pack("{s:b}", "forced", 0);
    return json_pack("{s:b, s:s, s:I, s:I, s:s, s:s}", "forced", 1, "param", st->swiotlb_param,
                     "nslabs", (json_int_t)(st->swiotlb_pool / TB_VM_SWIOTLB_SLAB), "pool_bytes",
                     (json_int_t)st->swiotlb_pool, "how", st->swiotlb_how, "guest_cmdline",
                     st->guest_cmdline);
}

/* vm.boot.<phase>.s for each phase the guest told (vm/boot.h), one sample each, the
   split's note on every one. */
static int add_phases(tb_record *r, const tb_vm_state *st, tb_err *err)
{
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++) {
        if (st->boot_phase_ns[i] < 0)
            continue;
        char name[64], note[440];
        snprintf(name, sizeof name, "vm.boot.%s.s", tb_vm_boot_phase_name(i));
        tb_wl_match wm;
        if (!tb_wl_metric_find(name, &wm))
            return tb_errf(err, "%s is in no workload's table", name);
        snprintf(note, sizeof note, "%s%s", st->boot_note, st->tcg ? " (TCG emulation)" : "");
        tb_metric *m =
            tb_record_metric(r, name, wm.metric->unit, wm.metric->better, wm.workload->name, err);
        if (!m || tb_metric_add(m, (double)st->boot_phase_ns[i] / 1e9, err) < 0 ||
            tb_metric_set_note(m, note, err) < 0)
            return -1;
    }
    return 0;
}

int tb_fleet_vm_annotate(tb_record *r, const tb_vm_state *st, const char *qemu_version, tb_err *err)
{
    double boot_s = (double)st->boot_ns / 1e9;
    if (st->boot_ns) {
        tb_wl_match wm; /* its unit and direction: workloads/vm's table */
        if (!tb_wl_metric_find(TB_FLEET_VM_BOOT_METRIC, &wm))
            return tb_errf(err, "%s is in no workload's table", TB_FLEET_VM_BOOT_METRIC);
        tb_metric *m = tb_record_metric(r, TB_FLEET_VM_BOOT_METRIC, wm.metric->unit,
                                        wm.metric->better, wm.workload->name, err);
        if (!m || tb_metric_add(m, boot_s, err) < 0 ||
            tb_metric_set_note(m,
                               !strcmp(st->swiotlb_how, "seed-reboot")
                                   ? (st->tcg ? "vm start to the SSH login after the seed's "
                                                "reboot into swiotlb=force (TCG emulation)"
                                              : "vm start to the SSH login after the seed's "
                                                "reboot into swiotlb=force")
                               : st->tcg ? "vm start to the first SSH login (TCG emulation)"
                                         : "vm start to the first SSH login",
                               err) < 0)
            return -1;
    }
    if (st->boot_ns && add_phases(r, st, err) < 0)
        return -1;
    json_t *vm =
        json_pack("{s:s, s:s, s:s, s:i, s:I, s:o, s:o}", "name", st->name, "kind",
                  tb_vm_kind_name(st->kind), "accel", st->tcg ? "tcg" : "kvm", "cpus", st->cpus,
                  "memory_mib", (json_int_t)(st->memory >> 20), "boot_s",
                  st->boot_ns ? json_real(boot_s) : json_null(), "swiotlb", vm_swiotlb(st));
    if (vm && st->qemu_path[0])
        json_object_set_new(vm, "qemu",
                            json_pack("{s:s, s:s, s:s}", "path", st->qemu_path, "version",
                                      st->qemu_version, "sha256", st->qemu_sha256));
    if (vm)
        json_object_set_new(vm, "firmware",
                            st->firmware[0] ? json_pack("{s:s, s:s}", "path", st->firmware,
                                                        "sha256", st->firmware_sha256)
                                            : json_string("none: QEMU's own BIOS"));
    if (vm && st->boot_note[0])
        json_object_set_new(vm, "boot_phases", json_string(st->boot_note));
    if (!vm || (st->tcg && json_object_set_new(vm, "note", json_string(TB_FLEET_VM_TCG_NOTE))) ||
        json_object_set_new(r->extra, "vm", vm) < 0)
        return tb_errf(err, "out of memory");
    if (st->argv) {
        tb_buf b = {0};
        int rc = tb_suite_shell_join(st->argv, &b) < 0 ||
                 json_array_append_new(r->commands, json_stringn((const char *)b.p, b.len)) < 0;
        tb_buf_clear(&b);
        if (rc)
            return tb_errf(err, "out of memory");
    }
    if (qemu_version && json_object_set_new(r->versions, "qemu", json_string(qemu_version)) < 0)
        return tb_errf(err, "out of memory");
    return 0;
}
