/* compare/bounce: the bounce-buffer split (see compare.h, "the bounce-buffer split"):
 * which records are the VM, the bounced VM and the TD, and per metric the share of the
 * TD's extra cost that the bounce path explains, with a bootstrap interval.
 *
 * Invariants: pure (no I/O, no clock, no global state); the same samples and seed give
 * the same interval; a share is never given where the TD is not slower than the VM, and
 * an interval never where more resamples than the interval's tail lack a share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "stats/rank.h"
#include "base/tee.h"
#include "sys/env.h"
#include "vm/vm.h"

int tb_compare_bounce_category(tb_wl_category cat)
{
    return cat == TB_CAT_STORAGE || cat == TB_CAT_NETWORK || cat == TB_CAT_KV;
}

const char *tb_compare_bounce_why_text(int why)
{
    switch (why) {
    case TB_COMPARE_BOUNCE_NOT_SLOWER:
        return "the TD is not slower than the VM: no extra cost to split";
    case TB_COMPARE_BOUNCE_UNBOUNDED:
        return "no interval: the TD is not clearly slower than the VM (in more resamples "
               "than the interval's tail it is not)";
    case TB_COMPARE_BOUNCE_TOO_FEW:
        return "no interval: fewer than 6 samples in one of the three";
    case TB_COMPARE_BOUNCE_NO_DATA:
        return "missing in one of the three";
    default:
        return "";
    }
}

/* d = td - vm is an extra cost: the TD is slower in the metric's direction. */
static int slower(double d, int better)
{
    return better == TB_BETTER_HIGHER ? d < 0 : d > 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A sorted copy of x[0..n) (caller frees); NULL when out of memory. */
static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

static double median_sorted(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The q-quantile of sorted[0..n) with linear interpolation between order statistics. */
static double quantile(const double *sorted, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t k = (size_t)floor(h);
    if (k + 1 >= n)
        return sorted[n - 1];
    return sorted[k] + (h - (double)k) * (sorted[k + 1] - sorted[k]);
}

/* The interval from the three sorted sets' bootstrap medians. */
static int interval(const double *v, size_t nv, const double *b, size_t nb, const double *t,
                    size_t nt, int better, unsigned resamples, uint64_t seed, double level,
                    tb_compare_bounce *out, tb_err *err)
{
    tb_stats_boot bt;
    if (tb_stats_boot_init(&bt, resamples) < 0)
        return tb_errf(err, "out of memory");
    double *mv = malloc(resamples * sizeof *mv), *mb = malloc(resamples * sizeof *mb),
           *mt = malloc(resamples * sizeof *mt), *share = malloc(resamples * sizeof *share);
    int rc = -1;
    if (!mv || !mb || !mt || !share || tb_stats_boot_medians(&bt, v, nv, seed, mv) < 0 ||
        tb_stats_boot_medians(&bt, b, nb, seed ^ TB_STATS_BOOT_SEED_B, mb) < 0 ||
        tb_stats_boot_medians(&bt, t, nt, seed ^ TB_COMPARE_BOUNCE_SEED_TD, mt) < 0) {
        tb_errf(err, "out of memory");
        goto out;
    }
    size_t k = 0;
    for (unsigned i = 0; i < resamples; i++) {
        double d = mt[i] - mv[i];
        if (slower(d, better))
            share[k++] = (mb[i] - mv[i]) / d;
    }
    out->no_share = (double)(resamples - k) / resamples;
    if (k == 0 || out->no_share > (1 - level) / 2) {
        out->why = TB_COMPARE_BOUNCE_UNBOUNDED;
    } else {
        qsort(share, k, sizeof *share, cmp_double);
        out->lo = quantile(share, k, (1 - level) / 2);
        out->hi = quantile(share, k, 1 - (1 - level) / 2);
        out->why = TB_COMPARE_BOUNCE_OK;
    }
    rc = 0;
out:
    free(mv);
    free(mb);
    free(mt);
    free(share);
    tb_stats_boot_free(&bt);
    return rc;
}

int tb_compare_bounce_share(const double *vm, size_t nv, const double *bounce, size_t nb,
                            const double *td, size_t nt, int better, unsigned resamples,
                            uint64_t seed, double level, tb_compare_bounce *out, tb_err *err)
{
    out->vm = out->bounce = out->td = out->share = out->lo = out->hi = out->no_share = NAN;
    out->why = TB_COMPARE_BOUNCE_NO_DATA;
    if (!nv || !nb || !nt)
        return 0;
    if (resamples < 1 || !(level > 0 && level < 1))
        return tb_errf(err, "bounce share: resamples >= 1 and 0 < level < 1");
    double *v = sorted_copy(vm, nv), *b = sorted_copy(bounce, nb), *t = sorted_copy(td, nt);
    int rc = 0;
    if (!v || !b || !t) {
        rc = tb_errf(err, "out of memory");
        goto out;
    }
    out->vm = median_sorted(v, nv);
    out->bounce = median_sorted(b, nb);
    out->td = median_sorted(t, nt);
    double d = out->td - out->vm;
    if (!slower(d, better)) {
        out->why = TB_COMPARE_BOUNCE_NOT_SLOWER;
        goto out;
    }
    out->share = (out->bounce - out->vm) / d;
    size_t min = tb_stats_median_ci_min_n(level);
    if (nv < min || nb < min || nt < min) {
        out->why = TB_COMPARE_BOUNCE_TOO_FEW;
        goto out;
    }
    rc = interval(v, nv, b, nb, t, nt, better, resamples, seed, level, out, err);
out:
    free(v);
    free(b);
    free(t);
    return rc;
}

enum role { ROLE_NONE, ROLE_VM, ROLE_BOUNCE, ROLE_TD };

/* A record's role from extra.vm, else from its env facts. */
static enum role role_of(const tb_record *r)
{
    const json_t *vm = json_object_get(r->extra, "vm");
    const char *kind = json_string_value(json_object_get(vm, "kind"));
    if (kind) {
        tb_vm_kind k; /* the record's words read once, by vm/'s parser */
        if (tb_vm_kind_parse(kind, &k) < 0)
            return ROLE_NONE;
        if (k != TB_VM_REGULAR)
            return ROLE_TD;
        return json_is_true(json_object_get(json_object_get(vm, "swiotlb"), "forced"))
                   ? ROLE_BOUNCE
                   : ROLE_VM;
    }
    if (tb_tee_guest(tb_env_json_tee(r->env)) != TB_TEE_NONE) /* a TD or an SNP guest */
        return ROLE_TD;
    const char *platform =
        json_string_value(json_object_get(json_object_get(r->env, "platform"), "value"));
    if (!platform || strcmp(platform, "vm"))
        return ROLE_NONE;
    const json_t *sw = json_object_get(json_object_get(r->env, "swiotlb"), "value");
    const char *by = json_string_value(json_object_get(sw, "forced_by"));
    return by && !strcmp(by, "kernel command line") ? ROLE_BOUNCE : ROLE_VM;
}

int tb_compare_bounce_roles_find(const tb_compare *c, tb_compare_bounce_roles *out)
{
    out->vm = out->bounce = out->td = -1;
    for (size_t i = 0; i < c->n_records; i++) {
        long *slot = NULL;
        switch (role_of(c->records[i])) {
        case ROLE_VM:
            slot = &out->vm;
            break;
        case ROLE_BOUNCE:
            slot = &out->bounce;
            break;
        case ROLE_TD:
            slot = &out->td;
            break;
        default:
            break;
        }
        if (slot && *slot < 0)
            *slot = (long)i;
    }
    return out->vm >= 0 && out->bounce >= 0 && out->td >= 0;
}
