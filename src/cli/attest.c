/* cli/attest: `teebench attest` (not built yet). */
#include "cli/cli.h"

int cmd_attest(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "attest", "not implemented yet");
}
