/* cli/bench: `teebench bench` (not built yet). */
#include "cli/cli.h"

int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "bench", "not implemented yet");
}
