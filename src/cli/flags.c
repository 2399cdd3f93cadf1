/* cli/flags: see flags.h. The getopt_long table is built on the stack from the
 * command's table on every parse: a flag with a short letter answers to it, one
 * without gets 256 + its index. Parsing sets getopt's opterr and optind (libc's
 * globals, as every getopt_long loop did). */
#include "cli/flags.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>

#include "base/num.h"
#include "cli/cli.h"
#include "cli/opt.h"

static size_t count(const cli_flag *t)
{
    size_t n = 0;
    while (t[n].type != CLI_F_END)
        n++;
    return n;
}

/* A choice's error: "<flag> <value>: unknown (a, b, c)". Returns -1. */
static int bad_choice(const char *flag, const char *value, const char *const *choices, tb_err *err)
{
    char list[256] = "";
    size_t len = 0;
    for (size_t i = 0; choices[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
    return tb_errf(err, "%s %s: unknown (%s)", flag, value, list);
}

/* A range end as a long (a table may say 1e19 for "no upper bound"). */
static long to_long(double d)
{
    return d >= 9.2233720368547758e18 ? LONG_MAX : d <= -9.2233720368547758e18 ? LONG_MIN : (long)d;
}

/* One flag's value into args. 0, or -1 with err. */
static int store(const cli_flag *f, void *args, const char *v, tb_err *err)
{
    char flag[42]; /* cli_settings' flag holds it */
    snprintf(flag, sizeof flag, "--%s", f->name);
    char *at = (char *)args + f->off;
    if (f->type == CLI_F_SETTING &&
        strlen(f->key ? f->key : f->name) >= sizeof((cli_settings *)0)->set[0].key)
        return tb_errf(err, "%s: a setting's name too long", flag);
    long l;
    switch (f->type) {
    case CLI_F_BOOL:
        *(int *)at = 1;
        return 0;
    case CLI_F_STR:
        *(const char **)at = v;
        return 0;
    case CLI_F_LONG:
        return cli_opt_long(flag, v, to_long(f->lo), to_long(f->hi), (long *)at, err);
    case CLI_F_I64:
        if (cli_opt_long(flag, v, to_long(f->lo), to_long(f->hi), &l, err) < 0)
            return -1;
        *(int64_t *)at = l;
        return 0;
    case CLI_F_INT:
        if (cli_opt_long(flag, v, to_long(f->lo), to_long(f->hi), &l, err) < 0)
            return -1;
        *(int *)at = (int)l;
        return 0;
    case CLI_F_UINT:
        if (cli_opt_long(flag, v, to_long(f->lo), to_long(f->hi), &l, err) < 0)
            return -1;
        *(unsigned *)at = (unsigned)l;
        return 0;
    case CLI_F_U64: {
        uint64_t lo = (uint64_t)f->lo,
                 hi = f->hi >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)f->hi;
        uint64_t u;
        tb_num_status st = tb_num_u64(v, lo, hi, &u);
        if (st == TB_NUM_OK)
            return *(uint64_t *)at = u, 0;
        if (st == TB_NUM_RANGE)
            return tb_errf(err, "%s %s: must be between %llu and %llu", flag, v,
                           (unsigned long long)lo, (unsigned long long)hi);
        return tb_errf(err, "%s %s: not an integer", flag, v);
    }
    case CLI_F_DOUBLE:
        return cli_opt_double(flag, v, f->lo, f->hi, (double *)at, err);
    case CLI_F_SECONDS:
        return cli_opt_duration(flag, v, f->lo, f->hi, (double *)at, err);
    case CLI_F_BUF:
        snprintf(at, f->size, "%s", v);
        return 0;
    case CLI_F_CHOICE:
        for (size_t i = 0; f->choices[i]; i++)
            if (!strcmp(v, f->choices[i])) {
                *(const char **)at = f->choices[i];
                return 0;
            }
        return bad_choice(flag, v, f->choices, err);
    case CLI_F_INDEX:
        for (int i = 0; f->choices[i]; i++)
            if (!strcmp(v, f->choices[i])) {
                *(int *)at = i;
                return 0;
            }
        return bad_choice(flag, v, f->choices, err);
    case CLI_F_CALL:
        return f->call(at, flag, v, err);
    case CLI_F_SETTING: {
        cli_settings *set = (cli_settings *)at;
        if (set->n == CLI_SETTINGS_MAX)
            return tb_errf(err, "too many options");
        snprintf(set->set[set->n].flag, sizeof set->set[set->n].flag, "%s", flag);
        char *key = set->set[set->n].key;
        snprintf(key, sizeof set->set[set->n].key, "%s", f->key ? f->key : f->name);
        for (char *p = key; *p; p++)
            *p = *p == '-' ? '_' : *p;
        set->set[set->n++].value = v;
        return 0;
    }
    case CLI_F_END:
    case CLI_F_HELP:
    case CLI_F_ALIAS:
    case CLI_F_NOTE:
        break;
    }
    return 0;
}

/* The flag an alias stands for (by name), or f. */
static const cli_flag *resolve(const cli_flag *t, size_t n, const cli_flag *f)
{
    for (size_t i = 0; f->type == CLI_F_ALIAS && i < n; i++)
        if (t[i].type != CLI_F_ALIAS && t[i].name && !strcmp(t[i].name, f->help))
            return &t[i];
    return f;
}

/* The getopt_long tables of c's flags into opts and shorts (sized by the caller); a
   note has none. */
static void build(const cli_flag *t, size_t n, struct option *opts, char *shorts)
{
    size_t k = 0, o = 0;
    shorts[k++] = ':'; /* a missing value is ':', not '?' */
    for (size_t i = 0; i < n; i++) {
        if (t[i].type == CLI_F_NOTE)
            continue;
        int has_arg = resolve(t, n, &t[i])->arg ? required_argument : no_argument;
        opts[o++] =
            (struct option){t[i].name, has_arg, NULL, t[i].shortc ? t[i].shortc : 256 + (int)i};
        if (t[i].shortc) {
            shorts[k++] = t[i].shortc;
            if (t[i].arg)
                shorts[k++] = ':';
        }
    }
    opts[o] = (struct option){NULL, 0, NULL, 0};
    shorts[k] = 0;
}

static const cli_flag *find(const cli_flag *t, size_t n, int c)
{
    if (c >= 256 && (size_t)(c - 256) < n)
        return resolve(t, n, &t[c - 256]);
    for (size_t i = 0; i < n; i++)
        if (t[i].shortc && t[i].shortc == c)
            return &t[i];
    return NULL;
}

int cli_flags_parse(const cli_cmd *c, int argc, char **argv, void *args, int *first)
{
    size_t n = count(c->flags);
    if (n > CLI_FLAGS_MAX)
        return cli_fail_code(2, c->name, "%zu flags: more than %d", n, CLI_FLAGS_MAX);
    struct option opts[CLI_FLAGS_MAX + 1];
    char shorts[2 + 3 * CLI_FLAGS_MAX + 1];
    build(c->flags, n, opts, shorts + 1);
    shorts[0] = c->stop_at_operand ? '+' : ':';
    const char *optstring = c->stop_at_operand ? shorts : shorts + 1;
    tb_err err = {{0}};
    int ch;
    opterr = 0;
    optind = 0; /* glibc: 0 also rereads the optstring's '+' (1 keeps the last mode) */
    while ((ch = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
        const cli_flag *f = ch == '?' || ch == ':' ? NULL : find(c->flags, n, ch);
        if (!f)
            return cli_bad_option(c->name, ch == ':' ? ':' : '?', argv);
        if (f->type == CLI_F_HELP) {
            c->usage(stdout, c);
            return 0;
        }
        if (store(f, args, optarg, &err) < 0)
            return cli_fail_code(2, c->name, "%s", err.msg);
        if (c->seen)
            c->seen(args, f);
    }
    if (c->max_operands >= 0 && argc - optind > c->max_operands)
        return cli_fail_code(2, c->name, "%s: unexpected argument", argv[optind + c->max_operands]);
    *first = optind;
    return CLI_FLAGS_GO;
}

/* "[-x, ]--name[ ARG]" into buf. */
static void label(const cli_cmd *c, const cli_flag *f, char *buf, size_t size)
{
    char sh[8] = "";
    if (f->shortc && (!c->hide_shorts || f->type == CLI_F_HELP))
        snprintf(sh, sizeof sh, "-%c, ", f->shortc);
    else if (c->align_long)
        snprintf(sh, sizeof sh, "    ");
    snprintf(buf, size, "%s--%s%s%s", sh, f->name, f->arg ? " " : "", f->arg ? f->arg : "");
}

void cli_flags_help(FILE *f, const cli_cmd *c)
{
    int col = c->col ? c->col : 17, ind = c->indent ? c->indent : 2;
    for (const cli_flag *fl = c->flags; fl->type != CLI_F_END; fl++) {
        if (fl->hidden || fl->type == CLI_F_ALIAS)
            continue;
        char buf[128];
        const char *name = fl->label;
        if (!name) {
            label(c, fl, buf, sizeof buf);
            name = buf;
        }
        const char *h = fl->help ? fl->help : "";
        if (fl->before)
            fputs(fl->before, f);
        if (!h[0] && !fl->def) {
            fprintf(f, "%*s%s\n", ind, "", name);
            continue;
        }
        if (h[0] == '\n') {
            fprintf(f, "%*s%s\n%*s", ind, "", name, col, "");
            h++;
        } else if ((int)strlen(name) + ind + 1 > col)
            fprintf(f, "%*s%s  ", ind, "", name);
        else
            fprintf(f, "%*s%-*s", ind, "", col - ind, name);
        for (;;) {
            size_t len = strcspn(h, "\n");
            int last = !h[len];
            fprintf(f, "%.*s", (int)len, h);
            if (last && fl->def)
                fprintf(f, " (default %s)", fl->def);
            fputc('\n', f);
            if (last)
                break;
            h += len + 1;
            fprintf(f, "%*s", col, "");
        }
    }
}

void cli_flags_list(FILE *f, const cli_cmd *c)
{
    fprintf(f, "%s\t", c->name);
    const char *sep = "";
    for (const cli_flag *fl = c->flags; fl->type != CLI_F_END; fl++) {
        if (fl->type == CLI_F_ALIAS || fl->type == CLI_F_NOTE)
            continue;
        fprintf(f, "%s--%s", sep, fl->name);
        sep = " ";
        if (fl->shortc)
            fprintf(f, " -%c", fl->shortc);
    }
    fputc('\n', f);
}
