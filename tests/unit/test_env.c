/* Unit tests for src/sys/env: the parsers on recorded samples of a TD, an SNP
 * guest, a TDX host and bare metal (tests/data/env/), the platform decision,
 * and the live document's shape on this machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "env_test_util.h"
#include "sys/env.h"

/* Reads tests/data/env/<rel>; the test fails when it is missing. Caller frees. */
static char *sample(const char *rel)
{
    const char *root = getenv("TEEBENCH_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/env/%s", root ? root : TEEBENCH_SOURCE_DIR, rel);
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 1 << 20, &b, &e) < 0)
        fail_msg("%s", e.msg);
    return (char *)b.p;
}

/* Builds the evidence a machine would give from its samples. */
static void evidence_from(const char *dir, tb_env_evidence *ev)
{
    char rel[64];
    memset(ev, 0, sizeof *ev);
    ev->cpuid_hv_bit = -1;
    ev->cpuid_tdx = -1;
    ev->dev_tdx_guest = -1;
    ev->dev_sev_guest = -1;
    ev->sev_msr = -1;
    snprintf(rel, sizeof rel, "%s/proc/cpuinfo", dir);
    char *t = sample(rel);
    ev->have_cpuinfo = tb_env_parse_cpuinfo(t, &ev->cpu) == 0;
    free(t);
    snprintf(rel, sizeof rel, "%s/dmesg", dir);
    t = sample(rel);
    tb_env_parse_klog(t, &ev->klog);
    ev->have_klog = 1;
    free(t);
}

static void test_cpuinfo_td(void **state)
{
    (void)state;
    char *t = sample("td/proc/cpuinfo");
    tb_cpuinfo c;
    assert_int_equal(tb_env_parse_cpuinfo(t, &c), 0);
    free(t);
    assert_string_equal(c.vendor, "GenuineIntel");
    assert_string_equal(c.model, "Intel(R) Xeon(R) Platinum 8480+");
    assert_int_equal(c.logical, 2);
    assert_int_equal(c.cores, 2);
    assert_int_equal(c.sockets, 1);
    assert_true(c.hypervisor);
    assert_true(c.tdx_guest);
    assert_false(c.sev);
    assert_false(c.vmx);
}

static void test_cpuinfo_hosts(void **state)
{
    (void)state;
    tb_cpuinfo c;
    char *t = sample("tdx-host/proc/cpuinfo");
    assert_int_equal(tb_env_parse_cpuinfo(t, &c), 0);
    free(t);
    assert_int_equal(c.logical, 4);
    assert_int_equal(c.cores, 2); /* two sockets, one core each, two threads per core */
    assert_int_equal(c.sockets, 2);
    assert_false(c.hypervisor);
    assert_true(c.tdx_host);
    assert_true(c.vmx);
    assert_false(c.tdx_guest);

    t = sample("bare/proc/cpuinfo");
    assert_int_equal(tb_env_parse_cpuinfo(t, &c), 0);
    free(t);
    assert_string_equal(c.model, "12th Gen Intel(R) Core(TM) i7-1260P");
    assert_int_equal(c.logical, 4);
    assert_int_equal(c.cores, 2);
    assert_false(c.hypervisor);
    assert_false(c.tdx_host);

    t = sample("snp/proc/cpuinfo");
    assert_int_equal(tb_env_parse_cpuinfo(t, &c), 0);
    free(t);
    assert_string_equal(c.vendor, "AuthenticAMD");
    assert_int_equal(c.logical, 4);
    assert_int_equal(c.cores, 4);
    assert_true(c.sev && c.sev_es && c.sev_snp && c.hypervisor);
}

