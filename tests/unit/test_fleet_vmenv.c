/* Unit tests for src/fleet/vmenv: --vm-kinds lists (default labels, LABEL=KIND,
 * duplicates, unknown kinds, labels that cannot name a VM), the "-tcg" label of a
 * TCG guest, and what a record measured in a VM carries (vm.boot.s with its
 * sample, unit and direction; extra "vm" with the TCG note only under TCG; the
 * QEMU command line; nothing about boot time when it is unknown). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "fleet/vmenv.h"

static void test_kinds_default_labels(void **state)
{
    (void)state;
    tb_fleet_vm_env e[TB_FLEET_VM_MAX];
    int n = -1;
    tb_err err;
    assert_int_equal(tb_fleet_vm_kinds_parse("regular,tdx,snp", e, TB_FLEET_VM_MAX, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(e[0].label, "vm-regular");
    assert_int_equal(e[0].kind, TB_VM_REGULAR);
    assert_string_equal(e[1].label, "vm-tdx");
    assert_int_equal(e[1].kind, TB_VM_TDX);
    assert_string_equal(e[2].label, "vm-snp");
    assert_int_equal(e[2].kind, TB_VM_SNP);
    assert_false(e[0].named);
}

static void test_kinds_named(void **state)
{
    (void)state;
    tb_fleet_vm_env e[TB_FLEET_VM_MAX];
    int n;
    tb_err err;
    assert_int_equal(tb_fleet_vm_kinds_parse("td=tdx,a.1=regular,b_2=regular", e, 8, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(e[0].label, "td");
    assert_int_equal(e[0].kind, TB_VM_TDX);
    assert_true(e[0].named);
    assert_string_equal(e[1].label, "a.1");
    assert_string_equal(e[2].label, "b_2");
    /* a 32-character label still names a VM; 33 do not */
    char list[80];
    snprintf(list, sizeof list, "%s=regular", "abcdefghijklmnopqrstuvwxyz012345");
    assert_int_equal(tb_fleet_vm_kinds_parse(list, e, 8, &n, &err), 0);
    snprintf(list, sizeof list, "%s=regular", "abcdefghijklmnopqrstuvwxyz0123456");
    assert_int_equal(tb_fleet_vm_kinds_parse(list, e, 8, &n, &err), -1);
    assert_non_null(strstr(err.msg, "names the VM"));
}

static void test_kinds_errors(void **state)
{
    (void)state;
    tb_fleet_vm_env e[2];
    int n;
    tb_err err;
    static const struct {
        const char *list, *says;
    } bad[] = {
        {"", "no kinds"},
        {"regular,", "empty entry"},
        {",tdx", "empty entry"},
        {"kvm", "unknown kind 'kvm'"},
        {"x=sev", "unknown kind 'sev'"},
        {"regular,regular", "vm-regular twice"},
        {"a=tdx,a=snp", "a twice"},
        {"Big=regular", "the label must be"},
        {"-a=regular", "the label must be"},
        {".a=regular", "the label must be"},
        {"=regular", "the label must be"},
        {"a b=regular", "the label must be"},
        {"regular,tdx,snp", "at most 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        assert_int_equal(tb_fleet_vm_kinds_parse(bad[i].list, e, 2, &n, &err), -1);
        if (!strstr(err.msg, bad[i].says))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].list, err.msg, bad[i].says);
        assert_null(strchr(err.msg, '\n'));
    }
    assert_int_equal(tb_fleet_vm_kinds_parse(NULL, e, 2, &n, &err), -1);
}

