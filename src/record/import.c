/* import: other teebench outputs as records (formats and metric names in
 * import.h).
 *
 * Invariants:
 * - The format is decided by the content: a JSON object's "schema" (or "tool"
 *   for `teebench http --json`), or the exact results.csv header; a folder must
 *   hold results.csv. Anything else is refused with one line naming the file.
 * - Every number taken into a metric is checked (present, a finite number of the
 *   right sign); a missing or mistyped member is an error naming it, never a
 *   metric with a made-up value.
 * - The id of an imported record is derived from the format, the bytes read
 *   (every file of a folder that goes into the record), the label and the http
 *   target, so importing the same input twice gives the same id; a teebench
 *   result document keeps its own id.
 * - Nothing here writes: import reads files and returns a record. */
#include "record/import.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/evp.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/text.h"
#include "benchcsv/benchcsv.h"
#include "record/internal.h"
#include "workloads/notary.h"
#include "workloads/tlsn.h"
#include "workloads/workload.h"

_Static_assert((int)TB_WL_HIGHER == (int)TB_BETTER_HIGHER &&
                   (int)TB_WL_LOWER == (int)TB_BETTER_LOWER,
               "workloads/ and record/ agree on directions");

#define IMPORT_FILE_MAX (256u << 20)

const char *tb_import_format_name(enum tb_import_format f)
{
    switch (f) {
    case TB_IMPORT_RESULT:
        return "result";
    case TB_IMPORT_DOC:
        return "document";
    case TB_IMPORT_BENCH_DIR:
        return "bench-dir";
    case TB_IMPORT_BENCH_CSV:
        return "bench-csv";
    }
    return "?";
}

/* ---------- ids, names, times ---------- */

/* The id: SHA-256 over the parts (each preceded by its length), as an RFC 9562
   version 8 (custom) UUID. */
typedef struct idhash {
    EVP_MD_CTX *ctx;
} idhash;

/* format: extra.source.format ("http", "bench-dir", ...). */
static int id_begin(idhash *h, const char *format, const tb_import_opts *o, tb_err *err)
{
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
        return tb_err_ssl(err, "SHA-256");
    const char *parts[] = {"teebench-import", format, o && o->label ? o->label : "",
                           o && o->target ? o->target : ""};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        uint64_t n = strlen(parts[i]);
        if (EVP_DigestUpdate(h->ctx, &n, sizeof n) != 1 ||
            EVP_DigestUpdate(h->ctx, parts[i], n) != 1)
            return tb_err_ssl(err, "SHA-256");
    }
    return 0;
}

static int id_add(idhash *h, const void *p, size_t len, tb_err *err)
{
    uint64_t n = len;
    if (EVP_DigestUpdate(h->ctx, &n, sizeof n) != 1 || EVP_DigestUpdate(h->ctx, p, len) != 1)
        return tb_err_ssl(err, "SHA-256");
    return 0;
}