static void test_cpuinfo_garbage(void **state)
{
    (void)state;
    tb_cpuinfo c;
    assert_int_equal(tb_env_parse_cpuinfo("", &c), -1);
    assert_int_equal(tb_env_parse_cpuinfo("no colon here\n\n:::\nflags", &c), -1);
    /* a flag that merely contains "sev" is not "sev" */
    assert_int_equal(tb_env_parse_cpuinfo("processor : 0\nflags : sev_foo xsev tdx_guestx\n", &c),
                     0);
    assert_false(c.sev);
    assert_false(c.tdx_guest);
    assert_int_equal(c.cores, 0);
}

static void test_klog_samples(void **state)
{
    (void)state;
    tb_klog k;
    char *t = sample("td/dmesg");
    tb_env_parse_klog(t, &k);
    free(t);
    assert_true(k.boot_seen);
    assert_true(k.tdx_guest);
    assert_true(k.mem_encrypt_line);
    assert_true(k.me_tdx);
    assert_false(k.me_sev);
    assert_string_equal(k.hypervisor, "KVM");

    t = sample("snp/dmesg");
    tb_env_parse_klog(t, &k);
    free(t);
    assert_true(k.mem_encrypt_line);
    assert_true(k.me_sev && k.me_sev_es && k.me_sev_snp);
    assert_false(k.me_tdx);
    assert_true(k.sev_status_line && k.st_sev_snp);
    assert_false(k.tdx_guest);

    t = sample("tdx-host/dmesg");
    tb_env_parse_klog(t, &k);
    free(t);
    assert_true(k.tdx_bios_enabled);
    assert_true(k.tdx_module_init);
    assert_false(k.tdx_module_failed);
    assert_string_equal(k.tdx_module, "1.5 build 698");
    assert_false(k.mem_encrypt_line);
    assert_string_equal(k.hypervisor, "");

    t = sample("bare/dmesg");
    tb_env_parse_klog(t, &k);
    free(t);
    assert_true(k.boot_seen);
    assert_false(k.mem_encrypt_line || k.tdx_guest || k.tdx_bios_enabled);
    assert_string_equal(k.tdx_module, "");
}

static void test_klog_variants(void **state)
{
    (void)state;
    tb_klog k;
    /* newer kernels print the module version in one dotted string */
    tb_env_parse_klog("<6>[   12.1] virt/tdx: Initializing TDX module: 1.5.06.00.0744 "
                      "(build_date 20240319, Production module), TDX_FEATURES0 0x1fa\n",
                      &k);
    assert_string_equal(k.tdx_module, "1.5.06.00.0744");
    /* SEV (not ES) with SME listed: words, not substrings */
    tb_env_parse_klog("Memory Encryption Features active: AMD SEV", &k);
    assert_true(k.me_sev);
    assert_false(k.me_sev_es || k.me_sev_snp || k.me_sme);
    tb_env_parse_klog("virt/tdx: module initialization failed (-5)\n", &k);
    assert_true(k.tdx_module_failed);
    assert_false(k.tdx_module_init);
    tb_env_parse_klog("", &k);
    assert_false(k.boot_seen);
}

static void test_small_values(void **state)
{
    (void)state;
    char *t = sample("tdx-host/sys/module/kvm_intel/parameters/tdx");
    assert_int_equal(tb_env_parse_bool(t), 1);
    free(t);
    assert_int_equal(tb_env_parse_bool("N\n"), 0);
    assert_int_equal(tb_env_parse_bool("0"), 0);
    assert_int_equal(tb_env_parse_bool("maybe"), -1);
    assert_int_equal(tb_env_parse_bool(""), -1);
    t = sample("tdx-host/proc/meminfo");
    assert_true(tb_env_parse_meminfo_total(t) == 1056497628LL * 1024);
    free(t);
    t = sample("td/proc/meminfo");
    assert_true(tb_env_parse_meminfo_total(t) == 8131860LL * 1024);
    free(t);
    assert_true(tb_env_parse_meminfo_total("MemFree: 5 kB\n") == -1);
    assert_true(tb_env_parse_meminfo_total("MemTotal: lots\n") == -1);
    assert_true(tb_env_parse_meminfo_total("XMemTotal: 5 kB\n") == -1);
    assert_string_equal(tb_env_hypervisor_name("KVMKVMKVM\0\0\0"), "KVM");
    assert_string_equal(tb_env_hypervisor_name("Microsoft Hv"), "Microsoft Hyper-V");
    assert_string_equal(tb_env_hypervisor_name("NotAHypervsr"), "unrecognised");
}

