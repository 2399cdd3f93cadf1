/* attest/common/policy: what a verifier accepts beyond "the quote is genuine" (TDX quotes and
 * SEV-SNP reports: one file, fields shared where their meaning is the same).
 * Default: UpToDate only, DEBUG TDs / debuggable SNP guests refused, no measurement
 * requirements, SMT and a migration agent allowed.
 * Invariant: a loaded policy holds only well-formed values (hex lengths checked). */
#include "attest/internal.h"

#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"

void tb_attest_policy_default(tb_attest_policy *p)
{
    memset(p, 0, sizeof *p);
    p->accept = 1u << TB_ATTEST_TCB_UP_TO_DATE;
}

static int want_hex(json_t *o, const char *key, uint8_t *out, size_t n, int *flag, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    const char *s = json_string_value(v);
    if (!s || tb_hex_decode(s, strlen(s), out, n) < 0)
        return tb_errf(err, "policy: \"%s\" is not %zu bytes of hex", key, n);
    *flag = 1;
    return 0;
}

static int want_uint(json_t *o, const char *key, unsigned long max, uint32_t *out, int *flag,
                     tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        (unsigned long long)json_integer_value(v) > max)
        return tb_errf(err, "policy: \"%s\" is not an integer 0..%lu", key, max);
    *out = (uint32_t)json_integer_value(v);
    *flag = 1;
    return 0;
}

static int want_allow(json_t *o, const char *key, int *deny, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return tb_errf(err, "policy: \"%s\" is not a boolean", key);
    *deny = !json_is_true(v);
    return 0;
}

/* The SEV-SNP fields (snp_verify.c applies them). */
static int parse_snp(json_t *o, tb_attest_policy *p, tb_err *err)
{
    if (want_hex(o, "measurement", p->measurement, 48, &p->want_measurement, err) < 0 ||
        want_hex(o, "host_data", p->host_data, 32, &p->want_host_data, err) < 0 ||
        want_uint(o, "min_guest_svn", 0xffffffffu, &p->min_guest_svn, &p->want_min_guest_svn, err) <
            0 ||
        want_uint(o, "vmpl", 3, &p->vmpl, &p->want_vmpl, err) < 0 ||
        want_allow(o, "allow_smt", &p->deny_smt, err) < 0 ||
        want_allow(o, "allow_migration", &p->deny_migration, err) < 0)
        return -1;
    json_t *t = json_object_get(o, "min_tcb");
    if (!t)
        return 0;
    if (!json_is_object(t))
        return tb_errf(err, "policy: \"min_tcb\" is not an object");
    static const char *const names[] = {"bl", "tee", "snp", "ucode", "fmc"};
    uint8_t *dst[] = {&p->min_bl, &p->min_tee, &p->min_snp, &p->min_ucode, &p->min_fmc};
    const char *key;
    json_t *val;
    json_object_foreach(t, key, val)
    {
        size_t i = 0;
        while (i < 5 && strcmp(key, names[i]))
            i++;
        if (i == 5)
            return tb_errf(err, "policy: min_tcb: unknown field \"%s\" (bl, tee, snp, ucode, fmc)",
                           key);
        if (!json_is_integer(val) || json_integer_value(val) < 0 || json_integer_value(val) > 255)
            return tb_errf(err, "policy: min_tcb.%s is not an integer 0..255", key);
        *dst[i] = (uint8_t)json_integer_value(val);
    }
    p->want_min_tcb = 1;
    return 0;
}

int tb_attest_policy_has_snp(const tb_attest_policy *p)
{
    return p->want_measurement || p->want_host_data || p->want_min_tcb || p->want_vmpl ||
           p->want_min_guest_svn || p->deny_smt || p->deny_migration;
}

int tb_attest_policy_has_tdx(const tb_attest_policy *p)
{
    return p->want_mrtd || p->want_mrconfigid || p->want_rtmr[0] || p->want_rtmr[1] ||
           p->want_rtmr[2] || p->want_rtmr[3];
}