static int id_end(idhash *h, char out[40], tb_err *err)
{
    unsigned char md[32];
    unsigned int n = 0;
    int ok = EVP_DigestFinal_ex(h->ctx, md, &n) == 1;
    EVP_MD_CTX_free(h->ctx);
    h->ctx = NULL;
    if (!ok)
        return tb_err_ssl(err, "SHA-256");
    md[6] = (unsigned char)((md[6] & 0x0f) | 0x80); /* version 8: custom */
    md[8] = (unsigned char)((md[8] & 0x3f) | 0x80); /* RFC 9562 variant */
    char hex[33];
    tb_hex_encode(md, 16, hex);
    snprintf(out, 40, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
    return 0;
}

static void id_free(idhash *h)
{
    EVP_MD_CTX_free(h->ctx);
    h->ctx = NULL;
}

/* "2026-11-30T19:16:38Z" from "20261130T191638Z" (a bench folder's name). */
static int stamp_to_iso(const char *stamp, char *out, size_t n)
{
    if (strlen(stamp) != 16 || stamp[8] != 'T' || stamp[15] != 'Z')
        return -1;
    for (int i = 0; i < 15; i++)
        if (i != 8 && (stamp[i] < '0' || stamp[i] > '9'))
            return -1;
    snprintf(out, n, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", stamp, stamp + 4, stamp + 6, stamp + 9,
             stamp + 11, stamp + 13);
    return 0;
}

#define LAST_SECOND 253402300799LL /* 9999-12-31T23:59:59Z: four-digit years only */

static void file_time(const char *path, char *out, size_t n)
{
    struct stat st;
    int64_t t = stat(path, &st) == 0 ? (int64_t)st.st_mtime : 0;
    if (t < 0 || t > LAST_SECOND)
        t = 0;
    tb_utc_iso8601(t, out, n);
}

/* A version string worth keeping: 1..128 bytes that print as themselves. */
static int version_ok(const char *v)
{
    size_t n = strlen(v);
    return n > 0 && n <= 128 && tb_text_plain(v, n);
}

/* ---------- building the record ---------- */

typedef struct importer {
    tb_record *r;
    const char *path;
    enum tb_import_format fmt;
    const char *format; /* extra.source.format: tb_import_format_name, or a workload's name */
    tb_err *err;
} importer;

/* One metric with the given samples (none added when n == 0 and the values are
   absent); note may be NULL. Its unit, direction and workload are its workload's
   table's (workloads/): a name no table has is a bug here. */
static int add(importer *im, const char *name, const char *note, int simulated, const double *v,
               size_t n)
{
    tb_wl_match wm;
    if (!tb_wl_metric_find(name, &wm))
        return tb_errf(im->err, "metric %s is in no workload's table", name);
    tb_metric *m = tb_record_metric(im->r, name, wm.metric->unit, wm.metric->better,
                                    wm.workload->name, im->err);
    if (!m)
        return -1;
    m->simulated |= simulated;
    if (note && !m->note && tb_metric_set_note(m, note, im->err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (tb_metric_add(m, v[i], im->err) < 0)
            return -1;
    if (simulated)
        im->r->simulated = 1;
    return 0;
}

/* The common part of every imported record: profile, status, label, env, source. */
static int finish(importer *im, const tb_import_opts *o, json_t *env, const char *started,
                  const char *finished, const char *version)
{
    tb_record *r = im->r;
    tb_err *err = im->err;
    if (o && o->label && !tb_record_label_valid(o->label))
        return tb_errf(err, "label '%.64s' is not valid (" TB_RECORD_LABEL_RULE ")", o->label);
    if (env && json_is_object(env)) {
        json_decref(r->env);
        r->env = json_deep_copy(env);
        if (!r->env)
            return tb_errf(err, "out of memory");
    }
    char label[64];
    tb_record_default_label(r->env, label, sizeof label);
    if (tb_record_set_str(&r->label, o && o->label ? o->label : label, err) < 0 ||
        tb_record_set_str(&r->profile, "imported", err) < 0 ||
        (version && version_ok(version) &&
         tb_record_set_str(&r->teebench_version, version, err) < 0))
        return -1;
    snprintf(r->started, sizeof r->started, "%s", started);
    snprintf(r->finished, sizeof r->finished, "%s", finished ? finished : started);
    json_t *src = json_pack("{s:s, s:s}", "format", im->format, "path", im->path);
    if (!src || json_object_set_new(r->extra, "source", src) < 0)
        return tb_errf(err, "out of memory");
    return 0;
}

/* ---------- a workload's document ---------- */

/* The importer as a workload's sink: samples go into the record through add(), facts
   into extra. */
static int im_sample(void *ctx, const char *name, double value, int simulated, const char *note,
                     tb_err *err)
{
    importer *im = ctx;
    int rc = add(im, name, note, simulated, &value, 1);
    if (rc < 0 && err && err != im->err)
        *err = *im->err;
    return rc;
}

static void im_fact(void *ctx, const char *key, json_t *value)
{
    importer *im = ctx;
    json_object_set_new(im->r->extra, key, value);
}

/* A document a workload reads (workloads/: its doc_read); times the document does not
   say are the file's. */
static int import_doc(importer *im, const tb_workload *w, const json_t *doc,
                      const tb_import_opts *o)
{
    tb_wl_sink sink = {.ctx = im, .sample = im_sample, .fact = im_fact, .dir_fd = -1};
    tb_wl_read_opts ro = {.target = o ? o->target : NULL};
    tb_wl_doc_info info;
    memset(&info, 0, sizeof info);
    tb_err e = {{0}};
    if (w->doc_read(doc, &ro, &sink, &info, &e) < 0)
        return tb_errf(im->err, "%s: %s", im->path, e.msg);
    char started[40], finished[40];
    if (info.started[0])
        snprintf(started, sizeof started, "%s", info.started);
    else
        file_time(im->path, started, sizeof started);
    snprintf(finished, sizeof finished, "%s", info.finished[0] ? info.finished : started);
    return finish(im, o, (json_t *)info.env, started, finished, info.version);
}

/* ---------- results.csv (teebench bench notary or benchmark-tee-impact.sh) ---------- */

/* The rows' samples, as the suite records them (workloads/notary). */
static int notary_metrics(importer *im, const tb_bench_results *rs, int simulated)
{
    if (rs->n == 0)
        return tb_errf(im->err, "%s: results.csv has no rows", im->path);
    tb_wl_sink sink = {.ctx = im, .sample = im_sample, .fact = im_fact, .dir_fd = -1};
    tb_wl_notary_rows_opts o = {.simulated = simulated, .overheads = 1};
    return tb_wl_notary_rows(rs, &o, &sink, im->err);
}

/* A bench tlsn folder's rows and phases, as the suite's tlsn workload records them. */
static int tlsn_metrics(importer *im, const tb_bench_results *rs, const char *phases, int simulated)
{
    if (rs->n == 0)
        return tb_errf(im->err, "%s: results.csv has no rows", im->path);
    tb_wl_sink sink = {.ctx = im, .sample = im_sample, .fact = im_fact, .dir_fd = -1};
    return tb_wl_tlsn_rows(rs, phases, simulated, &sink, im->err);
}

static int import_csv(importer *im, const char *data, size_t len, const tb_import_opts *o)
{
    tb_bench_results rs = {0};
    tb_err e;
    if (tb_bench_results_parse(data, len, &rs, &e) < 0) {
        tb_bench_results_clear(&rs);
        return tb_errf(im->err, "%s: %s", im->path, e.msg);
    }
    int rc = notary_metrics(im, &rs, 0);
    tb_bench_results_clear(&rs);
    if (rc < 0)
        return -1;
    char started[40];
    file_time(im->path, started, sizeof started);
    return finish(im, o, NULL, started, NULL, NULL);
}

/* ---------- detection ---------- */

static int starts_with_header(const char *data, size_t len)
{
    static const char bom[] = "\xef\xbb\xbf";
    if (len >= 3 && !memcmp(data, bom, 3)) {
        data += 3;
        len -= 3;
    }
    static const char h[] = "mode,iteration,";
    return len >= sizeof h - 1 && !memcmp(data, h, sizeof h - 1);
}

static int new_importer(importer *im, const char *path, tb_err *err)
{
    im->path = path;
    im->err = err;
    im->r = tb_record_new_unnamed(err); /* its id is the document's or id_end's */
    return im->r ? 0 : -1;
}

static int import_json(importer *im, const char *data, size_t len, const tb_import_opts *o)
{
    json_error_t je;
    json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return tb_errf(im->err, "%s: not valid JSON (line %d, column %d: %s)", im->path, je.line,
                       je.column, je.text);
    int rc = -1;
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    const tb_workload *w;
    if (!json_is_object(doc)) {
        tb_errf(im->err,
                "%s: not a format teebench imports (a JSON document that is not an "
                "object)",
                im->path);
    } else if (schema && !strcmp(schema, TB_RECORD_SCHEMA)) {
        tb_record *r = NULL;
        im->fmt = TB_IMPORT_RESULT;
        im->format = tb_import_format_name(im->fmt);
        rc = tb_record_from_json(doc, &r, im->err);
        if (rc < 0) {
            tb_err_wrap(im->err, "%s", im->path);
        } else {
            tb_record_free(im->r);
            im->r = r;
            if (o && o->label && !tb_record_label_valid(o->label))
                rc = tb_errf(im->err, "label '%.64s' is not valid (" TB_RECORD_LABEL_RULE ")",
                             o->label);
            else if (o && o->label && tb_record_set_str(&r->label, o->label, im->err) < 0)
                rc = -1;
        }
    } else if ((w = tb_workload_for_doc(doc))) {
        im->fmt = TB_IMPORT_DOC;
        im->format = w->name;
        rc = import_doc(im, w, doc, o);
    } else if (schema) {
        char schemas[256];
        tb_workload_doc_schemas(schemas, sizeof schemas);
        tb_errf(im->err,
                "%s: not a format teebench imports (schema \"%.64s\"; it reads teebench-result, "
                "%s, results.csv)",
                im->path, schema, schemas);
    } else {
        tb_errf(im->err,
                "%s: not a format teebench imports (a JSON object without \"schema\" that is "
                "not teebench http --json output)",
                im->path);
    }
    json_decref(doc);
    return rc;
}

/* The record must read back as a valid result document (the invariant every
   importer keeps; a check, so that a hostile input that slips past a member
   check is an error here, not a stored document nobody can read). */
static int check_valid(importer *im)
{
    json_t *doc = tb_record_to_json(im->r);
    tb_record *back = NULL;
    if (!doc)
        return tb_errf(im->err, "out of memory");
    int rc = tb_record_from_json(doc, &back, im->err);
    json_decref(doc);
    tb_record_free(back);
    if (rc < 0)
        return tb_err_wrap(im->err, "%s: the imported record is not valid", im->path);
    return 0;
}

/* Sets the id from the content unless the record brought its own (a result). */
static int set_id(importer *im, const char *data, size_t len, const tb_import_opts *o)
{
    if (im->fmt == TB_IMPORT_RESULT)
        return 0;
    idhash h = {0};
    if (id_begin(&h, im->format, o, im->err) < 0 || id_add(&h, data, len, im->err) < 0) {
        id_free(&h);
        return -1;
    }
    return id_end(&h, im->r->id, im->err);
}

int tb_record_import_bytes(const char *data, size_t len, const char *name,
                           const tb_import_opts *opts, tb_record **out, enum tb_import_format *fmt,
                           tb_err *err)
{
    *out = NULL;
    importer im = {0};
    if (new_importer(&im, name, err) < 0)
        return -1;
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    int rc;
    if (i < len && (data[i] == '{' || data[i] == '[')) {
        rc = import_json(&im, data, len, opts);
    } else if (starts_with_header(data, len)) {
        im.fmt = TB_IMPORT_BENCH_CSV;
        im.format = tb_import_format_name(im.fmt);
        rc = import_csv(&im, data, len, opts);
    } else {
        rc = tb_errf(err,
                     "%s: not a format teebench imports (neither JSON nor a results.csv with "
                     "the header mode,iteration,...)",
                     name);
    }
    if (rc == 0)
        rc = set_id(&im, data, len, opts);
    if (rc == 0 && im.fmt != TB_IMPORT_RESULT)
        rc = check_valid(&im);
    if (rc < 0) {
        tb_record_free(im.r);
        return -1;
    }
    if (fmt)
        *fmt = im.fmt;
    *out = im.r;
    return 0;
}

/* ---------- a bench notary folder ---------- */

static int read_into(const char *dir, const char *file, tb_buf *b, int optional, tb_err *err)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s/%s", dir, file) >= (int)sizeof p)
        return tb_errf(err, "%s: path too long", dir);
    struct stat st;
    if (optional && stat(p, &st) < 0 && errno == ENOENT)
        return 1;
    return tb_file_read(p, IMPORT_FILE_MAX, b, err);
}

static int import_dir(importer *im, const tb_import_opts *o)
{
    tb_buf csv = {0}, run = {0}, env = {0};
    tb_err *err = im->err;
    int rc = -1;
    json_t *runj = NULL, *envj = NULL;
    tb_bench_results rs = {0};
    im->fmt = TB_IMPORT_BENCH_DIR;
    im->format = tb_import_format_name(im->fmt);
    int has_run = 0, has_env = 0;
    int got = read_into(im->path, "results.csv", &csv, 1, err);
    if (got != 0) {
        if (got > 0)
            tb_errf(err, "%s: a folder without results.csv (not a teebench bench results folder)",
                    im->path);
        goto out;
    }
    if ((has_run = read_into(im->path, "run.json", &run, 1, err)) < 0 ||
        (has_env = read_into(im->path, "env.json", &env, 1, err)) < 0)
        goto out;
    has_run = has_run == 0;
    has_env = has_env == 0;
    json_error_t je;
    if (has_run && !(runj = json_loadb((const char *)run.p, run.len, 0, &je))) {
        tb_errf(err, "%s/run.json: not valid JSON (%s)", im->path, je.text);
        goto out;
    }
    if (has_env && !(envj = json_loadb((const char *)env.p, env.len, 0, &je))) {
        tb_errf(err, "%s/env.json: not valid JSON (%s)", im->path, je.text);
        goto out;
    }
    tb_err e;
    if (tb_bench_results_parse(csv.p ? (const char *)csv.p : "", csv.len, &rs, &e) < 0) {
        tb_errf(err, "%s/results.csv: %s", im->path, e.msg);
        goto out;
    }
    int simulated = json_is_true(json_object_get(runj, "simulated"));
    /* a bench tlsn folder (phases.csv beside results.csv): the tlsn workload's samples */
    tb_buf ph = {0};
    int has_ph = read_into(im->path, "phases.csv", &ph, 1, err);
    int mrc = has_ph < 0    ? -1
              : has_ph == 0 ? tlsn_metrics(im, &rs, (const char *)ph.p, simulated)
                            : notary_metrics(im, &rs, simulated);
    tb_buf_clear(&ph);
    if (mrc < 0)
        goto out;
    const char *status = json_string_value(json_object_get(runj, "status"));
    if (status &&
        (!strcmp(status, "complete") || !strcmp(status, "interrupted") ||
         !strcmp(status, "failed")) &&
        tb_record_set_str(&im->r->status, status, err) < 0)
        goto out;
    /* Started: the folder's name (the harness's UTC stamp), else its mtime. */
    char started[40];
    char trimmed[4096];
    snprintf(trimmed, sizeof trimmed, "%s", im->path);
    size_t ln = strlen(trimmed);
    while (ln > 1 && trimmed[ln - 1] == '/')
        trimmed[--ln] = '\0';
    const char *base = strrchr(trimmed, '/');
    if (stamp_to_iso(base ? base + 1 : trimmed, started, sizeof started) < 0) {
        char p[4096];
        snprintf(p, sizeof p, "%s/results.csv", im->path);
        file_time(p, started, sizeof started);
    }
    if (runj && json_object_set(im->r->extra, "bench", runj) < 0) {
        tb_errf(err, "out of memory");
        goto out;
    }
    if (finish(im, o, envj, started, NULL,
               json_string_value(json_object_get(runj, "teebench_version"))) < 0)
        goto out;
    idhash h = {0};
    if (id_begin(&h, im->format, o, err) < 0 || id_add(&h, csv.p, csv.len, err) < 0 ||
        id_add(&h, run.p ? (const void *)run.p : "", run.len, err) < 0 ||
        id_add(&h, env.p ? (const void *)env.p : "", env.len, err) < 0) {
        id_free(&h);
        goto out;
    }
    if (id_end(&h, im->r->id, err) < 0 || check_valid(im) < 0)
        goto out;
    rc = 0;
out:
    tb_bench_results_clear(&rs);
    json_decref(runj);
    json_decref(envj);
    tb_buf_clear(&csv);
    tb_buf_clear(&run);
    tb_buf_clear(&env);
    return rc;
}

int tb_record_import_file(const char *path, const tb_import_opts *opts, tb_record **out,
                          enum tb_import_format *fmt, tb_err *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) < 0)
        return tb_errno(err, "%s", path);
    if (S_ISDIR(st.st_mode)) {
        importer im = {0};
        if (new_importer(&im, path, err) < 0)
            return -1;
        if (import_dir(&im, opts) < 0) {
            tb_record_free(im.r);
            return -1;
        }
        if (fmt)
            *fmt = im.fmt;
        *out = im.r;
        return 0;
    }
    tb_buf b = {0};
    if (tb_file_read(path, IMPORT_FILE_MAX, &b, err) < 0)
        return -1;
    int rc = tb_record_import_bytes(b.p ? (const char *)b.p : "", b.len, path, opts, out, fmt, err);
    tb_buf_clear(&b);
    return rc;
}
