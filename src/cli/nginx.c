/* cli/nginx: `teebench nginx` (not built yet). */
#include "cli/cli.h"

int cmd_nginx(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "nginx", "not implemented yet");
}
