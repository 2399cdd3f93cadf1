/* fdlimit: getrlimit/setrlimit of RLIMIT_NOFILE (see fdlimit.h). Invariant: the
 * only state is the kernel's. */
#include "base/fdlimit.h"

#include <sys/resource.h>

uint64_t tb_fd_limit_raise(uint64_t want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        rlim_t to = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? (rlim_t)want : rl.rlim_max;
        struct rlimit raised = {to, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl.rlim_cur = to;
    }
    return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}
