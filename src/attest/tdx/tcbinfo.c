/* attest/tdx/tcbinfo: Intel's TDX TCB info (v3) and TD QE identity (v2) JSON -> structs,
 * plus the time and status spellings they use. The JSON is read with jsontok.c (strict,
 * duplicate keys refused) rather than a DOM: this runs for every collateral check. Pure
 * parsing: no signature checks here (verify.c checks the signature first).
 *
 * What is required, and how levels are ordered, follows Intel's QVL (SGX-TDX-DCAP-
 * QuoteVerificationLibrary, Src/AttestationParsers/src/Json/):
 *  - TcbInfo.cpp: id "TDX", version 3, issueDate, nextUpdate, fmspc, pceId, tcbType (an
 *    integer, must be 0), tcbEvaluationDataNumber, tdxModule (required for TDX),
 *    tdxModuleIdentities (optional; when present a non-empty array), tcbLevels non-empty;
 *    the platform levels are a std::set ordered by TcbLevel.cpp's operator> (SGX
 *    components, then PCESVN, then TDX components, each compared lexicographically,
 *    highest first) and a duplicate level makes the TCB info invalid.
 *  - TcbLevel.cpp: tcbStatus one of the seven TCB info statuses; advisoryIDs optional, any
 *    strings. TcbComponent.cpp: "svn" required, "category"/"type" strings when present.
 *  - TdxModuleIdentity.cpp / TdxModuleTcbLevel.cpp: module levels in a set ordered by
 *    ISVSVN, highest first, duplicates invalid; tcbStatus any string here (TdxModuleCheck
 *    judges the matched level's status: only UpToDate, OutOfDate, Revoked are valid).
 *  - EnclaveIdentityV2.cpp (Src/AttestationLibrary/src/Verifiers/): QE identity levels
 *    in document order; statuses UpToDate, ConfigurationNeeded, OutOfDate,
 *    OutOfDateConfigurationNeeded, Revoked (TcbStatus.h's parseStringToTcbStatus) --
 *    anything else makes the identity unparseable; tcbEvaluationDataNumber required.
 *    Its levels' advisoryIDs (which QVL skips) are read as TcbLevel.cpp reads a
 *    platform level's: the verdict reports the QE level's advisories as well.
 * Invariant: a parsed struct holds only validated values (hex of the right length, known
 * status names, levels sorted and unique as above). */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/bytes.h"
#include "base/hex.h"

static const char *const STATUS_NAMES[TB_ATTEST_TCB_STATUS_COUNT] = {
    "UpToDate",
    "SWHardeningNeeded",
    "ConfigurationNeeded",
    "ConfigurationAndSWHardeningNeeded",
    "OutOfDate",
    "OutOfDateConfigurationNeeded",
    "Revoked",
    "TDRelaunchAdvised",
    "TDRelaunchAdvisedConfigurationNeeded",
};

/* How many of STATUS_NAMES a TCB info platform level may carry (QVL TcbStatus.h
 * VALID_TCB_INFO_STATUSES): all but the TD relaunch statuses, which only QVL's
 * TDRelaunchCheck produces. */
#define TCB_INFO_STATUSES TB_ATTEST_TCB_TD_RELAUNCH_ADVISED

const char *tb_attest_tcb_status_name(tb_attest_tcb_status s)
{
    return (unsigned)s < TB_ATTEST_TCB_STATUS_COUNT ? STATUS_NAMES[s] : "Unknown";
}

static int status_parse_n(const char *s, int n, tb_attest_tcb_status *out)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, STATUS_NAMES[i])) {
            *out = (tb_attest_tcb_status)i;
            return 0;
        }
    return -1;
}

int tb_attest_tcb_status_parse(const char *s, tb_attest_tcb_status *out)
{
    return status_parse_n(s, TB_ATTEST_TCB_STATUS_COUNT, out);
}

