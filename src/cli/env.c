/* cli/env: `teebench env [--json]` -- prints what this machine is, each fact with
 * where it came from (sys/env does the detection). */
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/env.h"
#include "vm/vm.h"

typedef struct env_args {
    int json;
    const char *from, *record;
} env_args;

static void usage(FILE *f, const cli_cmd *c);

static const cli_flag env_flags[] = {
    CLI_BOOL("json", 0, env_args, json, "print the JSON document (the one results files embed)"),
    CLI_STR("record", 0, env_args, record, "DIR",
            "save this machine's inputs (cpuinfo, kernel log, CPUID leaves,\n"
            "sysfs values, the VM types KVM offers, /dev/sev, ...) into\n"
            "DIR, for a bug report or a test; DIR/vm/ gets what `teebench\n"
            "vm check --from DIR` reads too: QEMU's answers to its probe\n"
            "and the firmware's facts"),
    CLI_STR("from", 0, env_args, from, "DIR",
            "describe the machine recorded in DIR instead of this one"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_env_cmd = {.name = "env", .flags = env_flags, .usage = usage, .max_operands = 0};

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: teebench env [--json] [--from DIR | --record DIR]\n\n"
               "Tells what this machine is: bare metal, a VM (hypervisor vendor from CPUID\n"
               "0x40000000), a TDX guest, an SEV / SEV-ES / SEV-SNP guest; whether it can host\n"
               "TDs or SNP guests; CPU, cores, memory, kernel, clock source, vulnerability\n"
               "mitigations, /dev/kvm. Every fact says where it came from; a fact that could\n"
               "not be read is \"unknown\".\n\n");
    cli_flags_help(f, c);
}

static void print_value(const json_t *v)
{
    if (json_is_string(v))
        fputs(json_string_value(v), stdout);
    else if (json_is_true(v))
        fputs("yes", stdout);
    else if (json_is_false(v))
        fputs("no", stdout);
    else if (json_is_integer(v))
        printf("%lld", (long long)json_integer_value(v));
    else
        fputs("unknown", stdout);
}

static void print_bytes(const json_t *v)
{
    if (!json_is_integer(v)) {
        print_value(v);
        return;
    }
    double gib = (double)json_integer_value(v) / (1024.0 * 1024 * 1024);
    printf("%.1f GiB (%lld bytes)", gib, (long long)json_integer_value(v));
}

static void print_text(const json_t *doc)
{
    const char *key;
    json_t *f;
    json_object_foreach((json_t *)doc, key, f)
    {
        if (!strcmp(key, "recorded") && json_is_string(f))
            printf("%-18s %s (a recorded machine, not this one)\n", key, json_string_value(f));
        if (!json_is_object(f))
            continue;
        const json_t *v = json_object_get(f, "value");
        const char *src = json_string_value(json_object_get(f, "source"));
        if (!strcmp(key, "vulnerabilities") && json_is_object(v)) {
            printf("%-18s (from %s)\n", key, src ? src : "?");
            const char *vk;
            json_t *vv;
            json_object_foreach((json_t *)v, vk, vv)
            {
                printf("  %-26s %s\n", vk, json_string_value(vv) ? json_string_value(vv) : "?");
            }
            continue;
        }
        printf("%-18s ", key);
        char sw[600];
        if (!strcmp(key, "memory_bytes"))
            print_bytes(v);
        else if (!strcmp(key, "swiotlb") && json_is_object(v)) {
            tb_env_swiotlb_text(v, sw, sizeof sw);
            fputs(sw, stdout);
        } else
            print_value(v);
        const char *sig = json_string_value(json_object_get(f, "signature"));
        if (sig)
            printf(" (signature \"%s\")", sig);
        printf("  [%s]\n", src ? src : "?");
    }
}

int cmd_env(int argc, char **argv)
{
    env_args a = {0};
    int first, rc = cli_flags_parse(&cli_env_cmd, argc, argv, &a, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    const char *from = a.from, *record = a.record;
    int json = a.json;
    if (from && record)
        return cli_fail_code(2, "env", "--from and --record: choose one");
    tb_err err = {{0}};
    if (record) {
        if (tb_env_record(record, &err) < 0 || tb_vm_host_record(record, &err) < 0)
            return cli_fail("env", "recording into %s: %s", record, err.msg);
        fprintf(stderr, "teebench: env: recorded this machine's inputs in %s\n", record);
        return 0;
    }
    json_t *doc = from ? tb_env_json_recorded(from, &err) : tb_env_json(&err);
    if (!doc)
        return cli_fail("env", "%s: %s",
                        from ? "reading the recording" : "detecting the environment", err.msg);
    /* The env document is the "env" of every other --json envelope: printed alone,
       with the same number format. */
    if (json)
        return cli_json_print("env", doc);
    print_text(doc);
    json_decref(doc);
    return 0;
}
