/* attest/tcbinfo: Intel's TDX TCB info (v3) and TD QE identity (v2) JSON -> structs,
 * plus the time and status spellings they use. Pure parsing: no signature checks
 * here (verify.c checks the signature over the exact bytes first). Invariant: a
 * parsed struct holds only validated values (hex of the right length, known
 * status names, sane counts). */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

static const char *const STATUS_NAMES[TB_TCB_STATUS_COUNT] = {
    "UpToDate",
    "SWHardeningNeeded",
    "ConfigurationNeeded",
    "ConfigurationAndSWHardeningNeeded",
    "OutOfDate",
    "OutOfDateConfigurationNeeded",
    "Revoked",
};

const char *tb_tcb_status_name(tb_tcb_status s)
{
    return (unsigned)s < TB_TCB_STATUS_COUNT ? STATUS_NAMES[s] : "Unknown";
}

int tb_tcb_status_parse(const char *s, tb_tcb_status *out)
{
    for (int i = 0; i < TB_TCB_STATUS_COUNT; i++)
        if (!strcmp(s, STATUS_NAMES[i])) {
            *out = (tb_tcb_status)i;
            return 0;
        }
    return -1;
}

int tb_iso8601_parse(const char *s, int64_t *out)
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

void tb_iso8601_format(int64_t t, char *out, size_t outlen)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int tb_asn1_time_unix(const ASN1_TIME *t, int64_t *out)
{
    struct tm tm;
    if (!t || !ASN1_TIME_to_tm(t, &tm))
        return -1;
    *out = (int64_t)timegm(&tm);
    return 0;
}

/* ---------------------------------------------------------------- helpers */

static int get_hex(json_t *o, const char *key, uint8_t *out, size_t n, tb_err *err)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s)
        return tb_errf(err, "missing \"%s\"", key);
    if (tb_hex_decode(s, strlen(s), out, n) < 0)
        return tb_errf(err, "\"%s\" is not %zu bytes of hex", key, n);
    return 0;
}

static int get_date(json_t *o, const char *key, int64_t *out, tb_err *err)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || tb_iso8601_parse(s, out) < 0)
        return tb_errf(err, "missing or bad \"%s\"", key);
    return 0;
}

static int get_uint(json_t *o, const char *key, long max, long *out, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
        return tb_errf(err, "missing or bad \"%s\"", key);
    *out = (long)json_integer_value(v);
    return 0;
}

