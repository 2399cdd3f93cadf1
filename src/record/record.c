/* record: the result document -- building a record, its JSON form (schema
 * "teebench-result", version TB_RECORD_SCHEMA_VERSION), strict reading, atomic
 * writing, and the default environment label.
 *
 * The JSON form, member by member (every member is required unless noted):
 *   schema "teebench-result", schema_version 1, id (lowercase UUID text),
 *   label, status ("complete" | "interrupted" | "failed"), profile, started
 *   (ISO 8601 UTC), finished (ISO 8601 UTC or ""), teebench_version, simulated
 *   (bool), env (object or null), commands (array of strings), versions (object
 *   of strings), extra (object), metrics (array of {name, unit, better
 *   ("higher" | "lower"), workload, note (string, optional), simulated (bool),
 *   samples (array of finite numbers)}).
 *
 * Invariants kept here:
 * - tb_record_from_json accepts exactly what tb_record_to_json writes: unknown
 *   members are refused (a newer writer bumps the version), so reading a
 *   document and writing it again gives the same document.
 * - A record never holds an invalid metric name, a duplicate name, or a
 *   non-finite sample: every way in (tb_record_metric, tb_metric_add,
 *   tb_record_from_json) checks.
 * - to_json writes the record's simulated flag as 1 whenever any metric is
 *   simulated; from_json refuses a document that says otherwise.
 * - Nothing here prints; "-" in tb_record_write_file is the caller's stdout as a
 *   file (a remote suite streams its result back), not a message. */
#include "record/internal.h"
#include "record/record.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/text.h"

#define RECORD_FILE_MAX (256u << 20) /* a result file larger than this is refused */
#define TEXT_MAX 4096                /* label, profile, unit, workload, version strings */

/* ---------- small helpers ---------- */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

int tb_record_set_str(char **member, const char *s, tb_err *err)
{
    char *p = NULL;
    if (s && !(p = dup_str(s)))
        return tb_errf(err, "out of memory");
    free(*member);
    *member = p;
    return 0;
}

static int uuid_format(const unsigned char b[16], char out[40])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
    return 0;
}

/* 36 bytes: 8-4-4-4-12 lowercase hex digits. Any UUID version is accepted: runs
   have random (v4) ids, imports ids derived from the file (v8). */
