/* cli/tables: `teebench __flags` (hidden) -- every command's flag table (cli/flags),
 * one line a table: "NAME<TAB>--flag -x ...". scripts/gen-docs.sh makes the bash
 * completion from it, so completion offers exactly the flags the parsers take.
 * The list below is the one place that names every table; a command without a
 * table (bench notary and tlsn: flags of their own) is not in it. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <stdio.h>
#include <string.h>

static const cli_cmd *const tables[] = {
    &cli_attest_show_cmd,
    &cli_attest_verify_cmd,
    &cli_attest_collateral_cmd,
    &cli_attest_quote_cmd,
    &cli_attest_sim_collateral_cmd,
    &cli_attest_sim_snp_certs_cmd,
    &cli_attest_bench_cmd,
    &cli_bench_summarize_cmd,
    &cli_compare_cmd,
    &cli_env_cmd,
    &cli_http_cmd,
    &cli_kv_cmd,
    &cli_kv_serve_cmd,
    &cli_memory_cmd,
    &cli_network_cmd,
    &cli_network_serve_cmd,
    &cli_nginx_cmd,
    &cli_notarize_cmd,
    &cli_notary_serve_cmd,
    &cli_notary_check_cmd,
    &cli_probe_cmd,
    &cli_report_cmd,
    &cli_results_cmd,
    &cli_serve_cmd,
    &cli_storage_cmd,
    &cli_suite_cmd,
    &cli_syscall_cmd,
    &cli_tlsn_session_cmd,
    &cli_vm_cmd,
    &cli_vm_image_cmd,
};

int cmd_flags(int argc, char **argv)
{
    /* teebench __flags [CMD]: all tables, or those of CMD and its subcommands */
    const char *only = argc > 1 ? argv[1] : NULL;
    size_t n = only ? strlen(only) : 0;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!only || (!strncmp(tables[i]->name, only, n) &&
                      (!tables[i]->name[n] || tables[i]->name[n] == ' ')))
            cli_flags_list(stdout, tables[i]);
    return fflush(stdout) == 0 ? 0 : 1;
}