static int parse_obj(json_t *o, tb_attest_policy *p, tb_err *err)
{
    static const char *const known[] = {"allow_debug",
                                        "allow_expired_collateral",
                                        "tcb_statuses",
                                        "mrtd",
                                        "mrconfigid",
                                        "rtmr0",
                                        "rtmr1",
                                        "rtmr2",
                                        "rtmr3",
                                        "report_data",
                                        "report_data_prefix",
                                        "measurement",
                                        "host_data",
                                        "min_tcb",
                                        "min_guest_svn",
                                        "vmpl",
                                        "allow_smt",
                                        "allow_migration"};
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val)
    {
        int ok = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= !strcmp(key, known[i]);
        if (!ok)
            return tb_errf(err, "policy: unknown field \"%s\"", key);
    }
    json_t *d = json_object_get(o, "allow_debug");
    if (d) {
        if (!json_is_boolean(d))
            return tb_errf(err, "policy: \"allow_debug\" is not a boolean");
        p->allow_debug = json_is_true(d);
    }
    json_t *x = json_object_get(o, "allow_expired_collateral");
    if (x) {
        if (!json_is_boolean(x))
            return tb_errf(err, "policy: \"allow_expired_collateral\" is not a boolean");
        p->allow_expired_collateral = json_is_true(x);
    }
    json_t *st = json_object_get(o, "tcb_statuses");
    if (st) {
        if (!json_is_array(st))
            return tb_errf(err, "policy: \"tcb_statuses\" is not an array");
        p->accept = 0;
        for (size_t i = 0; i < json_array_size(st); i++) {
            const char *s = json_string_value(json_array_get(st, i));
            tb_attest_tcb_status t;
            if (!s || tb_attest_tcb_status_parse(s, &t) < 0)
                return tb_errf(err, "policy: unknown TCB status \"%s\"", s ? s : "(not a string)");
            p->accept |= 1u << t;
        }
    }
    if (want_hex(o, "mrtd", p->mrtd, 48, &p->want_mrtd, err) < 0 ||
        want_hex(o, "mrconfigid", p->mrconfigid, 48, &p->want_mrconfigid, err) < 0)
        return -1;
    for (int i = 0; i < 4; i++) {
        char k[8];
        snprintf(k, sizeof k, "rtmr%d", i);
        if (want_hex(o, k, p->rtmr[i], 48, &p->want_rtmr[i], err) < 0)
            return -1;
    }
    int f = 0;
    if (want_hex(o, "report_data", p->report_data, 64, &f, err) < 0)
        return -1;
    if (f)
        p->report_data_len = 64;
    const char *pre = json_string_value(json_object_get(o, "report_data_prefix"));
    if (json_object_get(o, "report_data_prefix")) {
        size_t n = pre ? strlen(pre) / 2 : 0;
        if (!pre || n == 0 || n > 64 || tb_hex_decode(pre, strlen(pre), p->report_data, n) < 0)
            return tb_errf(err, "policy: \"report_data_prefix\" is not 1..64 bytes of hex");
        p->report_data_len = n;
    }
    return parse_snp(o, p, err);
}

int tb_attest_policy_parse(const char *text, size_t n, tb_attest_policy *p, tb_err *err)
{
    tb_attest_policy_default(p);
    json_error_t je;
    json_t *o = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return tb_errf(err, "policy: not a JSON object (line %d: %s)", je.line, je.text);
    }
    int rc = parse_obj(o, p, err);
    json_decref(o);
    return rc;
}

int tb_attest_policy_load(const char *path, tb_attest_policy *p, tb_err *err)
{
    tb_buf b = {0};
    if (tb_file_read(path, 1 << 20, &b, err) < 0)
        return -1;
    int rc = tb_attest_policy_parse((const char *)b.p, b.len, p, err);
    tb_buf_clear(&b);
    if (rc < 0)
        tb_err_wrap(err, "%s", path);
    return rc;
}
