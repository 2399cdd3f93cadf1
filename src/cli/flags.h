/* cli/flags: a command's flags declared once, in a table, which drives their parsing
 * (getopt_long underneath: long names, unambiguous prefixes, --flag=value, -x
 * groups, operands anywhere unless the command stops at the first), their checks
 * (cli/opt's number syntax and ranges, choice lists) and the option list of the
 * command's --help; `teebench __flags` prints every table (for the man page and
 * the bash completion).
 *
 * One wording of each command-line mistake for every command (all exit 2):
 *   teebench: <cmd>: <option>: unknown option (teebench <cmd> --help)
 *   teebench: <cmd>: <option>: needs a value
 *   teebench: <cmd>: <word>: unexpected argument
 *   teebench: <cmd>: <flag> <value>: not an integer | not a number | must be between ...
 *
 * Invariants: a table is static const data ending with {0}; each entry writes one
 * field of the command's args struct (its offset, type-checked by the CLI_* macros)
 * or calls its callback (given the args struct, or one field of it); nothing here keeps state
 * between calls (getopt's optind is libc's, reset on every parse). */
#ifndef TB_CLI_FLAGS_H
#define TB_CLI_FLAGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

typedef enum cli_flag_type {
    CLI_F_END = 0,
    CLI_F_HELP,    /* -h, --help: prints the command's usage, exit 0 */
    CLI_F_BOOL,    /* no value: int = 1 */
    CLI_F_STR,     /* const char * = the value (argv's) */
    CLI_F_LONG,    /* long in [lo, hi] (cli_opt_long; hi past LONG_MAX: LONG_MAX) */
    CLI_F_I64,     /* int64_t in [lo, hi], as CLI_F_LONG */
    CLI_F_INT,     /* int in [lo, hi] (cli_opt_long) */
    CLI_F_UINT,    /* unsigned in [lo, hi] (cli_opt_long; lo >= 0) */
    CLI_F_U64,     /* uint64_t in [lo, hi] (cli_opt_u64; hi >= 2^64: UINT64_MAX) */
    CLI_F_DOUBLE,  /* double in [lo, hi] (cli_opt_double) */
    CLI_F_SECONDS, /* double seconds in [lo, hi], a duration (cli_opt_duration) */
    CLI_F_BUF,     /* char[size]: a copy of the value (cut at size - 1) */
    CLI_F_CHOICE,  /* const char * = one of choices (NULL-terminated), else
                      "<flag> <value>: unknown (a, b, c)" */
    CLI_F_INDEX,   /* int = the value's index in choices (NULL-terminated), else the
                      choice error */
    CLI_F_SETTING, /* a workload parameter: {key, value} appended to a cli_settings, key
                      the name with '_' for '-'; "too many options" past CLI_SETTINGS_MAX */
    CLI_F_ALIAS,   /* the flag named by help, under another name (hidden) */
    CLI_F_CALL,    /* call(args + off, flag, value, err): value NULL for a flag without one
                      (off 0: the args struct; CLI_CALL_AT: one of its fields) */
    CLI_F_NOTE,    /* no flag: an entry of --help alone (its label and help), e.g. another
                      form of the flag before it; not parsed, not in `teebench __flags` */
} cli_flag_type;

/* The workload parameters given as flags, in order (applied over the profile's
 * defaults once all are read). The values are argv's. */
#define CLI_SETTINGS_MAX 32
typedef struct cli_settings {
    struct {
        char key[40], flag[44];
        const char *value;
    } set[CLI_SETTINGS_MAX];
    size_t n;
} cli_settings;

/* The flags of a workload's command (cli/memory, network, storage, kv): --profile (its
 * defaults; the caller sets "standard" before parsing), the workload's parameters (read
 * by cli_setting_apply), --json. */
typedef struct cli_wl_flags {
    const char *profile;
    cli_settings set;
    int json;
} cli_wl_flags;