static void test_classify_samples(void **state)
{
    (void)state;
    tb_env_evidence ev;
    tb_platform p;

    evidence_from("td", &ev);
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "tdx-guest");
    assert_true(p.tdx);
    assert_string_equal(p.sev, "none");
    assert_non_null(strstr(p.why, "tdx_guest"));

    evidence_from("snp", &ev);
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "sev-snp-guest");
    assert_false(p.tdx);
    assert_string_equal(p.sev, "sev-snp");

    evidence_from("tdx-host", &ev);
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "bare-metal");
    assert_false(p.tdx);

    evidence_from("bare", &ev);
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "bare-metal");
    assert_string_equal(p.sev, "none");
}

static void test_classify_partial_evidence(void **state)
{
    (void)state;
    tb_env_evidence ev;
    tb_platform p;
    memset(&ev, 0, sizeof ev);
    ev.sev_msr = -1;
    ev.cpuid_hv_bit = 1;
    memcpy(ev.hv_sig, "KVMKVMKVM\0\0\0", 13);
    /* a VM whose kernel log and MSR are unreadable: SEV state is unknown, not "none" */
    ev.have_cpuinfo = 1;
    strcpy(ev.cpu.vendor, "AuthenticAMD");
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "vm");
    assert_string_equal(p.sev, "unknown");
    /* the same VM with the SEV status MSR saying SEV-ES */
    ev.sev_msr = 3;
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "sev-es-guest");
    /* CPUID 0x21 alone identifies a TD */
    ev.sev_msr = 0;
    ev.cpuid_tdx = 1;
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "tdx-guest");
    /* nothing readable at all */
    memset(&ev, 0, sizeof ev);
    ev.cpuid_hv_bit = -1;
    ev.sev_msr = -1;
    tb_env_classify(&ev, &p);
    assert_string_equal(p.platform, "unknown");
}

