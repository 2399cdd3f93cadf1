/* cli/probe: `teebench probe` (not built yet). */
#include "cli/cli.h"

int cmd_probe(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "probe", "not implemented yet");
}