typedef struct cli_flag {
    const char *name; /* long name without "--" */
    char shortc;      /* short letter, or 0 */
    cli_flag_type type;
    const char *arg; /* the value's name in --help ("N", "DIR"); NULL: takes none */
    size_t off;      /* where the value goes in the args struct */
    double lo, hi;   /* numbers: the range */
    const char *const *choices;
    int (*call)(void *args, const char *flag, const char *value, tb_err *err);
    const char *help;   /* its --help text; '\n' starts a continuation line */
    const char *def;    /* appended to the help as " (default DEF)", or NULL */
    int hidden;         /* 1: parsed but not in --help (told of elsewhere, an old spelling) */
    const char *label;  /* the help's name column as written (NULL: "[-x, ]--name[ ARG]") */
    const char *before; /* printed before its entry in --help (a blank line, a heading) */
    size_t size;        /* CLI_F_BUF: the array's size */
    const char *key;    /* CLI_F_SETTING: the parameter's key (NULL: the name, '_' for '-') */
    int group;          /* a tag the command's seen() may test (0: none; cli/vm_flags' is
                           CLI_VM_GROUP) */
} cli_flag;

typedef struct cli_cmd cli_cmd;
struct cli_cmd {
    const char *name;      /* in messages: "env", "notary serve" */
    const cli_flag *flags; /* ends with {0} */
    void (*usage)(FILE *f, const cli_cmd *c);
    int max_operands;    /* more: "<word>: unexpected argument"; -1: any */
    int stop_at_operand; /* 1: flags end at the first operand (the rest is its own) */
    int col;             /* the help's column (0: 17) */
    int indent;          /* the help's indent (0: 2) */
    int align_long;      /* 1: a flag without a short letter is indented under the others' "--" */
    int hide_shorts;     /* 1: --help shows no short letter but -h's */
    /* NULL, or called after each flag is stored (suite run: the first VM flag given) */
    void (*seen)(void *args, const cli_flag *f);
};

/* The value of a field in T (type-checked: a mismatch is a compile error with -Werror). */
#define CLI_OFF(T, f, type) (offsetof(T, f) + 0 * sizeof((type *)0 == &((T *)0)->f))

/* The same for a char array (its size kept in .size). */
#define CLI_OFF_BUF(T, f)                                                                          \
    (offsetof(T, f) + 0 * sizeof(&((T *)0)->f == (char(*)[sizeof(((T *)0)->f)])0))

#define CLI_HELP()                                                                                 \
    {                                                                                              \
        .name = "help", .shortc = 'h', .type = CLI_F_HELP, .help = "this text"                     \
    }
#define CLI_BOOL(n, s, T, f, h)                                                                    \
    {                                                                                              \
        .name = n, .shortc = s, .type = CLI_F_BOOL, .off = CLI_OFF(T, f, int), .help = h           \
    }
#define CLI_STR(n, s, T, f, a, h)                                                                  \
    {                                                                                              \
        .name = n, .shortc = s, .type = CLI_F_STR, .arg = a, .off = CLI_OFF(T, f, const char *),   \
        .help = h                                                                                  \
    }
#define CLI_BUF(n, T, f, a, h)                                                                     \
    {                                                                                              \
        .name = n, .type = CLI_F_BUF, .arg = a, .off = CLI_OFF_BUF(T, f),                          \
        .size = sizeof(((T *)0)->f), .help = h                                                     \
    }

/* The entry of a number in [l, u] of type ty (CLI_F_LONG ...) into field f, of C type
   ct, of T: what the macros below share. */
#define CLI_RANGED(n, s, ty, T, f, ct, l, u, a, h)                                                 \
    {                                                                                              \
        .name = n, .shortc = s, .type = ty, .arg = a, .off = CLI_OFF(T, f, ct), .lo = l, .hi = u,  \
        .help = h                                                                                  \
    }