/* The whole document from each recorded machine (tb_env_json_recorded). */
static void test_recorded_documents(void **state)
{
    (void)state;
    static const struct {
        const char *dir, *platform, *hypervisor;
        int tdx_host;
        const char *tee;
    } cases[] = {
        {"td", "tdx-guest", "KVM", 0, "tdx"},      {"snp", "sev-snp-guest", "KVM", 0, "snp"},
        {"vm-kvm", "vm", "KVM", 0, "none"},        {"tdx-host", "bare-metal", "none", 1, "none"},
        {"bare", "bare-metal", "none", 0, "none"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *d = recorded_env(cases[i].dir);
        const char *plat =
            json_string_value(json_object_get(json_object_get(d, "platform"), "value"));
        const char *hv =
            json_string_value(json_object_get(json_object_get(d, "hypervisor"), "value"));
        if (!plat || strcmp(plat, cases[i].platform) || !hv || strcmp(hv, cases[i].hypervisor))
            fail_msg("%s: platform %s hypervisor %s", cases[i].dir, plat ? plat : "?",
                     hv ? hv : "?");
        assert_int_equal(json_is_true(json_object_get(json_object_get(d, "tdx_host"), "value")),
                         cases[i].tdx_host);
        assert_string_equal(tb_env_json_tee(d), cases[i].tee);
        json_decref(d);
    }
    assert_string_equal(tb_env_json_tee(NULL), "unknown");
    json_t *odd = json_pack("{s:{s:s}}", "platform", "value", "sev-es-guest");
    assert_string_equal(tb_env_json_tee(odd), "sev-es");
    json_object_set_new(json_object_get(odd, "platform"), "value", json_integer(1));
    assert_string_equal(tb_env_json_tee(odd), "unknown");
    json_decref(odd);
    tb_err e;
    assert_null(tb_env_json_recorded("/nonexistent/recording", &e));
    assert_non_null(strstr(e.msg, "/nonexistent/recording"));
}

/* The KVM facts a VM start is decided on: the VM types, /dev/sev, the C-bit position;
   "unknown" when a recording lacks them, never guessed. */
static void test_kvm_facts(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-test-env-kvm.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[256];
    tb_err e;
    json_t *d = tb_env_json_recorded(dir, &e);
    assert_non_null(d);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(d, "kvm_vm_types"), "value")), "unknown");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(d, "sev_device"), "value")), "unknown");
    json_decref(d);
    snprintf(p, sizeof p, "%s/kvm_vm_types", dir);
    assert_int_equal(tb_file_write_atomic(p, "0x1d\n", 5, &e), 0);
    snprintf(p, sizeof p, "%s/dev_sev", dir);
    assert_int_equal(tb_file_write_atomic(p, "read-write\n", 11, &e), 0);
    snprintf(p, sizeof p, "%s/cpuid", dir);
    const char *cpuid = "0x80000000 0 0x80000028 0 0 0\n"
                        "0x8000001f 0 0x0101fd3f 0x00004173 0x000003ee 0x00000006\n";
    assert_int_equal(tb_file_write_atomic(p, cpuid, strlen(cpuid), &e), 0);
    d = tb_env_json_recorded(dir, &e);
    assert_non_null(d);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(d, "kvm_vm_types"), "value")), 0x1d);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(d, "sev_device"), "value")),
        "read-write");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(d, "sev_cbitpos"), "value")), 51);
    assert_non_null(
        strstr(json_string_value(json_object_get(json_object_get(d, "sev_cbitpos"), "source")),
               "lost to encryption: 5"));
    json_decref(d);
    snprintf(p, sizeof p, "%s/kvm_vm_types", dir);
    assert_int_equal(tb_file_write_atomic(p, "banana\n", 7, &e), 0);
    d = tb_env_json_recorded(dir, &e);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(d, "kvm_vm_types"), "value")), "unknown");
    json_decref(d);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_live_document(void **state)
{
    (void)state;
    tb_err e;
    json_t *doc = tb_env_json(&e);
    assert_non_null(doc);
    static const char *const keys[] = {"platform",     "hypervisor",      "tdx_guest",
                                       "sev_guest",    "tdx_host",        "tdx_module",
                                       "sev_snp_host", "cpu_model",       "cpus",
                                       "memory_bytes", "kernel_release",  "kernel_cmdline",
                                       "clocksource",  "vulnerabilities", "kvm",
                                       "kvm_vm_types", "sev_device",      "sev_cbitpos",
                                       "swiotlb"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *f = json_object_get(doc, keys[i]);
        if (!f)
            fail_msg("missing fact %s", keys[i]);
        assert_non_null(json_object_get(f, "value"));
        assert_true(json_is_string(json_object_get(f, "source")));
    }
    json_decref(doc);
}

/* ---- swiotlb ---- */

