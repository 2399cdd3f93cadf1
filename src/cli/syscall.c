/* cli/syscall: `teebench syscall` (not built yet). */
#include "cli/cli.h"

int cmd_syscall(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail_code(2, "syscall", "not implemented yet");
}
