/* workloads/param: a workload's parameters read and written through its table
 * (workload.h: tb_wl_param) -- defaults per profile, one setting from its text,
 * the plan's JSON form; durations in whole seconds, lists of names (TB_WLP_NAMES) and
 * lists read token by token (TB_WLP_LIST) done by the table alone -- and the parsers a
 * custom parameter builds on (seconds, integers, sizes in binary units, text).
 *
 * Invariants: a setting either succeeds whole or leaves the parameters as they
 * were (it works on a copy, which w->check must accept); defaults go through the
 * same parsers as settings, so a default is a value a user could have typed;
 * nothing here allocates but the JSON it returns. Messages name the setting as
 * the user writes it: "<workload>.<key>". */
#include "workloads/workload.h"

#include "base/num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tb_wl_profile_parse(const char *name)
{
    static const char *const names[TB_WL_PROFILES] = {"quick", "standard", "seed"};
    for (int i = 0; i < TB_WL_PROFILES; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

int tb_wl_parse_seconds(const char *key, const char *v, double lo, double hi, double *out,
                        tb_err *err)
{
    static const tb_num_unit units[] = {{"", 1, 1}, {"s", 1, 1}, {"ms", 1, 1000}, {"m", 60, 1}};
    switch (tb_num_scaled(v, units, sizeof units / sizeof units[0], lo, hi, out)) {
    case TB_NUM_OK:
        return 0;
    case TB_NUM_RANGE:
        return tb_errf(err, "%s: %.40s is out of range (%g s .. %g s)", key, v, lo, hi);
    default:
        return tb_errf(err, "%s: '%.40s' is not a duration (e.g. 5s, 500ms)", key, v);
    }
}

int tb_wl_parse_int(const char *key, const char *v, long lo, long hi, int *out, tb_err *err)
{
    long x;
    switch (tb_num_long(v, lo, hi, &x)) {
    case TB_NUM_OK:
        *out = (int)x;
        return 0;
    case TB_NUM_RANGE:
        return tb_errf(err, "%s: %.40s is out of range (%ld .. %ld)", key, v, lo, hi);
    default:
        return tb_errf(err, "%s: '%.40s' is not an integer", key, v);
    }
}

/* Each of the units k, m, g, t, bare or followed by iB, ib, B or b. */
/* clang-format off */
#define SIZE_UNIT(u, mul) {u, mul}, {u "iB", mul}, {u "ib", mul}, {u "B", mul}, {u "b", mul}
/* clang-format on */

static const tb_num_size_unit size_units[] = {
    {"", 1},
    SIZE_UNIT("k", 1ull << 10),
    SIZE_UNIT("K", 1ull << 10),
    SIZE_UNIT("m", 1ull << 20),
    SIZE_UNIT("M", 1ull << 20),
    SIZE_UNIT("g", 1ull << 30),
    SIZE_UNIT("G", 1ull << 30),
    SIZE_UNIT("t", 1ull << 40),
    SIZE_UNIT("T", 1ull << 40),
};

tb_num_status tb_wl_size(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    return tb_num_size(v, size_units, sizeof size_units / sizeof size_units[0], lo, hi, out);
}

int tb_wl_parse_text(const char *key, const char *v, char *out, size_t n, tb_err *err)
{
    if (strlen(v) >= n)
        return tb_errf(err, "%s: longer than %zu bytes", key, n - 1);
    for (const char *c = v; *c; c++)
        if ((unsigned char)*c < 0x20)
            return tb_errf(err, "%s: contains a control character", key);
    snprintf(out, n, "%s", v);
    return 0;
}

int tb_wl_each_token(const char *key, const char *v, int (*fn)(void *, const char *, tb_err *),
                     void *ctx, tb_err *err)
{
    char buf[1024];
    if (strlen(v) >= sizeof buf)
        return tb_errf(err, "%s: list too long", key);
    snprintf(buf, sizeof buf, "%s", v);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save), n++)
        if (fn(ctx, t, err) < 0)
            return tb_err_wrap(err, "%s", key);
    if (n == 0)
        return tb_errf(err, "%s: empty list", key);
    return 0;
}

typedef struct name_set_ctx {
    const tb_wl_name_set *set;
    int *on;
} name_set_ctx;