static void test_swiotlb_cmdline(void **state)
{
    (void)state;
    unsigned long long n = 99;
    assert_int_equal(tb_env_parse_swiotlb_cmdline("console=ttyS0 quiet", &n), 0);
    assert_true(n == 0);
    assert_int_equal(tb_env_parse_swiotlb_cmdline("console=ttyS0 swiotlb=32768,force", &n), 1);
    assert_true(n == 32768);
    /* the kernel's forms: <nslabs>, <nslabs>,<nareas>, force alone, noforce */
    assert_int_equal(tb_env_parse_swiotlb_cmdline("swiotlb=force", &n), 1);
    assert_true(n == 0);
    assert_int_equal(tb_env_parse_swiotlb_cmdline("swiotlb=65536,4,force\n", &n), 1);
    assert_true(n == 65536);
    assert_int_equal(tb_env_parse_swiotlb_cmdline("swiotlb=65536", &n), 0);
    assert_true(n == 65536);
    /* each occurrence overrides the one before: the last word decides */
    assert_int_equal(tb_env_parse_swiotlb_cmdline("swiotlb=1024,force swiotlb=noforce", &n), 0);
    assert_int_equal(tb_env_parse_swiotlb_cmdline("swiotlb=noforce swiotlb=2048,force", &n), 1);
    assert_true(n == 2048);
    /* not the parameter: another word containing it, a bad suffix */
    assert_int_equal(tb_env_parse_swiotlb_cmdline("xswiotlb=force", &n), 0);
    assert_int_equal(tb_env_parse_swiotlb_cmdline("swiotlb=32768,forced", &n), 0);
    assert_int_equal(tb_env_parse_swiotlb_cmdline("", &n), 0);
    assert_int_equal(tb_env_parse_swiotlb_cmdline(NULL, &n), 0);
}

static void test_swiotlb_klog(void **state)
{
    (void)state;
    /* the recorded guest (Debian 6.1 with swiotlb=32768,force): "area num 1." only */
    char *t = sample("vm-swiotlb/dmesg");
    tb_klog *k = calloc(1, sizeof *k);
    tb_env_parse_klog(t, k);
    assert_true(k->swiotlb_line);
    assert_string_equal(k->swiotlb_log, "software IO TLB: area num 1.");
    assert_true(k->swiotlb_mapped_mb == -1);
    assert_int_equal(k->swiotlb_full, 0);
    free(t);
    /* another kernel's pool line, and the pool running out (kernel/dma/swiotlb.c
       swiotlb_tbl_map_single: dev_warn_ratelimited), with and without printk prefixes */
    tb_env_parse_klog(
        "[    0.512000] software IO TLB: mapped [mem 0x00000000bbfd0000-0x00000000bffd0000] "
        "(64MB)\n"
        "<4>[  812.1] virtio-pci 0000:00:03.0: swiotlb buffer is full (sz: 65536 bytes), total "
        "32768 (slots), used 32740 (slots)\n"
        "virtio_net virtio1: swiotlb buffer is full (sz: 1526 bytes), total 32768 (slots), used "
        "32768 (slots)\n"
        "swiotlb buffer is",
        k);
    assert_true(k->swiotlb_mapped_mb == 64);
    assert_string_equal(
        k->swiotlb_log,
        "software IO TLB: mapped [mem 0x00000000bbfd0000-0x00000000bffd0000] (64MB)");
    assert_int_equal(k->swiotlb_full, 2);
    /* a malformed size is no size */
    tb_env_parse_klog("software IO TLB: mapped [mem 0x0-0x1] (64GB)\n", k);
    assert_true(k->swiotlb_line && k->swiotlb_mapped_mb == -1);
    tb_env_parse_klog("", k);
    assert_false(k->swiotlb_line);
    free(k);
}

static json_t *sw_value(const tb_swiotlb_in *in)
{
    json_t *v = tb_env_swiotlb_value(in);
    assert_non_null(v);
    return v;
}

static long long jint(const json_t *v, const char *key)
{
    const json_t *x = json_object_get(v, key);
    if (!json_is_integer(x))
        fail_msg("%s is not an integer", key);
    return (long long)json_integer_value(x);
}

static const char *jstr(const json_t *v, const char *key)
{
    const char *x = json_string_value(json_object_get(v, key));
    return x ? x : "(null)";
}