/* regular-swiotlb: the regular kind with forced bounce buffers, its own default label */
static void test_kinds_swiotlb(void **state)
{
    (void)state;
    tb_fleet_vm_env e[TB_FLEET_VM_MAX];
    int n;
    tb_err err;
    assert_int_equal(
        tb_fleet_vm_kinds_parse("regular,regular-swiotlb,tdx", e, TB_FLEET_VM_MAX, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(e[0].label, "vm-regular");
    assert_true(e[0].swiotlb == 0);
    assert_string_equal(e[1].label, "vm-regular-swiotlb");
    assert_int_equal(e[1].kind, TB_VM_REGULAR);
    assert_true(e[1].swiotlb == TB_VM_SWIOTLB_AUTO);
    assert_true(e[2].swiotlb == 0);
    char out[TB_VM_NAME_MAX + 1];
    tb_fleet_vm_label(&e[1], 1, out, sizeof out);
    assert_string_equal(out, "vm-regular-swiotlb-tcg");
    assert_int_equal(tb_fleet_vm_kinds_parse("small=regular-swiotlb:64M,big=regular-swiotlb:1G", e,
                                             TB_FLEET_VM_MAX, &n, &err),
                     0);
    assert_string_equal(e[0].label, "small");
    assert_true(e[0].swiotlb == 64ull << 20);
    assert_true(e[1].swiotlb == 1ull << 30);
    /* two pools under one default label: each needs its own */
    assert_int_equal(tb_fleet_vm_kinds_parse("regular-swiotlb:64M,regular-swiotlb:1G", e,
                                             TB_FLEET_VM_MAX, &n, &err),
                     -1);
    assert_non_null(strstr(err.msg, "vm-regular-swiotlb twice"));
    assert_int_equal(tb_fleet_vm_kinds_parse("regular-swiotlb:lots", e, TB_FLEET_VM_MAX, &n, &err),
                     -1);
    assert_non_null(strstr(err.msg, "regular-swiotlb:lots: the bounce-buffer pool"));
}

static void test_label_tcg(void **state)
{
    (void)state;
    tb_fleet_vm_env def = {.kind = TB_VM_REGULAR, .label = "vm-regular", .named = 0};
    tb_fleet_vm_env own = {.kind = TB_VM_REGULAR, .label = "guest", .named = 1};
    char out[TB_VM_NAME_MAX + 1];
    tb_fleet_vm_label(&def, 0, out, sizeof out);
    assert_string_equal(out, "vm-regular");
    tb_fleet_vm_label(&def, 1, out, sizeof out);
    assert_string_equal(out, "vm-regular-tcg");
    tb_fleet_vm_label(&own, 1, out, sizeof out);
    assert_string_equal(out, "guest");
}

static void fill_state(tb_vm_state *st, int tcg, uint64_t boot_ns)
{
    memset(st, 0, sizeof *st);
    snprintf(st->name, sizeof st->name, "vm-regular");
    st->kind = TB_VM_REGULAR;
    st->tcg = tcg;
    st->cpus = 2;
    st->memory = 1ull << 30;
    st->boot_ns = boot_ns;
}

static void test_annotate_tcg(void **state)
{
    (void)state;
    tb_err err;
    tb_record *r = tb_record_new(&err);
    assert_non_null(r);
    tb_vm_state st;
    fill_state(&st, 1, 17300000000ull);
    static char *argv[] = {"qemu-system-x86_64", "-name", "vm regular", NULL};
    st.argv = argv;
    assert_int_equal(tb_fleet_vm_annotate(r, &st, "7.2.22", &err), 0);
    const tb_metric *m = tb_record_find(r, "vm.boot.s");
    assert_non_null(m);
    assert_int_equal(m->n, 1);
    assert_true(m->samples[0] > 17.29 && m->samples[0] < 17.31);
    assert_string_equal(m->unit, "s");
    assert_int_equal(m->better, TB_BETTER_LOWER);
    assert_string_equal(m->workload, "vm");
    assert_non_null(strstr(m->note, "first SSH login"));
    assert_non_null(strstr(m->note, "TCG"));
    json_t *vm = json_object_get(r->extra, "vm");
    assert_string_equal(json_string_value(json_object_get(vm, "accel")), "tcg");
    assert_string_equal(json_string_value(json_object_get(vm, "kind")), "regular");
    assert_string_equal(json_string_value(json_object_get(vm, "name")), "vm-regular");
    assert_int_equal(json_integer_value(json_object_get(vm, "memory_mib")), 1024);
    assert_int_equal(json_integer_value(json_object_get(vm, "cpus")), 2);
    assert_non_null(strstr(json_string_value(json_object_get(vm, "note")), "no performance"));
    assert_string_equal(json_string_value(json_array_get(r->commands, 0)),
                        "qemu-system-x86_64 -name 'vm regular'");
    assert_string_equal(json_string_value(json_object_get(r->versions, "qemu")), "7.2.22");
    /* the record stays valid: it round-trips through its JSON */
    json_t *doc = tb_record_to_json(r);
    tb_record *back = NULL;
    assert_int_equal(tb_record_from_json(doc, &back, &err), 0);
    assert_non_null(tb_record_find(back, "vm.boot.s"));
    json_decref(doc);
    tb_record_free(back);
    st.argv = NULL; /* static */
    tb_record_free(r);
}

static void test_annotate_swiotlb(void **state)
{
    (void)state;
    tb_err err;
    tb_record *r = tb_record_new(&err);
    tb_vm_state st;
    fill_state(&st, 0, 9000000000ull);
    /* a regular VM: extra.vm.swiotlb says nothing forced */
    assert_int_equal(tb_fleet_vm_annotate(r, &st, NULL, &err), 0);
    json_t *sw = json_object_get(json_object_get(r->extra, "vm"), "swiotlb");
    assert_true(json_is_false(json_object_get(sw, "forced")));
    assert_int_equal(json_object_size(sw), 1);
    tb_record_free(r);
    /* regular-swiotlb from an image: the parameter, the pool, the way, the proof */
    r = tb_record_new(&err);
    snprintf(st.swiotlb_param, sizeof st.swiotlb_param, "swiotlb=32768,force");
    snprintf(st.swiotlb_how, sizeof st.swiotlb_how, "seed-reboot");
    st.swiotlb_pool = 64ull << 20;
    snprintf(st.guest_cmdline, sizeof st.guest_cmdline, "root=LABEL=r swiotlb=32768,force");
    assert_int_equal(tb_fleet_vm_annotate(r, &st, NULL, &err), 0);
    sw = json_object_get(json_object_get(r->extra, "vm"), "swiotlb");
    assert_true(json_is_true(json_object_get(sw, "forced")));
    assert_string_equal(json_string_value(json_object_get(sw, "param")), "swiotlb=32768,force");
    assert_int_equal(json_integer_value(json_object_get(sw, "nslabs")), 32768);
    assert_int_equal(json_integer_value(json_object_get(sw, "pool_bytes")), 64 << 20);
    assert_string_equal(json_string_value(json_object_get(sw, "how")), "seed-reboot");
    assert_string_equal(json_string_value(json_object_get(sw, "guest_cmdline")),
                        "root=LABEL=r swiotlb=32768,force");
    /* its boot time includes the reboot, and says so */
    const tb_metric *m = tb_record_find(r, "vm.boot.s");
    assert_non_null(strstr(m->note, "after the seed's reboot"));
    tb_record_free(r);
}

static void test_annotate_kvm_unknown_boot(void **state)
{
    (void)state;
    tb_err err;
    tb_record *r = tb_record_new(&err);
    tb_vm_state st;
    fill_state(&st, 0, 0);
    assert_int_equal(tb_fleet_vm_annotate(r, &st, NULL, &err), 0);
    assert_null(tb_record_find(r, "vm.boot.s")); /* unknown: no sample made up */
    json_t *vm = json_object_get(r->extra, "vm");
    assert_string_equal(json_string_value(json_object_get(vm, "accel")), "kvm");
    assert_true(json_is_null(json_object_get(vm, "boot_s")));
    assert_null(json_object_get(vm, "note"));
    assert_int_equal(json_array_size(r->commands), 0);
    assert_null(json_object_get(r->versions, "qemu"));
    /* a second start of the same environment adds a second sample */
    st.boot_ns = 2000000000ull;
    assert_int_equal(tb_fleet_vm_annotate(r, &st, NULL, &err), 0);
    st.boot_ns = 3000000000ull;
    assert_int_equal(tb_fleet_vm_annotate(r, &st, NULL, &err), 0);
    const tb_metric *m = tb_record_find(r, "vm.boot.s");
    assert_int_equal(m->n, 2);
    assert_true(m->samples[1] == 3.0);
    assert_null(strstr(m->note, "TCG"));
    tb_record_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_default_labels),
        cmocka_unit_test(test_kinds_named),
        cmocka_unit_test(test_kinds_errors),
        cmocka_unit_test(test_kinds_swiotlb),
        cmocka_unit_test(test_label_tcg),
        cmocka_unit_test(test_annotate_swiotlb),
        cmocka_unit_test(test_annotate_tcg),
        cmocka_unit_test(test_annotate_kvm_unknown_boot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
