/* cli/notary: `teebench notary` (not built yet). */
#include "cli/cli.h"

int cmd_notary(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "notary", "not implemented yet");
}