static int uuid_valid(const char *s)
{
    if (strlen(s) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        char c = s[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

/* "YYYY-MM-DDTHH:MM:SSZ" with plausible field ranges. */
static int iso8601_valid(const char *s)
{
    static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof pat - 1)
        return 0;
    for (size_t i = 0; pat[i]; i++) {
        if (pat[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pat[i])
            return 0;
    }
    int mo = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    int h = (s[11] - '0') * 10 + (s[12] - '0'), mi = (s[14] - '0') * 10 + (s[15] - '0');
    int se = (s[17] - '0') * 10 + (s[18] - '0');
    return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && se <= 60;
}

/* 1..TEXT_MAX bytes that print as themselves: no control character (C0, DEL, C1),
   no bidi control, UTF-8 (base/text). */
static int text_valid(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= TEXT_MAX && tb_text_plain(s, n);
}

int tb_record_label_valid(const char *label)
{
    if (!label)
        return 0;
    size_t n = strlen(label);
    if (n == 0 || n > TB_RECORD_LABEL_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = label[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || !strchr("_.- ", c)))
            return 0;
    }
    return label[n - 1] != ' ';
}

int tb_record_name_valid(const char *name)
{
    if (!name)
        return 0;
    size_t n = strlen(name);
    if (n == 0 || n > 128 || name[0] == '.' || name[n - 1] == '.')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

/* ---------- building ---------- */

static tb_record *record_new(int random_id, tb_err *err)
{
    tb_record *r = calloc(1, sizeof *r);
    if (!r) {
        tb_errf(err, "out of memory");
        return NULL;
    }
    if (random_id) {
        unsigned char b[16];
        if (RAND_bytes(b, sizeof b) != 1) {
            free(r);
            tb_err_ssl(err, "random run id");
            return NULL;
        }
        b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
        b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 9562 variant */
        uuid_format(b, r->id);
    }
    tb_utc_iso8601((int64_t)(tb_wall_ns() / 1000000000u), r->started, sizeof r->started);
    r->label = dup_str("unknown");
    r->status = dup_str("complete");
    r->profile = dup_str("custom");
    r->teebench_version = dup_str(TEEBENCH_VERSION);
    r->env = json_null();
    r->commands = json_array();
    r->versions = json_object();
    r->extra = json_object();
    if (!r->label || !r->status || !r->profile || !r->teebench_version || !r->commands ||
        !r->versions || !r->extra) {
        tb_record_free(r);
        tb_errf(err, "out of memory");
        return NULL;
    }
    return r;
}

tb_record *tb_record_new(tb_err *err)
{
    return record_new(1, err);
}

tb_record *tb_record_new_unnamed(tb_err *err)
{
    return record_new(0, err);
}

static void metric_clear(tb_metric *m)
{
    free(m->name);
    free(m->unit);
    free(m->workload);
    free(m->note);
    free(m->samples);
}

void tb_record_free(tb_record *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_metrics; i++)
        metric_clear(&r->metrics[i]);
    free(r->metrics);
    json_decref(r->by_name);
    free(r->label);
    free(r->status);
    free(r->profile);
    free(r->teebench_version);
    json_decref(r->env);
    json_decref(r->commands);
    json_decref(r->versions);
    json_decref(r->extra);
    free(r);
}

const tb_metric *tb_record_find(const tb_record *r, const char *name)
{
    if (r->by_name && json_object_size(r->by_name) == r->n_metrics) {
        const json_t *i = json_object_get(r->by_name, name);
        return i ? &r->metrics[json_integer_value(i)] : NULL;
    }
    for (size_t i = 0; i < r->n_metrics; i++) /* no index (yet): none, or a few */
        if (!strcmp(r->metrics[i].name, name))
            return &r->metrics[i];
    return NULL;
}

/* Adds metrics[n_metrics] (filled in) to the index. 0 or -1 (OOM). */
static int index_add(tb_record *r)
{
    if (!r->by_name && !(r->by_name = json_object()))
        return -1;
    return json_object_set_new(r->by_name, r->metrics[r->n_metrics].name,
                               json_integer((json_int_t)r->n_metrics));
}

tb_metric *tb_record_metric(tb_record *r, const char *name, const char *unit, int better,
                            const char *workload, tb_err *err)
{
    if (!tb_record_name_valid(name)) {
        tb_errf(err,
                "metric name '%s' is not valid (1..128 bytes of [a-z0-9_.-], no '.' at "
                "either end)",
                name ? name : "(null)");
        return NULL;
    }
    if (!unit || !text_valid(unit) || !workload || !text_valid(workload)) {
        tb_errf(err, "metric %s: unit and workload must be non-empty text", name);
        return NULL;
    }
    if (better != TB_BETTER_HIGHER && better != TB_BETTER_LOWER) {
        tb_errf(err, "metric %s: direction must be higher or lower is better", name);
        return NULL;
    }
    tb_metric *m = (tb_metric *)tb_record_find(r, name);
    if (m) {
        if (strcmp(m->unit, unit) || m->better != better) {
            tb_errf(err, "metric %s: already recorded in %s (%s is better), not %s (%s)", name,
                    m->unit, m->better > 0 ? "higher" : "lower", unit,
                    better > 0 ? "higher" : "lower");
            return NULL;
        }
        return m;
    }
    if (r->n_metrics == r->cap_metrics) {
        size_t cap = r->cap_metrics ? r->cap_metrics * 2 : 8;
        tb_metric *p = realloc(r->metrics, cap * sizeof *p);
        if (!p) {
            tb_errf(err, "out of memory");
            return NULL;
        }
        r->metrics = p;
        r->cap_metrics = cap;
    }
    m = &r->metrics[r->n_metrics];
    memset(m, 0, sizeof *m);
    m->better = better;
    m->name = dup_str(name);
    m->unit = dup_str(unit);
    m->workload = dup_str(workload);
    if (!m->name || !m->unit || !m->workload || index_add(r) < 0) {
        metric_clear(m);
        tb_errf(err, "out of memory");
        return NULL;
    }
    r->n_metrics++;
    return m;
}

int tb_metric_add(tb_metric *m, double value, tb_err *err)
{
    if (!isfinite(value))
        return tb_errf(err, "metric %s: sample %g is not a finite number", m->name, value);
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        double *p = realloc(m->samples, cap * sizeof *p);
        if (!p)
            return tb_errf(err, "out of memory");
        m->samples = p;
        m->cap = cap;
    }
    m->samples[m->n++] = value;
    return 0;
}

int tb_metric_set_note(tb_metric *m, const char *note, tb_err *err)
{
    return tb_record_set_str(&m->note, note, err);
}

/* ---------- JSON out ---------- */

static int record_simulated(const tb_record *r)
{
    if (r->simulated)
        return 1;
    for (size_t i = 0; i < r->n_metrics; i++)
        if (r->metrics[i].simulated)
            return 1;
    return 0;
}

/* json_object_set_new that remembers a failure (NULL value or OOM) in *bad. */
static void put(json_t *o, const char *key, json_t *v, int *bad)
{
    if (!v || json_object_set_new(o, key, v) < 0)
        *bad = 1;
}

static json_t *str_or(const char *s, const char *dflt)
{
    return json_string(s ? s : dflt);
}

static json_t *metric_to_json(const tb_metric *m)
{
    json_t *o = json_object(), *a = json_array();
    int bad = !o || !a;
    if (bad) {
        json_decref(o);
        json_decref(a);
        return NULL;
    }
    for (size_t i = 0; i < m->n && !bad; i++)
        if (json_array_append_new(a, json_real(m->samples[i])) < 0)
            bad = 1;
    put(o, "name", str_or(m->name, ""), &bad);
    put(o, "unit", str_or(m->unit, ""), &bad);
    put(o, "better", json_string(m->better > 0 ? "higher" : "lower"), &bad);
    put(o, "workload", str_or(m->workload, ""), &bad);
    if (m->note)
        put(o, "note", json_string(m->note), &bad);
    put(o, "simulated", json_boolean(m->simulated), &bad);
    put(o, "samples", a, &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *tb_record_to_json(const tb_record *r)
{
    json_t *o = json_object(), *ms = json_array();
    int bad = !o || !ms;
    if (bad) {
        json_decref(o);
        json_decref(ms);
        return NULL;
    }
    put(o, "schema", json_string(TB_RECORD_SCHEMA), &bad);
    put(o, "schema_version", json_integer(TB_RECORD_SCHEMA_VERSION), &bad);
    put(o, "id", json_string(r->id), &bad);
    put(o, "label", str_or(r->label, "unknown"), &bad);
    put(o, "status", str_or(r->status, "complete"), &bad);
    put(o, "profile", str_or(r->profile, "custom"), &bad);
    put(o, "started", json_string(r->started), &bad);
    put(o, "finished", json_string(r->finished), &bad);
    put(o, "teebench_version", str_or(r->teebench_version, TEEBENCH_VERSION), &bad);
    put(o, "simulated", json_boolean(record_simulated(r)), &bad);
    put(o, "env", r->env ? json_deep_copy(r->env) : json_null(), &bad);
    put(o, "commands", r->commands ? json_deep_copy(r->commands) : json_array(), &bad);
    put(o, "versions", r->versions ? json_deep_copy(r->versions) : json_object(), &bad);
    put(o, "extra", r->extra ? json_deep_copy(r->extra) : json_object(), &bad);
    for (size_t i = 0; i < r->n_metrics && !bad; i++)
        if (json_array_append_new(ms, metric_to_json(&r->metrics[i])) < 0)
            bad = 1;
    put(o, "metrics", ms, &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---------- JSON in ---------- */

/* Refuses members other than the allowed ones (NULL-terminated list). */
static int only_members(const json_t *o, const char *const *allowed, const char *where, tb_err *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        int ok = 0;
        for (size_t i = 0; allowed[i] && !ok; i++)
            ok = !strcmp(key, allowed[i]);
        if (!ok)
            return tb_errf(err, "%sunknown member \"%.64s\"", where, key);
    }
    return 0;
}

/* A required string member; *out points into the JSON document. */
static int get_str(const json_t *o, const char *key, const char *where, const char **out,
                   tb_err *err)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return tb_errf(err, "%smissing member \"%s\"", where, key);
    if (!json_is_string(v))
        return tb_errf(err, "%s\"%s\" must be a string", where, key);
    if (strlen(json_string_value(v)) != json_string_length(v))
        return tb_errf(err, "%s\"%s\" contains a NUL character", where, key);
    *out = json_string_value(v);
    return 0;
}

static int get_text(const json_t *o, const char *key, const char *where, const char **out,
                    tb_err *err)
{
    if (get_str(o, key, where, out, err) < 0)
        return -1;
    if (!text_valid(*out))
        return tb_errf(err,
                       "%s\"%s\" must be 1..%d characters without control characters (C0, "
                       "C1, bidi)",
                       where, key, TEXT_MAX);
    return 0;
}

static int get_bool(const json_t *o, const char *key, const char *where, int *out, tb_err *err)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return tb_errf(err, "%smissing member \"%s\"", where, key);
    if (!json_is_boolean(v))
        return tb_errf(err, "%s\"%s\" must be true or false", where, key);
    *out = json_is_true(v);
    return 0;
}

static int check_schema(const json_t *doc, tb_err *err)
{
    if (!json_is_object(doc))
        return tb_errf(err, "not a teebench result (the document is not a JSON object)");
    const json_t *s = json_object_get(doc, "schema");
    if (!s)
        return tb_errf(err, "not a teebench result (no \"schema\" member)");
    if (!json_is_string(s) || strcmp(json_string_value(s), TB_RECORD_SCHEMA))
        return tb_errf(err, "not a teebench result (schema %s%.64s%s, expected \"%s\")",
                       json_is_string(s) ? "\"" : "",
                       json_is_string(s) ? json_string_value(s) : "of the wrong type",
                       json_is_string(s) ? "\"" : "", TB_RECORD_SCHEMA);
    const json_t *v = json_object_get(doc, "schema_version");
    if (!v)
        return tb_errf(err, "missing member \"schema_version\"");
    if (!json_is_integer(v))
        return tb_errf(err, "\"schema_version\" must be an integer");
    if (json_integer_value(v) != TB_RECORD_SCHEMA_VERSION)
        return tb_errf(err, "schema version %lld is not supported by this teebench (reads %d)",
                       (long long)json_integer_value(v), TB_RECORD_SCHEMA_VERSION);
    return 0;
}

static int metric_from_json(const json_t *o, size_t idx, tb_record *r, tb_err *err)
{
    static const char *const allowed[] = {"name", "unit",      "better",  "workload",
                                          "note", "simulated", "samples", NULL};
    char where[48];
    snprintf(where, sizeof where, "metrics[%zu]: ", idx);
    if (!json_is_object(o))
        return tb_errf(err, "%smust be an object", where);
    if (only_members(o, allowed, where, err) < 0)
        return -1;
    const char *name, *unit, *better, *workload;
    if (get_str(o, "name", where, &name, err) < 0)
        return -1;
    if (!tb_record_name_valid(name))
        return tb_errf(err, "%sname \"%.64s\" is not a valid metric name", where, name);
    snprintf(where, sizeof where, "metric %.32s: ", name);
    if (tb_record_find(r, name))
        return tb_errf(err, "%sappears twice", where);
    if (get_text(o, "unit", where, &unit, err) < 0 ||
        get_str(o, "better", where, &better, err) < 0 ||
        get_text(o, "workload", where, &workload, err) < 0)
        return -1;
    int dir = !strcmp(better, "higher")  ? TB_BETTER_HIGHER
              : !strcmp(better, "lower") ? TB_BETTER_LOWER
                                         : 0;
    if (!dir)
        return tb_errf(err, "%s\"better\" must be \"higher\" or \"lower\"", where);
    const json_t *note = json_object_get(o, "note");
    if (note && !json_is_string(note))
        return tb_errf(err, "%s\"note\" must be a string", where);
    if (note && strlen(json_string_value(note)) != json_string_length(note))
        return tb_errf(err, "%s\"note\" contains a NUL character", where);
    int sim;
    if (get_bool(o, "simulated", where, &sim, err) < 0)
        return -1;
    const json_t *samples = json_object_get(o, "samples");
    if (!samples)
        return tb_errf(err, "%smissing member \"samples\"", where);
    if (!json_is_array(samples))
        return tb_errf(err, "%s\"samples\" must be an array of numbers", where);
    tb_metric *m = tb_record_metric(r, name, unit, dir, workload, err);
    if (!m)
        return -1;
    m->simulated = sim;
    if (note && tb_metric_set_note(m, json_string_value(note), err) < 0)
        return -1;
    size_t i;
    const json_t *s;
    json_array_foreach(samples, i, s)
    {
        if (!json_is_number(s))
            return tb_errf(err, "%ssample %zu is not a number", where, i);
        if (tb_metric_add(m, json_number_value(s), err) < 0)
            return -1;
    }
    if (sim && !r->simulated)
        return tb_errf(err, "%sis simulated but the record says \"simulated\": false", where);
    return 0;
}

static int record_fill(const json_t *doc, tb_record *r, tb_err *err)
{
    static const char *const allowed[] = {
        "schema",           "schema_version", "id",      "label",
        "status",           "profile",        "started", "finished",
        "teebench_version", "simulated",      "env",     "commands",
        "versions",         "extra",          "metrics", NULL};
    if (only_members(doc, allowed, "", err) < 0)
        return -1;
    const char *id, *label, *status, *profile, *started, *finished, *ver;
    if (get_str(doc, "id", "", &id, err) < 0)
        return -1;
    if (!uuid_valid(id))
        return tb_errf(err, "\"id\" must be a lowercase UUID (8-4-4-4-12 hex digits)");
    if (get_text(doc, "label", "", &label, err) < 0 ||
        get_str(doc, "status", "", &status, err) < 0 ||
        get_text(doc, "profile", "", &profile, err) < 0 ||
        get_str(doc, "started", "", &started, err) < 0 ||
        get_str(doc, "finished", "", &finished, err) < 0 ||
        get_text(doc, "teebench_version", "", &ver, err) < 0 ||
        get_bool(doc, "simulated", "", &r->simulated, err) < 0)
        return -1;
    if (strcmp(status, "complete") && strcmp(status, "interrupted") && strcmp(status, "failed"))
        return tb_errf(err, "\"status\" must be \"complete\", \"interrupted\" or \"failed\"");
    if (!iso8601_valid(started))
        return tb_errf(err, "\"started\" must be an ISO 8601 UTC time (2026-01-31T12:00:00Z)");
    if (*finished && !iso8601_valid(finished))
        return tb_errf(err, "\"finished\" must be \"\" or an ISO 8601 UTC time");
    const json_t *env = json_object_get(doc, "env"), *cmds = json_object_get(doc, "commands"),
                 *vers = json_object_get(doc, "versions"), *extra = json_object_get(doc, "extra"),
                 *ms = json_object_get(doc, "metrics");
    if (!env || !(json_is_object(env) || json_is_null(env)))
        return tb_errf(err, "\"env\" must be an object or null");
    if (!cmds || !json_is_array(cmds))
        return tb_errf(err, "\"commands\" must be an array of strings");
    size_t i;
    const json_t *v;
    json_array_foreach(cmds, i, v)
    {
        if (!json_is_string(v))
            return tb_errf(err, "\"commands\" must be an array of strings");
    }
    if (!vers || !json_is_object(vers))
        return tb_errf(err, "\"versions\" must be an object of strings");
    const char *k;
    json_object_foreach((json_t *)vers, k, v)
    {
        if (!json_is_string(v))
            return tb_errf(err, "\"versions\" must be an object of strings (\"%.64s\" is not)", k);
    }
    if (!extra || !json_is_object(extra))
        return tb_errf(err, "\"extra\" must be an object");
    if (!ms || !json_is_array(ms))
        return tb_errf(err, "\"metrics\" must be an array");

    memcpy(r->id, id, 37);
    snprintf(r->started, sizeof r->started, "%s", started);
    snprintf(r->finished, sizeof r->finished, "%s", finished);
    json_decref(r->env);
    json_decref(r->commands);
    json_decref(r->versions);
    json_decref(r->extra);
    r->env = json_deep_copy(env);
    r->commands = json_deep_copy(cmds);
    r->versions = json_deep_copy(vers);
    r->extra = json_deep_copy(extra);
    if (!r->env || !r->commands || !r->versions || !r->extra ||
        tb_record_set_str(&r->label, label, err) < 0 ||
        tb_record_set_str(&r->status, status, err) < 0 ||
        tb_record_set_str(&r->profile, profile, err) < 0 ||
        tb_record_set_str(&r->teebench_version, ver, err) < 0)
        return tb_errf(err, "out of memory");
    json_array_foreach(ms, i, v)
    {
        if (metric_from_json(v, i, r, err) < 0)
            return -1;
    }
    return 0;
}

int tb_record_from_json(const json_t *doc, tb_record **out, tb_err *err)
{
    *out = NULL;
    if (check_schema(doc, err) < 0)
        return -1;
    tb_record *r = tb_record_new_unnamed(err); /* record_fill copies the document's id */
    if (!r)
        return -1;
    if (record_fill(doc, r, err) < 0) {
        tb_record_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

int tb_record_read_file(const char *path, tb_record **out, tb_err *err)
{
    *out = NULL;
    tb_buf b = {0};
    if (tb_file_read(path, RECORD_FILE_MAX, &b, err) < 0)
        return -1;
    json_error_t je;
    json_t *doc = json_loadb(b.p ? (const char *)b.p : "", b.len, JSON_REJECT_DUPLICATES, &je);
    tb_buf_clear(&b);
    if (!doc)
        return tb_errf(err, "%s: not valid JSON (line %d, column %d: %s)", path, je.line, je.column,
                       je.text);
    int rc = tb_record_from_json(doc, out, err);
    json_decref(doc);
    if (rc < 0)
        return tb_err_wrap(err, "%s", path);
    return 0;
}

/* The fewest significant digits (%.*g) that read back as exactly v. */
static int shortest_digits(double v)
{
    char s[40];
    for (int p = 1; p < 17; p++) {
        snprintf(s, sizeof s, "%.*g", p, v);
        if (strtod(s, NULL) == v)
            return p;
    }
    return 17;
}

/* The precision that writes every real in j exactly and no longer than needed
   (jansson's default of 17 digits writes 0.1 as 0.10000000000000001). Covers the
   whole document: env, extra and samples alike. */
static int doc_precision(const json_t *j, int best)
{
    if (best >= 17)
        return best;
    if (json_is_real(j)) {
        /* Most reals are covered by the precision so far: one check, not a search. */
        char t[40];
        double v = json_real_value(j);
        snprintf(t, sizeof t, "%.*g", best, v);
        if (strtod(t, NULL) == v)
            return best;
        int p = shortest_digits(v);
        return p > best ? p : best;
    }
    if (json_is_array(j)) {
        size_t i;
        const json_t *v;
        json_array_foreach(j, i, v)
        {
            best = doc_precision(v, best);
        }
    } else if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v)
        {
            best = doc_precision(v, best);
        }
    }
    return best;
}

char *tb_record_dumps(const tb_record *r, int compact, size_t *len)
{
    json_t *doc = tb_record_to_json(r);
    size_t flags = (compact ? JSON_COMPACT : JSON_INDENT(2)) |
                   JSON_REAL_PRECISION(doc ? doc_precision(doc, 1) : 17);
    char *text = doc ? json_dumps(doc, flags) : NULL;
    json_decref(doc);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    if (!compact) {
        char *p = realloc(text, n + 2);
        if (!p) {
            free(text);
            return NULL;
        }
        text = p;
        text[n++] = '\n';
        text[n] = '\0';
    }
    if (len)
        *len = n;
    return text;
}

int tb_record_write_file(const tb_record *r, const char *path, tb_err *err)
{
    size_t n;
    char *text = tb_record_dumps(r, 0, &n);
    if (!text)
        return tb_errf(err, "%s: out of memory", path);
    int rc = 0;
    if (!strcmp(path, "-")) {
        if (fwrite(text, 1, n, stdout) != n || fflush(stdout) != 0)
            rc = tb_errno(err, "standard output");
    } else {
        rc = tb_file_write_atomic(path, text, n, err);
    }
    free(text);
    return rc;
}

/* ---------- default label ---------- */

static const char *fact(const json_t *env, const char *key)
{
    const json_t *f = json_object_get(env, key);
    return json_string_value(json_is_object(f) ? json_object_get(f, "value") : f);
}

/* A hypervisor name as a label part: the short names people use ("kvm", "tcg",
   "hyperv"), otherwise the name lowercased with runs of other bytes as '-'. */
static void hv_slug(const char *hv, char *out, size_t out_len)
{
    static const struct {
        const char *prefix, *slug;
    } known[] = {
        {"KVM", "kvm"},        {"QEMU TCG", "tcg"},    {"TCG", "tcg"}, {"Microsoft", "hyperv"},
        {"Hyper-V", "hyperv"}, {"VMware", "vmware"},   {"Xen", "xen"}, {"VirtualBox", "virtualbox"},
        {"bhyve", "bhyve"},    {"Intel EVMM", "evmm"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strncmp(hv, known[i].prefix, strlen(known[i].prefix))) {
            snprintf(out, out_len, "%s", known[i].slug);
            return;
        }
    size_t o = 0;
    int dash = 0;
    for (const char *p = hv; *p && o + 1 < out_len && o < 32; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && o > 0 && o + 2 < out_len)
                out[o++] = '-';
            out[o++] = c;
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[o] = '\0';
}

void tb_record_default_label(const json_t *env, char *out, size_t out_len)
{
    if (!out || out_len == 0)
        return;
    const char *platform = json_is_object(env) ? fact(env, "platform") : NULL;
    const char *label = "unknown";
    if (platform && (!strcmp(platform, "tdx-guest") || !strcmp(platform, "sev-snp-guest") ||
                     !strcmp(platform, "sev-es-guest") || !strcmp(platform, "sev-guest") ||
                     !strcmp(platform, "bare-metal")))
        label = platform;
    if (platform && !strcmp(platform, "vm")) {
        const char *hv = fact(env, "hypervisor");
        char slug[40] = "";
        if (hv && strcmp(hv, "unknown") && strcmp(hv, "none") && strcmp(hv, "unrecognised"))
            hv_slug(hv, slug, sizeof slug);
        if (*slug)
            snprintf(out, out_len, "vm-%s", slug);
        else
            snprintf(out, out_len, "vm");
        return;
    }
    snprintf(out, out_len, "%s", label);
}