int tb_tdx_iso8601_parse(const char *s, int64_t *out)
{
    int Y, M, D, h, m, sec, k = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &Y, &M, &D, &h, &m, &sec, &k) != 6 || k != 19)
        return -1;
    const char *rest = s + 19;
    if (*rest == '.') {
        rest++;
        while (*rest >= '0' && *rest <= '9')
            rest++;
    }
    if (strcmp(rest, "Z") && strcmp(rest, "+00:00"))
        return -1;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        return -1;
    struct tm tm = {.tm_year = Y - 1900,
                    .tm_mon = M - 1,
                    .tm_mday = D,
                    .tm_hour = h,
                    .tm_min = m,
                    .tm_sec = sec};
    *out = (int64_t)timegm(&tm);
    return 0;
}

/* ---------------------------------------------------------------- helpers */

/* The token of key in obj, with "missing" / "duplicate" errors. */
static int field(const tb_attest_jdoc *d, int obj, const char *key, tb_err *err)
{
    int k = tb_attest_jobj_get(d, obj, key);
    if (k == -2)
        return tb_errf(err, "duplicate \"%s\"", key);
    if (k < 0)
        return tb_errf(err, "missing \"%s\"", key);
    return k;
}

static int get_str(const tb_attest_jdoc *d, int obj, const char *key, char *out, size_t outlen,
                   tb_err *err)
{
    const char *p;
    size_t n;
    int k = field(d, obj, key, err);
    if (k < 0)
        return -1;
    if (tb_attest_jstr(d, k, &p, &n) < 0 || n >= outlen)
        return tb_errf(err, "bad \"%s\"", key);
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

static int get_hex(const tb_attest_jdoc *d, int obj, const char *key, uint8_t *out, size_t n,
                   tb_err *err)
{
    const char *p;
    size_t l;
    int k = field(d, obj, key, err);
    if (k < 0)
        return -1;
    if (tb_attest_jstr(d, k, &p, &l) < 0 || tb_hex_decode(p, l, out, n) < 0)
        return tb_errf(err, "\"%s\" is not %zu bytes of hex", key, n);
    return 0;
}

static int get_date(const tb_attest_jdoc *d, int obj, const char *key, int64_t *out, tb_err *err)
{
    char buf[40];
    if (get_str(d, obj, key, buf, sizeof buf, err) < 0 || tb_tdx_iso8601_parse(buf, out) < 0)
        return tb_errf(err, "missing or bad \"%s\"", key);
    return 0;
}

static int get_uint(const tb_attest_jdoc *d, int obj, const char *key, long max, long *out,
                    tb_err *err)
{
    int k = field(d, obj, key, err);
    if (k < 0)
        return -1;
    if (tb_attest_juint(d, k, max, out) < 0)
        return tb_errf(err, "missing or bad \"%s\"", key);
    return 0;
}

/* An optional member that, when present, must be a string (QVL: TcbComponent's category
 * and type). */
static int opt_str(const tb_attest_jdoc *d, int obj, const char *key, tb_err *err)
{
    int k = tb_attest_jobj_get(d, obj, key);
    if (k == -2)
        return tb_errf(err, "duplicate \"%s\"", key);
    if (k >= 0 && d->t[k].type != TB_ATTEST_JSTR)
        return tb_errf(err, "\"%s\" is not a string", key);
    return 0;
}

static int parse_components(const tb_attest_jdoc *d, int arr, const char *key, uint8_t out[16],
                            tb_err *err)
{
    if (arr == -2)
        return tb_errf(err, "duplicate \"%s\"", key);
    if (arr < 0 || d->t[arr].type != TB_ATTEST_JARR || d->t[arr].count != 16)
        return tb_errf(err, "\"%s\" is not an array of 16", key);
    int k = arr + 1;
    for (int i = 0; i < 16; i++) {
        long v;
        if (d->t[k].type != TB_ATTEST_JOBJ || get_uint(d, k, "svn", 255, &v, err) < 0 ||
            opt_str(d, k, "category", err) < 0 || opt_str(d, k, "type", err) < 0)
            return tb_err_wrap(err, "%s[%d]", key, i);
        out[i] = (uint8_t)v;
        k = (int)d->t[k].next;
    }
    return 0;
}

/* advisoryIDs (optional): any number of strings of any length (QVL TcbLevel.cpp). */
static int parse_advisories(const tb_attest_jdoc *d, int l, tb_tdx_adv_list *out, tb_err *err)
{
    int adv = tb_attest_jobj_get(d, l, "advisoryIDs");
    if (adv == -2)
        return tb_errf(err, "duplicate \"advisoryIDs\"");
    if (adv < 0)
        return 0;
    if (d->t[adv].type != TB_ATTEST_JARR)
        return tb_errf(err, "\"advisoryIDs\" is not an array");
    tb_buf b = {0};
    int k = adv + 1;
    for (uint32_t i = 0; i < d->t[adv].count; i++) {
        char *s = NULL;
        size_t n;
        if (tb_attest_jstr_dup(d, k, &s, &n) < 0) {
            tb_buf_clear(&b);
            return tb_errf(err, "advisoryIDs[%u] is not a string", i);
        }
        int rc = tb_buf_append(&b, s, n + 1); /* with its NUL */
        free(s);
        if (rc < 0) {
            tb_buf_clear(&b);
            return tb_errf(err, "out of memory");
        }
        k = (int)d->t[k].next;
    }
    out->n = (int)d->t[adv].count;
    out->ids = (char *)b.p;
    out->len = b.len;
    return 0;
}

/* The level's tcbStatus: kind 0 (platform) one of the seven TCB info statuses; kind 2 (QE
 * identity) one of the five QVL's TcbStatus.h parses; kind 1 (TDX module) any string,
 * recorded as -1 when it is not UpToDate, OutOfDate or Revoked (TdxModuleCheck.cpp's
 * VALID_MODULE_TCB_STATUSES: TCB_UNRECOGNIZED_STATUS when that level is the one matched). */
static int parse_status(const tb_attest_jdoc *d, int l, int kind, tb_tdx_tcb_level *out,
                        tb_err *err)
{
    char st[48];
    if (get_str(d, l, "tcbStatus", st, sizeof st, err) < 0)
        return tb_errf(err, "missing or bad \"tcbStatus\"");
    snprintf(out->status_text, sizeof out->status_text, "%s", st);
    tb_attest_tcb_status s;
    if (kind == 0) {
        if (status_parse_n(st, TCB_INFO_STATUSES, &s) < 0)
            return tb_errf(err, "unknown tcbStatus \"%s\"", st);
    } else if (kind == 2) {
        if (status_parse_n(st, TB_ATTEST_TCB_STATUS_COUNT, &s) < 0 ||
            (s != TB_ATTEST_TCB_UP_TO_DATE && s != TB_ATTEST_TCB_CONFIGURATION_NEEDED &&
             s != TB_ATTEST_TCB_OUT_OF_DATE &&
             s != TB_ATTEST_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED && s != TB_ATTEST_TCB_REVOKED))
            return tb_errf(err,
                           "tcbStatus \"%s\" is not a QE identity status (QVL parses UpToDate, "
                           "ConfigurationNeeded, OutOfDate, OutOfDateConfigurationNeeded, "
                           "Revoked)",
                           st);
    } else {
        if (status_parse_n(st, TB_ATTEST_TCB_STATUS_COUNT, &s) < 0 ||
            (s != TB_ATTEST_TCB_UP_TO_DATE && s != TB_ATTEST_TCB_OUT_OF_DATE &&
             s != TB_ATTEST_TCB_REVOKED)) {
            out->status = -1;
            return 0;
        }
    }
    out->status = (int)s;
    return 0;
}

/* One level: {"tcb": {...}, "tcbDate": ..., "tcbStatus": ..., "advisoryIDs": [...]}.
 * kind 0: platform level (sgx/tdx components, pcesvn); 1: TDX module level; 2: QE level. */
static int parse_level(const tb_attest_jdoc *d, int l, int kind, tb_tdx_tcb_level *out, tb_err *err)
{
    int tcb = tb_attest_jobj_get(d, l, "tcb");
    if (tcb == -2)
        return tb_errf(err, "duplicate \"tcb\"");
    if (tcb < 0 || d->t[tcb].type != TB_ATTEST_JOBJ)
        return tb_errf(err, "missing \"tcb\" (or not an object)");
    long v;
    if (kind == 0) {
        if (parse_components(d, tb_attest_jobj_get(d, tcb, "sgxtcbcomponents"), "sgxtcbcomponents",
                             out->sgx, err) < 0 ||
            parse_components(d, tb_attest_jobj_get(d, tcb, "tdxtcbcomponents"), "tdxtcbcomponents",
                             out->tdx, err) < 0 ||
            get_uint(d, tcb, "pcesvn", 65535, &v, err) < 0)
            return -1;
        out->pcesvn = (uint16_t)v;
    } else {
        if (get_uint(d, tcb, "isvsvn", 65535, &v, err) < 0)
            return -1;
        out->isvsvn = (uint16_t)v;
    }
    int64_t t;
    if (get_str(d, l, "tcbDate", out->date, sizeof out->date, err) < 0 ||
        tb_tdx_iso8601_parse(out->date, &t) < 0)
        return tb_errf(err, "missing or bad \"tcbDate\"");
    if (parse_status(d, l, kind, out, err) < 0)
        return -1;
    /* QE identity levels carry advisoryIDs too (PCS API v4); QVL's EnclaveIdentityV2.cpp
     * ignores them, teebench reports them with the platform's and the module's. */
    return parse_advisories(d, l, &out->adv, err);
}

/* Highest first, as QVL's std::set<TcbLevel, std::greater<TcbLevel>> (TcbLevel.cpp
 * operator>): SGX components (lexicographic), then PCESVN, then TDX components. */
static int platform_cmp(const void *a, const void *b)
{
    const tb_tdx_tcb_level *x = a, *y = b;
    int c = memcmp(x->sgx, y->sgx, 16);
    if (!c)
        c = (x->pcesvn > y->pcesvn) - (x->pcesvn < y->pcesvn);
    if (!c)
        c = memcmp(x->tdx, y->tdx, 16);
    return -c;
}

/* Highest ISVSVN first (TdxModuleTcbLevel.cpp operator>). */
static int isvsvn_cmp(const void *a, const void *b)
{
    const tb_tdx_tcb_level *x = a, *y = b;
    return (y->isvsvn > x->isvsvn) - (y->isvsvn < x->isvsvn);
}

static void levels_free(tb_tdx_tcb_level *l, int n)
{
    for (int i = 0; l && i < n; i++)
        free(l[i].adv.ids);
    free(l);
}

static int parse_levels(const tb_attest_jdoc *d, int arr, int kind, tb_tdx_tcb_level **out, int *n,
                        tb_err *err)
{
    if (arr == -2)
        return tb_errf(err, "duplicate \"tcbLevels\"");
    if (arr < 0 || d->t[arr].type != TB_ATTEST_JARR || d->t[arr].count == 0 ||
        d->t[arr].count > 4096)
        return tb_errf(err, "missing or bad \"tcbLevels\" (want a non-empty array)");
    *n = (int)d->t[arr].count;
    *out = calloc((size_t)*n, sizeof **out);
    if (!*out)
        return tb_errf(err, "out of memory");
    int k = arr + 1;
    for (int i = 0; i < *n; i++) {
        if (d->t[k].type != TB_ATTEST_JOBJ || parse_level(d, k, kind, &(*out)[i], err) < 0)
            return tb_err_wrap(err, "tcbLevels[%d]", i);
        k = (int)d->t[k].next;
    }
    if (kind == 2)
        return 0; /* QE identity: document order (EnclaveIdentityV2.cpp keeps a vector) */
    int (*cmp)(const void *, const void *) = kind == 0 ? platform_cmp : isvsvn_cmp;
    qsort(*out, (size_t)*n, sizeof **out, cmp);
    for (int i = 1; i < *n; i++)
        if (!cmp(&(*out)[i - 1], &(*out)[i]))
            return tb_errf(err, kind == 0
                                    ? "duplicate TCB levels (the same SGX components, PCESVN and "
                                      "TDX components twice; QVL TcbInfo.cpp: invalid)"
                                    : "duplicate TDX module TCB levels (the same isvsvn twice; "
                                      "QVL TdxModuleIdentity.cpp: invalid)");
    return 0;
}

static int parse_module(const tb_attest_jdoc *d, int m, int with_levels,
                        tb_tdx_module_identity *out, tb_err *err)
{
    if (m < 0 || d->t[m].type != TB_ATTEST_JOBJ)
        return tb_errf(err, "not an object");
    if (get_hex(d, m, "mrsigner", out->mrsigner, 48, err) < 0 ||
        get_hex(d, m, "attributes", out->attributes, 8, err) < 0 ||
        get_hex(d, m, "attributesMask", out->attributes_mask, 8, err) < 0)
        return -1;
    if (!with_levels)
        return 0;
    char *id = NULL;
    size_t n;
    int k = field(d, m, "id", err);
    if (k < 0)
        return -1;
    if (tb_attest_jstr_dup(d, k, &id, &n) < 0 || n >= sizeof out->id) {
        free(id);
        return tb_errf(err, "bad \"id\" (a string of at most %zu bytes)", sizeof out->id - 1);
    }
    memcpy(out->id, id, n + 1);
    free(id);
    return parse_levels(d, tb_attest_jobj_get(d, m, "tcbLevels"), 1, &out->levels, &out->n_levels,
                        err);
}

static int check_id_version(const tb_attest_jdoc *d, const char *want_id, long want_version,
                            int *version, tb_err *err)
{
    char id[16];
    if (get_str(d, 0, "id", id, sizeof id, err) < 0 || strcmp(id, want_id))
        return tb_errf(err, "id is not \"%s\"", want_id);
    long v;
    if (get_uint(d, 0, "version", 1000, &v, err) < 0)
        return -1;
    *version = (int)v;
    if (v != want_version)
        return tb_errf(err, "version %ld (want %ld)", v, want_version);
    return 0;
}

/* ------------------------------------------------------------- TCB info */

static int tcb_info_fill(const tb_attest_jdoc *d, tb_tdx_tcb_info *t, tb_err *err)
{
    if (check_id_version(d, "TDX", 3, &t->version, err) < 0)
        return -1;
    long v;
    if (get_date(d, 0, "issueDate", &t->issue, err) < 0 ||
        get_date(d, 0, "nextUpdate", &t->next, err) < 0 ||
        get_hex(d, 0, "fmspc", t->fmspc, 6, err) < 0 ||
        get_hex(d, 0, "pceId", t->pceid, 2, err) < 0)
        return -1;
    /* tcbType: an integer; QVL supports 0 only (TcbInfo.cpp parsePartV2). */
    int k = field(d, 0, "tcbType", err);
    if (k < 0)
        return -1;
    if (tb_attest_juint(d, k, 1000000, &v) < 0 || v != 0)
        return tb_errf(err, "\"tcbType\" is not 0 (the only TCB type QVL supports)");
    if (get_uint(d, 0, "tcbEvaluationDataNumber", 999999999, &v, err) < 0)
        return -1;
    t->eval_number = (uint32_t)v;
    int mod = tb_attest_jobj_get(d, 0, "tdxModule");
    if (mod == -2)
        return tb_errf(err, "duplicate \"tdxModule\"");
    if (mod < 0)
        return tb_errf(err, "missing \"tdxModule\" (QVL requires it in a TDX TCB info)");
    if (parse_module(d, mod, 0, &t->module, err) < 0)
        return tb_err_wrap(err, "tdxModule");
    t->has_module = 1;
    int ids = tb_attest_jobj_get(d, 0, "tdxModuleIdentities");
    if (ids == -2)
        return tb_errf(err, "duplicate \"tdxModuleIdentities\"");
    if (ids >= 0) {
        if (d->t[ids].type != TB_ATTEST_JARR || d->t[ids].count == 0 || d->t[ids].count > 256)
            return tb_errf(err, "\"tdxModuleIdentities\" is not a non-empty array");
        t->n_ids = (int)d->t[ids].count;
        t->ids = calloc((size_t)t->n_ids + 1, sizeof *t->ids);
        if (!t->ids)
            return tb_errf(err, "out of memory");
        k = ids + 1;
        for (int i = 0; i < t->n_ids; i++) {
            if (parse_module(d, k, 1, &t->ids[i], err) < 0)
                return tb_err_wrap(err, "tdxModuleIdentities[%d]", i);
            k = (int)d->t[k].next;
        }
    }
    return parse_levels(d, tb_attest_jobj_get(d, 0, "tcbLevels"), 0, &t->levels, &t->n_levels, err);
}

static int parse_doc(const char *text, size_t n, tb_attest_jdoc *d, const char *what, tb_err *err)
{
    if (tb_attest_json_tokenize(text, n, d, err) < 0)
        return tb_err_wrap(err, "%s", what);
    if (d->t[0].type != TB_ATTEST_JOBJ) {
        tb_attest_json_clear(d);
        return tb_errf(err, "%s: not a JSON object", what);
    }
    return 0;
}

int tb_tdx_tcb_info_parse(const char *text, size_t n, tb_tdx_tcb_info *t, tb_err *err)
{
    memset(t, 0, sizeof *t);
    tb_attest_jdoc d;
    if (parse_doc(text, n, &d, "TCB info", err) < 0)
        return -1;
    int rc = tcb_info_fill(&d, t, err);
    tb_attest_json_clear(&d);
    if (rc < 0) {
        tb_err_wrap(err, "TCB info");
        tb_tdx_tcb_info_clear(t);
    }
    return rc;
}

void tb_tdx_tcb_info_clear(tb_tdx_tcb_info *t)
{
    if (!t)
        return;
    for (int i = 0; t->ids && i < t->n_ids; i++)
        levels_free(t->ids[i].levels, t->ids[i].n_levels);
    free(t->ids);
    levels_free(t->levels, t->n_levels);
    memset(t, 0, sizeof *t);
}

/* ----------------------------------------------------------- QE identity */

static int qe_identity_fill(const tb_attest_jdoc *d, tb_tdx_qe_identity *q, tb_err *err)
{
    if (check_id_version(d, "TD_QE", 2, &q->version, err) < 0)
        return -1;
    uint8_t ms[4], mm[4];
    long v;
    if (get_date(d, 0, "issueDate", &q->issue, err) < 0 ||
        get_date(d, 0, "nextUpdate", &q->next, err) < 0 ||
        get_hex(d, 0, "miscselect", ms, 4, err) < 0 ||
        get_hex(d, 0, "miscselectMask", mm, 4, err) < 0 ||
        get_hex(d, 0, "attributes", q->attributes, 16, err) < 0 ||
        get_hex(d, 0, "attributesMask", q->attributes_mask, 16, err) < 0 ||
        get_hex(d, 0, "mrsigner", q->mrsigner, 32, err) < 0 ||
        get_uint(d, 0, "isvprodid", 65535, &v, err) < 0)
        return -1;
    q->isvprodid = (uint16_t)v;
    if (get_uint(d, 0, "tcbEvaluationDataNumber", 999999999, &v, err) < 0)
        return -1;
    q->eval_number = (uint32_t)v;
    /* The hex's bytes in memory order, read as the little-endian uint32 the QE report
     * holds: QVL EnclaveReportVerifier.cpp vectorToUint32 = swapBytes(toUint32(b0..b3)). */
    q->miscselect = tb_rd_le32(ms);
    q->miscselect_mask = tb_rd_le32(mm);
    return parse_levels(d, tb_attest_jobj_get(d, 0, "tcbLevels"), 2, &q->levels, &q->n_levels, err);
}

int tb_tdx_qe_identity_parse(const char *text, size_t n, tb_tdx_qe_identity *q, tb_err *err)
{
    memset(q, 0, sizeof *q);
    tb_attest_jdoc d;
    if (parse_doc(text, n, &d, "QE identity", err) < 0)
        return -1;
    int rc = qe_identity_fill(&d, q, err);
    tb_attest_json_clear(&d);
    if (rc < 0) {
        tb_err_wrap(err, "QE identity");
        tb_tdx_qe_identity_clear(q);
    }
    return rc;
}

void tb_tdx_qe_identity_clear(tb_tdx_qe_identity *q)
{
    if (!q)
        return;
    levels_free(q->levels, q->n_levels);
    memset(q, 0, sizeof *q);
}