static int parse_components(json_t *arr, const char *key, uint8_t out[16], tb_err *err)
{
    if (!json_is_array(arr) || json_array_size(arr) != 16)
        return tb_errf(err, "\"%s\" is not an array of 16", key);
    for (size_t i = 0; i < 16; i++) {
        long v;
        if (get_uint(json_array_get(arr, i), "svn", 255, &v, err) < 0)
            return tb_err_wrap(err, "%s[%zu]", key, i);
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* One level: {"tcb": {...}, "tcbDate": ..., "tcbStatus": ..., "advisoryIDs": [...]}.
 * kind 0: platform level (sgx/tdx components, pcesvn); 1: isvsvn level. */
static int parse_level(json_t *l, int kind, tb_tcb_level *out, tb_err *err)
{
    json_t *tcb = json_object_get(l, "tcb");
    if (!json_is_object(tcb))
        return tb_errf(err, "missing \"tcb\"");
    long v;
    if (kind == 0) {
        if (parse_components(json_object_get(tcb, "sgxtcbcomponents"), "sgxtcbcomponents", out->sgx,
                             err) < 0 ||
            parse_components(json_object_get(tcb, "tdxtcbcomponents"), "tdxtcbcomponents", out->tdx,
                             err) < 0 ||
            get_uint(tcb, "pcesvn", 65535, &v, err) < 0)
            return -1;
        out->pcesvn = (uint16_t)v;
    } else {
        if (get_uint(tcb, "isvsvn", 65535, &v, err) < 0)
            return -1;
        out->isvsvn = (uint16_t)v;
    }
    const char *date = json_string_value(json_object_get(l, "tcbDate"));
    int64_t t;
    if (!date || tb_iso8601_parse(date, &t) < 0 || strlen(date) >= sizeof out->date)
        return tb_errf(err, "missing or bad \"tcbDate\"");
    strcpy(out->date, date);
    const char *st = json_string_value(json_object_get(l, "tcbStatus"));
    if (!st || tb_tcb_status_parse(st, &out->status) < 0)
        return tb_errf(err, "unknown tcbStatus \"%s\"", st ? st : "(missing)");
    json_t *adv = json_object_get(l, "advisoryIDs");
    if (adv) {
        if (!json_is_array(adv) || json_array_size(adv) > TB_MAX_ADVISORIES)
            return tb_errf(err, "bad \"advisoryIDs\"");
        for (size_t i = 0; i < json_array_size(adv); i++) {
            const char *a = json_string_value(json_array_get(adv, i));
            if (!a || strlen(a) >= sizeof out->adv.id[0])
                return tb_errf(err, "bad advisory ID");
            strcpy(out->adv.id[out->adv.n++], a);
        }
    }
    return 0;
}

static int parse_levels(json_t *arr, int kind, tb_tcb_level **out, int *n, tb_err *err)
{
    if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > 1024)
        return tb_errf(err, "missing or bad \"tcbLevels\"");
    *n = (int)json_array_size(arr);
    *out = calloc((size_t)*n, sizeof **out);
    if (!*out)
        return tb_errf(err, "out of memory");
    for (int i = 0; i < *n; i++)
        if (parse_level(json_array_get(arr, (size_t)i), kind, &(*out)[i], err) < 0)
            return tb_err_wrap(err, "tcbLevels[%d]", i);
    return 0;
}

static int parse_module(json_t *m, int with_levels, tb_module_identity *out, tb_err *err)
{
    if (!json_is_object(m))
        return tb_errf(err, "not an object");
    if (get_hex(m, "mrsigner", out->mrsigner, 48, err) < 0 ||
        get_hex(m, "attributes", out->attributes, 8, err) < 0 ||
        get_hex(m, "attributesMask", out->attributes_mask, 8, err) < 0)
        return -1;
    if (!with_levels)
        return 0;
    const char *id = json_string_value(json_object_get(m, "id"));
    if (!id || strlen(id) >= sizeof out->id)
        return tb_errf(err, "missing or bad \"id\"");
    strcpy(out->id, id);
    return parse_levels(json_object_get(m, "tcbLevels"), 1, &out->levels, &out->n_levels, err);
}

/* ------------------------------------------------------------- TCB info */

static int tcb_info_fill(json_t *o, tb_tcb_info *t, tb_err *err)
{
    const char *id = json_string_value(json_object_get(o, "id"));
    if (!id || strcmp(id, "TDX"))
        return tb_errf(err, "id is \"%s\", not \"TDX\"", id ? id : "(missing)");
    long v;
    if (get_uint(o, "version", 1000, &v, err) < 0)
        return -1;
    t->version = (int)v;
    if (t->version != 3)
        return tb_errf(err, "version %d (want 3)", t->version);
    if (get_date(o, "issueDate", &t->issue, err) < 0 ||
        get_date(o, "nextUpdate", &t->next, err) < 0 || get_hex(o, "fmspc", t->fmspc, 6, err) < 0 ||
        get_hex(o, "pceId", t->pceid, 2, err) < 0)
        return -1;
    json_t *mod = json_object_get(o, "tdxModule");
    if (mod) {
        if (parse_module(mod, 0, &t->module, err) < 0)
            return tb_err_wrap(err, "tdxModule");
        t->has_module = 1;
    }
    json_t *ids = json_object_get(o, "tdxModuleIdentities");
    if (ids) {
        if (!json_is_array(ids) || json_array_size(ids) > 64)
            return tb_errf(err, "bad \"tdxModuleIdentities\"");
        t->n_ids = (int)json_array_size(ids);
        t->ids = calloc((size_t)t->n_ids + 1, sizeof *t->ids);
        if (!t->ids)
            return tb_errf(err, "out of memory");
        for (int i = 0; i < t->n_ids; i++)
            if (parse_module(json_array_get(ids, (size_t)i), 1, &t->ids[i], err) < 0)
                return tb_err_wrap(err, "tdxModuleIdentities[%d]", i);
    }
    return parse_levels(json_object_get(o, "tcbLevels"), 0, &t->levels, &t->n_levels, err);
}

int tb_tcb_info_parse(const char *text, size_t n, tb_tcb_info *t, tb_err *err)
{
    memset(t, 0, sizeof *t);
    json_error_t je;
    json_t *o = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return tb_errf(err, "TCB info: not a JSON object: %s", je.text);
    }
    int rc = tcb_info_fill(o, t, err);
    json_decref(o);
    if (rc < 0) {
        tb_err_wrap(err, "TCB info");
        tb_tcb_info_free(t);
    }
    return rc;
}

