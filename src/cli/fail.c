/* cli_fail: the single place where error lines are printed, and the one wording
 * of the command-line mistakes every command shares:
 *   teebench: <cmd>: <option>: unknown option (teebench <cmd> --help)
 *   teebench: <cmd>: <option>: needs a value
 *   teebench: <cmd>: <word>: unknown subcommand (<a>, <b>, ...)[; did you mean '<a>'?]
 *   teebench: <cmd>: <flag> <value>: <why>   (a workload parameter given as a flag)
 * (all exit 2). What a message holds is printed with control characters escaped
 * (base/text). */
#include "cli/cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli/flags.h"
#include "workloads/workload.h"

/* The line, with whatever its parts brought along from files, the store or a remote
   host (a control character, an escape sequence, a bidi control, a newline) escaped:
   one line that only says what failed. */
__attribute__((format(printf, 2, 0))) static void vfail(const char *cmd, const char *fmt,
                                                        va_list ap)
{
    char *msg = NULL;
    tb_buf b = {0};
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    int ok = msg && tb_text_escape_str(&b, msg) == 0;
    fprintf(stderr, "teebench: %s: %s\n", cmd, !ok ? "out of memory" : b.p ? (char *)b.p : "");
    free(msg);
    tb_buf_clear(&b);
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(cmd, fmt, ap);
    va_end(ap);
    return 1;
}

int cli_fail_code(int code, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(cmd, fmt, ap);
    va_end(ap);
    return code;
}

int cli_unknown_option(const char *cmd, const char *opt)
{
    size_t n = strcspn(opt, "="); /* --flag=value: name the flag */
    return cli_fail_code(2, cmd, "%.*s: unknown option (teebench %s --help)", (int)n, opt, cmd);
}

int cli_missing_value(const char *cmd, const char *opt)
{
    return cli_fail_code(2, cmd, "%s: needs a value", opt);
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    /* getopt leaves the offending word at argv[optind - 1]: a long option as written;
     * for a short one (maybe inside a group like -xv) optopt is the letter. */
    const char *word = optind > 0 ? argv[optind - 1] : "";
    char shortopt[3] = {'-', (char)optopt, 0};
    const char *opt = !strncmp(word, "--", 2) || optopt <= 0 || optopt > 127 ? word : shortopt;
    if (c == ':')
        return cli_missing_value(cmd, opt);
    return cli_unknown_option(cmd, opt);
}

/* Edit distance with adjacent transpositions (optimal string alignment), capped:
 * words longer than 63 bytes are simply "far". */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *cli_suggest(const char *word, const char *const *names)
{
    const char *best = NULL;
    size_t best_d = 3, len = strlen(word);
    for (const char *const *n = names; *n; n++) {
        size_t d = distance(word, *n);
        /* a prefix of a name counts as close ("summ" -> "summarize") */
        if (len >= 3 && !strncmp(word, *n, len))
            d = 1;
        if (d < best_d && d < len) {
            best = *n;
            best_d = d;
        }
    }
    return best;
}

int cli_unknown_subcommand(const char *cmd, const char *word, const char *const *names)
{
    char list[512] = "";
    size_t k = 0;
    for (const char *const *n = names; *n && k < sizeof list; n++) {
        int w = snprintf(list + k, sizeof list - k, "%s%s", n == names ? "" : ", ", *n);
        if (w < 0)
            break;
        k += (size_t)w;
    }
    const char *near = cli_suggest(word, names);
    if (near)
        return cli_fail_code(2, cmd, "%s: unknown subcommand (%s); did you mean '%s'?", word, list,
                             near);
    return cli_fail_code(2, cmd, "%s: unknown subcommand (%s)", word, list);
}

int cli_setting_apply(const char *cmd, const tb_workload *w, const cli_wl_flags *fl, void *params,
                      tb_err *err)
{
    int k = tb_wl_profile_parse(fl->profile);
    if (k < 0)
        return cli_fail_code(2, cmd, "--profile %s: want quick, standard or seed", fl->profile);
    if (tb_wl_params_init(w, params, k, err) < 0)
        return -1;
    for (size_t j = 0; j < fl->set.n; j++) {
        const char *key = fl->set.set[j].key, *v = fl->set.set[j].value;
        tb_err e;
        if (tb_wl_params_set(w, params, key, v, NULL, &e) == 0)
            continue;
        char prefix[128];
        int n = snprintf(prefix, sizeof prefix, "%s.%s: ", w->name, key);
        const char *why = n > 0 && !strncmp(e.msg, prefix, (size_t)n) ? e.msg + n : e.msg;
        return cli_fail_code(2, cmd, "%s %s: %s", fl->set.set[j].flag, v, why);
    }
    return 0;
}