static int name_token(void *ctx, const char *t, tb_err *err)
{
    const name_set_ctx *c = ctx;
    const tb_wl_name_set *s = c->set;
    for (int i = 0; i < s->n; i++)
        if (!strcmp(t, s->names[i]) || (s->alias && i == s->alias_of && !strcmp(t, s->alias)))
            return c->on[i] = 1, 0;
    if (!s->no_all && !strcmp(t, "all")) {
        for (int i = 0; i < s->n; i++)
            c->on[i] = 1;
        return 0;
    }
    char list[256] = "";
    for (int i = 0; i < s->n; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", s->names[i]);
    }
    return tb_errf(err, "unknown %s '%.40s' (%s)", s->what, t, list);
}

int tb_wl_name_set_parse(const tb_wl_name_set *set, const char *key, const char *v, int *on,
                         tb_err *err)
{
    memset(on, 0, sizeof *on * (size_t)set->n);
    name_set_ctx c = {set, on};
    return tb_wl_each_token(key, v, name_token, &c, err);
}

json_t *tb_wl_name_set_json(const tb_wl_name_set *set, const int *on)
{
    json_t *a = json_array();
    for (int i = 0; a && i < set->n; i++)
        if (on[i])
            json_array_append_new(a, json_string(set->names[i]));
    return a;
}

int tb_wl_check_http_url(const char *key, const char *v, tb_err *err)
{
    if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
        return tb_errf(err, "%s: '%.60s' is not an http:// or https:// URL", key, v);
    return 0;
}

int tb_wl_check_abs_path(const char *key, const char *v, tb_err *err)
{
    if (v[0] != '/')
        return tb_errf(err, "%s: '%.60s' is not an absolute path", key, v);
    return 0;
}

/* "'x' is not a, b or c" from choices "a|b|c". */
static int not_a_choice(const char *key, const char *v, const char *choices, tb_err *err)
{
    char list[256];
    size_t n = 0, k = 0, count = 1;
    for (const char *c = choices; *c; c++)
        count += *c == '|';
    for (const char *c = choices; *c && n + 8 < sizeof list; c++) {
        if (*c != '|') {
            list[n++] = *c;
            continue;
        }
        const char *sep = ++k == count - 1 ? " or " : ", ";
        n += (size_t)snprintf(list + n, sizeof list - n, "%s", sep);
    }
    list[n < sizeof list ? n : sizeof list - 1] = 0;
    return tb_errf(err, "%s: '%.40s' is not %s", key, v, list);
}

static int is_choice(const char *v, const char *choices)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        size_t l = strcspn(c, "|");
        if (l == n && !memcmp(c, v, n))
            return 1;
        c += l + (c[l] == '|');
    }
    return 0;
}

/* Where a NAMES row keeps name i's flag in the parameters: its own int field, or
   element i of the int array at the row's field. */
static size_t name_offset(const tb_wl_param *r, int i)
{
    const tb_wl_name_set *s = r->names;
    return s->fields ? s->fields[i] : r->offset + sizeof(int) * (size_t)i;
}

static int set_names(const tb_wl_param *r, void *params, const char *full, const char *value,
                     tb_err *err)
{
    int on[TB_WL_NAMES_MAX];
    if (r->names->n > TB_WL_NAMES_MAX)
        return tb_errf(err, "%s: more than %d names", full, TB_WL_NAMES_MAX);
    if (tb_wl_name_set_parse(r->names, full, value, on, err) < 0)
        return -1;
    for (int i = 0; i < r->names->n; i++)
        memcpy((unsigned char *)params + name_offset(r, i), &on[i], sizeof(int));
    return 0;
}

static json_t *names_json(const tb_wl_param *r, const void *params)
{
    int on[TB_WL_NAMES_MAX];
    if (r->names->n > TB_WL_NAMES_MAX)
        return NULL;
    for (int i = 0; i < r->names->n; i++)
        memcpy(&on[i], (const unsigned char *)params + name_offset(r, i), sizeof(int));
    return tb_wl_name_set_json(r->names, on);
}

static json_t *list_json(const tb_wl_param *r, const void *params)
{
    if (!r->item)
        return r->json(params);
    int n;
    memcpy(&n, (const unsigned char *)params + r->offset, sizeof n);
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, r->item(params, i));
    return a;
}

