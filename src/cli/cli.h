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
int cmd_memory(int argc, char **argv);
int cmd_network(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_attest(int argc, char **argv);
int cmd_notary(int argc, char **argv);
int cmd_notarize(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_tlsn(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_vm(int argc, char **argv);
/* `teebench vm image` (cli/vm_image.c): argv[0] is "image". */
int cli_vm_image(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_storage(int argc, char **argv);
int cmd_kv(int argc, char **argv);
/* `teebench __flags [CMD]` (cli/tables.c, hidden): the flag tables, for gen-docs.sh. */
int cmd_flags(int argc, char **argv);

/* The flag tables (cli/flags) of the commands declared with one, for `teebench __flags`. */
typedef struct cli_cmd cli_cmd;
extern const cli_cmd cli_env_cmd;
extern const cli_cmd cli_probe_cmd;
extern const cli_cmd cli_syscall_cmd;
extern const cli_cmd cli_report_cmd;
extern const cli_cmd cli_compare_cmd;
extern const cli_cmd cli_results_cmd;
extern const cli_cmd cli_storage_cmd;
extern const cli_cmd cli_memory_cmd;
extern const cli_cmd cli_kv_cmd;
extern const cli_cmd cli_kv_serve_cmd;
extern const cli_cmd cli_network_cmd;
extern const cli_cmd cli_network_serve_cmd;
extern const cli_cmd cli_tlsn_session_cmd;
extern const cli_cmd cli_notarize_cmd;
extern const cli_cmd cli_bench_summarize_cmd;
extern const cli_cmd cli_serve_cmd;
extern const cli_cmd cli_http_cmd;
extern const cli_cmd cli_nginx_cmd;
extern const cli_cmd cli_suite_cmd;
extern const cli_cmd cli_vm_cmd;
extern const cli_cmd cli_vm_image_cmd;
extern const cli_cmd cli_notary_serve_cmd;
extern const cli_cmd cli_notary_check_cmd;
extern const cli_cmd cli_attest_show_cmd;
extern const cli_cmd cli_attest_verify_cmd;
extern const cli_cmd cli_attest_collateral_cmd;
extern const cli_cmd cli_attest_quote_cmd;
extern const cli_cmd cli_attest_sim_collateral_cmd;
extern const cli_cmd cli_attest_sim_snp_certs_cmd;
extern const cli_cmd cli_attest_bench_cmd;

/* Prints "teebench: <cmd>: <formatted message>" to stderr; returns exit code 1. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, with an exit code of the caller's choice (returns code). */
int cli_fail_code(int code, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The command-line mistakes, worded the same for every command (exit code 2):
 * "<option>: unknown option (teebench <cmd> --help)" and "<option>: needs a value".
 * Every getopt_long loop runs with opterr = 0 and an optstring starting with ':'. */
int cli_unknown_option(const char *cmd, const char *opt);
int cli_missing_value(const char *cmd, const char *opt);
/* After getopt_long returned c == ':' (a missing value) or '?' (an unknown option):
 * the line above naming the option as written (argv[optind - 1], or -x for a short
 * option), returns 2. */
int cli_bad_option(const char *cmd, int c, char **argv);
/* "<word>: unknown subcommand (a, b, c)", plus "; did you mean 'b'?" when a name is
 * close to word (cli_suggest). names is NULL-terminated. Returns 2. */
int cli_unknown_subcommand(const char *cmd, const char *word, const char *const *names);
/* The parameters of workload w (its params struct, params) for a workload command's
 * flags (cli/flags' cli_wl_flags): --profile's defaults, then each setting given, in
 * order. 0; 2 after a mistake on the command line, printed as cmd's in cli/flags'
 * wording: "--profile P: want quick, standard or seed" or "<flag> <value>: <why>"
 * (workloads/param's "<workload>.<key>: " dropped from why); -1 with err, not printed,
 * when the profile's defaults do not hold (the caller says so as it says other failures). */
typedef struct cli_wl_flags cli_wl_flags;
typedef struct tb_workload tb_workload;
int cli_setting_apply(const char *cmd, const tb_workload *w, const cli_wl_flags *fl, void *params,
                      tb_err *err);
/* The name in names (NULL-terminated) closest to word -- at most 2 edits, counting a
 * swap of neighbours as one, or word being a prefix of 3+ letters -- or NULL. */
const char *cli_suggest(const char *word, const char *const *names);

/* A RUN|LABEL|FILE argument (cli/ref.c): an existing path is read as a result or
 * importable file; anything else is a run id, a label (latest run) or a unique id
 * prefix in the store of db (--db; NULL: TEEBENCH_DB, then the default path),
 * opened into *store on first use (the caller closes it). Never creates a store.
 * 0 and a new record in *out (caller frees), or -1 with err. */
int cli_resolve_ref(const char *db, tb_store **store, const char *ref, tb_record **out,
                    tb_err *err);

#endif