static void test_swiotlb_value_sources(void **state)
{
    (void)state;
    tb_klog *k = calloc(1, sizeof *k);
    tb_env_parse_klog("software IO TLB: mapped [mem 0x1-0x2] (128MB)\n"
                      "nvme 0000:01:00.0: swiotlb buffer is full (sz: 4096 bytes), total 65536 "
                      "(slots), used 65536 (slots)\n",
                      k);
    /* debugfs first */
    tb_swiotlb_in in = {.cmdline = "quiet swiotlb=32768,force",
                        .debugfs_nslabs = 65536,
                        .debugfs_used = 12,
                        .have_klog = 1,
                        .klog = k,
                        .cvm = 0,
                        .memory_bytes = 1ll << 30};
    json_t *v = sw_value(&in);
    assert_true(json_is_true(json_object_get(v, "forced")));
    assert_string_equal(jstr(v, "forced_by"), "kernel command line");
    assert_string_equal(jstr(v, "param"), "swiotlb=32768,force");
    assert_int_equal(jint(v, "pool_bytes"), 128ll << 20);
    assert_int_equal(jint(v, "nslabs"), 65536);
    assert_non_null(strstr(jstr(v, "pool_source"), "debugfs"));
    assert_int_equal(jint(v, "used_slabs"), 12);
    assert_int_equal(jint(v, "full_lines"), 1);
    json_decref(v);
    /* then the command line's count (rounded up to 128-slab segments) */
    in.debugfs_nslabs = in.debugfs_used = -1;
    in.cmdline = "swiotlb=1000,force";
    v = sw_value(&in);
    assert_int_equal(jint(v, "nslabs"), 1024);
    assert_string_equal(jstr(v, "pool_source"), "kernel command line: swiotlb=1000,force");
    assert_true(json_is_null(json_object_get(v, "used_slabs")));
    json_decref(v);
    /* then the kernel log's mapped line; "force" without a count */
    in.cmdline = "swiotlb=force";
    v = sw_value(&in);
    assert_true(json_is_true(json_object_get(v, "forced")));
    assert_int_equal(jint(v, "pool_bytes"), 128ll << 20);
    assert_non_null(strstr(jstr(v, "pool_source"), "kernel log"));
    json_decref(v);
    /* a TD: forced by being one, the CVM rule for its memory (8 GiB: 6 % in segments) */
    tb_env_parse_klog("tdx: Guest detected\n", k);
    in.cmdline = "console=hvc0";
    in.cvm = 1;
    in.memory_bytes = 8ll << 30;
    v = sw_value(&in);
    assert_true(json_is_true(json_object_get(v, "forced")));
    assert_string_equal(jstr(v, "forced_by"), "confidential guest");
    assert_true(json_is_null(json_object_get(v, "param")));
    assert_int_equal(jint(v, "nslabs"), 251776); /* ceil(515396075 / 2048) up to 128s */
    assert_non_null(strstr(jstr(v, "pool_source"), "mem_encrypt.c"));
    assert_int_equal(jint(v, "full_lines"), 0);
    json_decref(v);
    /* a regular guest whose log shows a pool (>= 4 GiB: set up anyway), not forced */
    tb_env_parse_klog("software IO TLB: area num 2.\n", k);
    in.cvm = 0;
    in.cmdline = "quiet swiotlb=noforce";
    v = sw_value(&in);
    assert_true(json_is_false(json_object_get(v, "forced")));
    assert_true(json_is_null(json_object_get(v, "forced_by")));
    assert_string_equal(jstr(v, "param"), "swiotlb=noforce");
    assert_int_equal(jint(v, "pool_bytes"), 64ll << 20);
    assert_non_null(strstr(jstr(v, "pool_source"), "default"));
    json_decref(v);
    /* no pool at all: a 1 GiB guest without the parameter */
    tb_env_parse_klog("Linux version 6.1\n", k);
    in.cmdline = "quiet";
    v = sw_value(&in);
    assert_true(json_is_false(json_object_get(v, "forced")));
    assert_true(json_is_null(json_object_get(v, "pool_bytes")));
    assert_true(json_is_null(json_object_get(v, "log_line")));
    assert_non_null(strstr(jstr(v, "pool_source"), "none"));
    json_decref(v);
    /* the kernel log unreadable: no count, never 0 */
    in.have_klog = 0;
    in.cmdline = NULL;
    v = sw_value(&in);
    assert_true(json_is_null(json_object_get(v, "full_lines")));
    assert_true(json_is_false(json_object_get(v, "forced")));
    assert_non_null(strstr(jstr(v, "pool_source"), "unknown"));
    char text[400];
    tb_env_swiotlb_text(v, text, sizeof text);
    assert_non_null(strstr(text, "'swiotlb buffer is full' lines unknown"));
    json_decref(v);
    free(k);
}

