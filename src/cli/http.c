/* cli/http: `teebench http` (not built yet). */
#include "cli/cli.h"

int cmd_http(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "http", "not implemented yet");
}