void tb_tcb_info_free(tb_tcb_info *t)
{
    if (!t)
        return;
    for (int i = 0; t->ids && i < t->n_ids; i++)
        free(t->ids[i].levels);
    free(t->ids);
    free(t->levels);
    memset(t, 0, sizeof *t);
}

/* ----------------------------------------------------------- QE identity */

static int qe_identity_fill(json_t *o, tb_qe_identity *q, tb_err *err)
{
    const char *id = json_string_value(json_object_get(o, "id"));
    if (!id || strcmp(id, "TD_QE"))
        return tb_errf(err, "id is \"%s\", not \"TD_QE\"", id ? id : "(missing)");
    long v;
    if (get_uint(o, "version", 1000, &v, err) < 0)
        return -1;
    q->version = (int)v;
    if (q->version != 2)
        return tb_errf(err, "version %d (want 2)", q->version);
    uint8_t ms[4], mm[4];
    if (get_date(o, "issueDate", &q->issue, err) < 0 ||
        get_date(o, "nextUpdate", &q->next, err) < 0 || get_hex(o, "miscselect", ms, 4, err) < 0 ||
        get_hex(o, "miscselectMask", mm, 4, err) < 0 ||
        get_hex(o, "attributes", q->attributes, 16, err) < 0 ||
        get_hex(o, "attributesMask", q->attributes_mask, 16, err) < 0 ||
        get_hex(o, "mrsigner", q->mrsigner, 32, err) < 0 ||
        get_uint(o, "isvprodid", 65535, &v, err) < 0)
        return -1;
    q->isvprodid = (uint16_t)v;
    q->miscselect = (uint32_t)ms[0] << 24 | (uint32_t)ms[1] << 16 | (uint32_t)ms[2] << 8 | ms[3];
    q->miscselect_mask =
        (uint32_t)mm[0] << 24 | (uint32_t)mm[1] << 16 | (uint32_t)mm[2] << 8 | mm[3];
    return parse_levels(json_object_get(o, "tcbLevels"), 1, &q->levels, &q->n_levels, err);
}

int tb_qe_identity_parse(const char *text, size_t n, tb_qe_identity *q, tb_err *err)
{
    memset(q, 0, sizeof *q);
    json_error_t je;
    json_t *o = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return tb_errf(err, "QE identity: not a JSON object: %s", je.text);
    }
    int rc = qe_identity_fill(o, q, err);
    json_decref(o);
    if (rc < 0) {
        tb_err_wrap(err, "QE identity");
        tb_qe_identity_free(q);
    }
    return rc;
}

void tb_qe_identity_free(tb_qe_identity *q)
{
    if (!q)
        return;
    free(q->levels);
    memset(q, 0, sizeof *q);
}
