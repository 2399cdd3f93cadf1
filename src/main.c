/* teebench: entry point. Dispatches argv[1] to a subcommand in src/cli/.
 * The only global state of the program lives in main's call frame and the
 * subcommands it calls. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/linkage.h"
#include "cli/cli.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"http", cmd_http, "wrk-compatible HTTP/1.1 load generator (HTTPS, constant rate, JSON)"},
    {"serve", cmd_serve, "fixture server (HTTP/HTTPS) and fixture PKI generation"},
    {"nginx", cmd_nginx, "start/stop a real nginx with a generated config"},
    {"syscall", cmd_syscall, "UnixBench-compatible System Call Overhead"},
    {"probe", cmd_probe, "TEE-sensitive microbenchmarks (cpuid, page faults, IPIs, timers)"},
    {"memory", cmd_memory, "memory bandwidth (STREAM's kernels), latency, first-touch cost"},
    {"network", cmd_network, "TCP/UDP throughput (iperf3) and round trips, client and server"},
    {"env", cmd_env, "what this machine is: bare metal, VM, TDX guest, SEV-SNP guest"},
    {"attest", cmd_attest, "TDX quotes and SEV-SNP reports: get, show, verify, collateral"},
    {"notary", cmd_notary, "the TEE notary service (serve, check)"},
    {"notarize", cmd_notarize, "the notary client"},
    {"bench", cmd_bench, "benchmark harness (notary, summarize)"},
    {"tlsn", cmd_tlsn, "one real TLSNotary session (tlsn-wasm in headless Chromium)"},
    {"compare", cmd_compare, "environments side by side: medians, intervals, ratios, significance"},
    {"report", cmd_report, "one HTML page (SVG charts, tables) of stored runs side by side"},
    {"results", cmd_results, "the results store: list, show, export, import, rm runs"},
    {"vm", cmd_vm, "start a regular VM, a TDX trust domain or an SEV-SNP guest (QEMU)"},
    {"suite", cmd_suite, "every workload in this environment, one stored result"},
    {"storage", cmd_storage, "fio with CVM_eval's jobs: IOPS, bandwidth, completion latency"},
    {"kv", cmd_kv, "redis-benchmark GET/SET against redis-server, plain TCP and TLS"},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: teebench <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\nteebench help <command> (= teebench <command> --help) shows a command's options.\n"
            "teebench -V, --version prints the version.\n"
            "Conventions of every command: README.md, \"Command-line conventions\".\n");
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

static int unknown(const char *name)
{
    const char *names[N_COMMANDS + 1];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    names[N_COMMANDS] = NULL;
    const char *near = cli_suggest(name, names);
    if (near)
        fprintf(stderr, "teebench: unknown command '%s'; did you mean '%s'? (teebench --help)\n",
                name, near);
    else
        fprintf(stderr, "teebench: unknown command '%s' (teebench --help lists them)\n", name);
    return 2;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    tb_err nss_err; /* the self-contained build loads no NSS module (base/linkage.h) */
    if (tb_linkage_nss_builtin(&nss_err) < 0)
        fprintf(stderr, "teebench: warning: %s\n", nss_err.msg);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "help") && argc > 2) { /* teebench help CMD = teebench CMD --help */
        const struct command *c = find(argv[2]);
        if (!c)
            return unknown(argv[2]);
        char *args[] = {argv[2], "--help", NULL};
        return c->run(2, args);
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "-v") || !strcmp(argv[1], "--version") ||
        !strcmp(argv[1], "version")) {
        printf("teebench %s\n", TEEBENCH_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "__flags")) /* hidden: the flag tables, for scripts/gen-docs.sh */
        return cmd_flags(argc - 1, argv + 1);
    const struct command *c = find(argv[1]);
    if (c)
        return c->run(argc - 1, argv + 1);
    return unknown(argv[1]);
}
