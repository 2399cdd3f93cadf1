/* cli/env: `teebench env` (not built yet). */
#include "cli/cli.h"

int cmd_env(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "env", "not implemented yet");
}
