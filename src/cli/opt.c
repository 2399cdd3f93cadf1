/* cli/opt: see opt.h. The syntax is base/num's; this file words its mistakes as
 * "<flag> <value>: why" and holds the cli's duration units. */
#include "cli/opt.h"

#include "base/num.h"

int cli_opt_double(const char *flag, const char *s, double lo, double hi, double *out, tb_err *err)
{
    switch (tb_num_double(s, lo, hi, out)) {
    case TB_NUM_OK:
        return 0;
    case TB_NUM_RANGE:
        return tb_errf(err, "%s %s: must be between %g and %g", flag, s, lo, hi);
    default:
        return tb_errf(err, "%s %s: not a number", flag, s);
    }
}

int cli_opt_long(const char *flag, const char *s, long lo, long hi, long *out, tb_err *err)
{
    long v;
    switch (tb_num_long(s, lo, hi, &v)) {
    case TB_NUM_OK:
        *out = v;
        return 0;
    case TB_NUM_RANGE:
        return tb_errf(err, "%s %s: must be between %ld and %ld", flag, s, lo, hi);
    default:
        return tb_errf(err, "%s %s: not an integer", flag, s);
    }
}

int cli_opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v;
    if (tb_num_u64(s, min, max, &v) != TB_NUM_OK)
        return -1;
    *out = v;
    return 0;
}

int cli_opt_duration(const char *flag, const char *s, double min_s, double max_s, double *out,
                     tb_err *err)
{
    static const tb_num_unit units[] = {{"", 1, 1},      {"ns", 1e-9, 1}, {"us", 1e-6, 1},
                                        {"ms", 1e-3, 1}, {"s", 1, 1},     {"m", 60, 1},
                                        {"h", 3600, 1}};
    switch (tb_num_scaled(s, units, sizeof units / sizeof units[0], min_s, max_s, out)) {
    case TB_NUM_OK:
        return 0;
    case TB_NUM_RANGE:
        return tb_errf(err, "%s %s: must be between %gs and %gs", flag, s, min_s, max_s);
    default:
        return tb_errf(err, "%s %s: not a duration (e.g. 2s, 500ms, 1.5m; no unit: seconds)", flag,
                       s);
    }
}
