/* cli/serve: `teebench serve` (not built yet). */
#include "cli/cli.h"

int cmd_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "serve", "not implemented yet");
}
