/* cli: one file per subcommand. Each cmd_<name> parses its own flags (argv[0]
 * is the subcommand name), calls the library and prints. Errors are printed as
 * "teebench: <command>: <what failed>: <why>" on stderr via cli_fail. */
#ifndef TB_CLI_H
#define TB_CLI_H

#include "base/err.h"
#include "record/record.h"
#include "store/store.h"

int cmd_http(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_nginx(int argc, char **argv);
int cmd_syscall(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_attest(int argc, char **argv);
int cmd_notary(int argc, char **argv);
int cmd_notarize(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_suite(int argc, char **argv);

/* Prints "teebench: <cmd>: <formatted message>" to stderr; returns exit code 1. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, with an exit code of the caller's choice (returns code). */
int cli_fail_code(int code, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* After getopt_long returned c == ':' (a missing value) or '?' (an unknown option):
 * prints "<option>: needs a value" or "<option>: unknown option (teebench <cmd>
 * --help)", naming argv[optind - 1], and returns exit code 2. */
int cli_bad_option(const char *cmd, int c, char **argv);

/* A RUN|LABEL|FILE argument (cli/ref.c): an existing path is read as a result or
 * importable file; anything else is a run id, a label (latest run) or a unique id
 * prefix in the store of db (--db; NULL: TEEBENCH_DB, then the default path),
 * opened into *store on first use (the caller closes it). Never creates a store.
 * 0 and a new record in *out (caller frees), or -1 with err. */
int cli_resolve_ref(const char *db, tb_store **store, const char *ref, tb_record **out,
                    tb_err *err);

#endif
