/* cli/notarize: `teebench notarize` (not built yet). */
#include "cli/cli.h"

int cmd_notarize(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "notarize", "not implemented yet");
}