static int set_whole_seconds(const tb_wl_param *r, int *field, const char *full, const char *value,
                             tb_err *err)
{
    double s;
    if (tb_wl_parse_seconds(full, value, r->lo, r->hi, &s, err) < 0)
        return -1;
    *field = (int)ceil(s);
    return 0;
}

/* Sets one row's field of params from value; full is "<workload>.<key>". */
static int set_row(const tb_wl_param *r, void *params, const char *full, const char *value,
                   tb_err *err)
{
    unsigned char *field = (unsigned char *)params + r->offset;
    switch (r->kind) {
    case TB_WLP_SECONDS:
        return tb_wl_parse_seconds(full, value, r->lo, r->hi, (double *)field, err);
    case TB_WLP_INT:
        return tb_wl_parse_int(full, value, (long)r->lo, (long)r->hi, (int *)field, err);
    case TB_WLP_TEXT:
        if (r->choices && !is_choice(value, r->choices))
            return not_a_choice(full, value, r->choices, err);
        if (r->check && r->check(full, value, err) < 0)
            return -1;
        return tb_wl_parse_text(full, value, (char *)field, r->size, err);
    case TB_WLP_CUSTOM:
        return r->parse(params, full, value, err);
    case TB_WLP_WHOLE_SECONDS:
        return set_whole_seconds(r, (int *)field, full, value, err);
    case TB_WLP_NAMES:
        return set_names(r, params, full, value, err);
    case TB_WLP_LIST:
        memset(field, 0, r->size);
        return tb_wl_each_token(full, value, r->token, params, err);
    }
    return tb_errf(err, "%s: a parameter of no kind", full);
}

static const tb_wl_param *find(const tb_workload *w, const char *key)
{
    for (size_t i = 0; i < w->n_params; i++)
        if (!strcmp(w->params[i].key, key))
            return &w->params[i];
    return NULL;
}

int tb_wl_params_init(const tb_workload *w, void *params, int profile, tb_err *err)
{
    if (w->params_size > TB_WL_PARAMS_MAX || profile < 0 || profile >= TB_WL_PROFILES)
        return tb_errf(err, "%s: parameters of %zu bytes or profile %d", w->name, w->params_size,
                       profile);
    memset(params, 0, w->params_size);
    for (size_t i = 0; i < w->n_params; i++) {
        const tb_wl_param *r = &w->params[i];
        const char *d = NULL;
        for (int k = 0; k <= profile; k++)
            if (r->def[k])
                d = r->def[k];
        if (!r->def[0] || !d)
            continue;
        char full[128];
        snprintf(full, sizeof full, "%s.%s", w->name, r->key);
        if (set_row(r, params, full, d, err) < 0)
            return tb_err_wrap(err, "the default");
    }
    return w->check ? w->check(params, err) : 0;
}

int tb_wl_params_set(const tb_workload *w, void *params, const char *key, const char *value,
                     int *place, tb_err *err)
{
    char full[128];
    snprintf(full, sizeof full, "%s.%s", w->name, key);
    const tb_wl_param *r = find(w, key);
    if (!r)
        return tb_errf(err, "unknown setting '%.64s' (teebench suite run --help lists them)", full);
    tb_wl_params copy;
    memcpy(copy.bytes, params, w->params_size);
    if (set_row(r, copy.bytes, full, value, err) < 0 || (w->check && w->check(copy.bytes, err) < 0))
        return -1;
    memcpy(params, copy.bytes, w->params_size);
    if (place)
        *place = (r->flags & TB_WLP_PLACE) != 0;
    return 0;
}

json_t *tb_wl_params_json(const tb_workload *w, const void *params)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < w->n_params; i++) {
        const tb_wl_param *r = &w->params[i];
        if (r->flags & TB_WLP_UNLISTED)
            continue;
        const unsigned char *field = (const unsigned char *)params + r->offset;
        json_t *v = r->kind == TB_WLP_SECONDS ? json_real(*(const double *)field)
                    : r->kind == TB_WLP_INT || r->kind == TB_WLP_WHOLE_SECONDS
                        ? json_integer(*(const int *)field)
                    : r->kind == TB_WLP_TEXT  ? json_string((const char *)field)
                    : r->kind == TB_WLP_NAMES ? names_json(r, params)
                    : r->kind == TB_WLP_LIST  ? list_json(r, params)
                                              : r->json(params);
        if (!v || json_object_set_new(o, r->key, v) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}