/* The recorded guest with swiotlb=32768,force and debugfs mounted, the TD and the
   regular VM: the fact each document carries. */
static void test_swiotlb_recorded(void **state)
{
    (void)state;
    const char *root = getenv("TEEBENCH_SOURCE_DIR");
    char dir[1024];
    tb_err e;
    snprintf(dir, sizeof dir, "%s/tests/data/env/vm-swiotlb", root ? root : TEEBENCH_SOURCE_DIR);
    json_t *doc = tb_env_json_recorded(dir, &e);
    assert_non_null(doc);
    json_t *v = json_object_get(json_object_get(doc, "swiotlb"), "value");
    assert_true(json_is_true(json_object_get(v, "forced")));
    assert_string_equal(jstr(v, "param"), "swiotlb=32768,force");
    assert_int_equal(jint(v, "nslabs"), 32768);
    assert_int_equal(jint(v, "pool_bytes"), 64ll << 20);
    assert_non_null(strstr(jstr(v, "pool_source"), "debugfs"));
    assert_int_equal(jint(v, "used_slabs"), 250);
    assert_string_equal(jstr(v, "log_line"), "software IO TLB: area num 1.");
    assert_int_equal(jint(v, "full_lines"), 0);
    char text[400];
    tb_env_swiotlb_text(v, text, sizeof text);
    assert_string_equal(text, "forced (kernel command line: swiotlb=32768,force), pool 64 MiB "
                              "(debugfs: /sys/kernel/debug/swiotlb/io_tlb_nslabs), 0 'swiotlb "
                              "buffer is full' lines");
    json_decref(doc);
    snprintf(dir, sizeof dir, "%s/tests/data/env/td", root ? root : TEEBENCH_SOURCE_DIR);
    doc = tb_env_json_recorded(dir, &e);
    v = json_object_get(json_object_get(doc, "swiotlb"), "value");
    assert_string_equal(jstr(v, "forced_by"), "confidential guest");
    assert_int_equal(jint(v, "pool_bytes"), 243968ll * 2048); /* 6 % of 8131860 kB */
    json_decref(doc);
    snprintf(dir, sizeof dir, "%s/tests/data/env/vm-kvm", root ? root : TEEBENCH_SOURCE_DIR);
    doc = tb_env_json_recorded(dir, &e);
    v = json_object_get(json_object_get(doc, "swiotlb"), "value");
    assert_true(json_is_false(json_object_get(v, "forced")));
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpuinfo_td),         cmocka_unit_test(test_cpuinfo_hosts),
        cmocka_unit_test(test_cpuinfo_garbage),    cmocka_unit_test(test_klog_samples),
        cmocka_unit_test(test_klog_variants),      cmocka_unit_test(test_small_values),
        cmocka_unit_test(test_classify_samples),   cmocka_unit_test(test_classify_partial_evidence),
        cmocka_unit_test(test_recorded_documents), cmocka_unit_test(test_live_document),
        cmocka_unit_test(test_kvm_facts),          cmocka_unit_test(test_swiotlb_cmdline),
        cmocka_unit_test(test_swiotlb_klog),       cmocka_unit_test(test_swiotlb_value_sources),
        cmocka_unit_test(test_swiotlb_recorded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