#define CLI_LONG(n, s, T, f, l, u, a, h) CLI_RANGED(n, s, CLI_F_LONG, T, f, long, l, u, a, h)
#define CLI_I64(n, s, T, f, l, u, a, h) CLI_RANGED(n, s, CLI_F_I64, T, f, int64_t, l, u, a, h)
#define CLI_INT(n, s, T, f, l, u, a, h) CLI_RANGED(n, s, CLI_F_INT, T, f, int, l, u, a, h)
#define CLI_UINT(n, s, T, f, l, u, a, h) CLI_RANGED(n, s, CLI_F_UINT, T, f, unsigned, l, u, a, h)
#define CLI_U64(n, s, T, f, l, u, a, h) CLI_RANGED(n, s, CLI_F_U64, T, f, uint64_t, l, u, a, h)
#define CLI_DOUBLE(n, s, T, f, l, u, a, h) CLI_RANGED(n, s, CLI_F_DOUBLE, T, f, double, l, u, a, h)
#define CLI_SECONDS(n, s, T, f, l, u, a, h)                                                        \
    CLI_RANGED(n, s, CLI_F_SECONDS, T, f, double, l, u, a, h)

/* The entry of a value out of list (NULL-terminated) into field f, of C type ct, of T:
   the value (CLI_CHOICE, a const char *) or its index (CLI_INDEX, an int). */
#define CLI_CHOSEN(n, s, ty, T, f, ct, list, a, h)                                                 \
    {                                                                                              \
        .name = n, .shortc = s, .type = ty, .arg = a, .off = CLI_OFF(T, f, ct), .choices = list,   \
        .help = h                                                                                  \
    }
#define CLI_CHOICE(n, s, T, f, list, a, h)                                                         \
    CLI_CHOSEN(n, s, CLI_F_CHOICE, T, f, const char *, list, a, h)
#define CLI_INDEX(n, s, T, f, list, a, h) CLI_CHOSEN(n, s, CLI_F_INDEX, T, f, int, list, a, h)

#define CLI_SETTING(n, T, f, a, h)                                                                 \
    {                                                                                              \
        .name = n, .type = CLI_F_SETTING, .arg = a, .off = CLI_OFF(T, f, cli_settings), .help = h  \
    }
#define CLI_CALL(n, s, fn, a, h)                                                                   \
    {                                                                                              \
        .name = n, .shortc = s, .type = CLI_F_CALL, .arg = a, .call = fn, .help = h                \
    }

/* A callback given field f (of type ft) of T rather than the whole args struct. */
#define CLI_CALL_AT(n, s, T, f, ft, fn, a, h)                                                      \
    {                                                                                              \
        .name = n, .shortc = s, .type = CLI_F_CALL, .arg = a, .off = CLI_OFF(T, f, ft),            \
        .call = fn, .help = h                                                                      \
    }

/* A line of --help that is no flag of its own: label, then help as any entry's. */
#define CLI_NOTE(l, h)                                                                             \
    {                                                                                              \
        .type = CLI_F_NOTE, .label = l, .help = h                                                  \
    }

/* An old spelling of the flag before it (same type and field), not in --help. */
#define CLI_ALIAS(n, prev)                                                                         \
    {                                                                                              \
        .name = n, .type = CLI_F_ALIAS, .help = prev                                               \
    }

/* The most flags a table may have. */
#define CLI_FLAGS_MAX 64
/* What cli_flags_parse returns when the command goes on. */
#define CLI_FLAGS_GO (-1)

/* Parses argv[1..] (argv[0] is the command's name) into args. Returns CLI_FLAGS_GO
 * with the first operand's index in *first (argv[*first..argc-1] are the operands),
 * or the exit code when the command is done: 0 after --help, 2 after a mistake
 * (printed, worded as above). */
int cli_flags_parse(const cli_cmd *c, int argc, char **argv, void *args, int *first);

/* The option list of c's --help: one entry a flag (or note), "  [-x, ]--name[ ARG]"
 * (or its label) then its help at column c->col (two spaces after a name that reaches
 * it; on the next line when the help starts with '\n'; nothing after it for an entry
 * without help or default), continuation lines indented to that column. */
void cli_flags_help(FILE *f, const cli_cmd *c);

/* c's line of `teebench __flags`: its name, a tab, then every flag it takes (hidden
 * ones too, old spellings not) as "--name" and "-x", space-separated, a newline. */
void cli_flags_list(FILE *f, const cli_cmd *c);

#endif
