/* suite/guest: a guest made ready for the suite (`suite run --guest-setup`): the
 * package its workloads need and a stock image lacks -- nginx, for http's nginx
 * target -- installed there with the guest's own package manager before the suite.
 *
 * One POSIX sh script runs there over the target's ssh (suite/remote): nothing is done
 * when the nginx binary is already there; otherwise it needs root or passwordless sudo
 * (`sudo -n`: never a password prompt, ssh runs in BatchMode), then installs the
 * package "nginx" (its name on Debian, Ubuntu, Fedora, CentOS Stream and RHEL) with
 * apt-get (DEBIAN_FRONTEND=noninteractive, after apt-get update) or dnf (-y), whichever
 * is there, and checks that the binary now exists. Debian's and Fedora's packages start
 * a system-wide nginx: one installed here is stopped and disabled again (the suite
 * starts its own on a free port; an idle one would only be noise in the figures). An
 * nginx that was already there is left as it was. Nothing here prints. */
#ifndef TB_SUITE_GUEST_H
#define TB_SUITE_GUEST_H

#include "base/buf.h"
#include "base/err.h"
#include "suite/remote.h"

typedef struct tb_guest_setup_result {
    int installed;    /* 1: installed now; 0: it was there already */
    char manager[16]; /* installed with: "apt-get" or "dnf" */
    char as[16];      /* as "root" or through "sudo -n" */
} tb_guest_setup_result;

/* Runs the script on t (at most 15 minutes; *stop interrupts it). 0 with *res, or -1 with
   err saying what is missing there and what to do: neither root nor passwordless sudo,
   neither apt-get nor dnf, the package manager's own last line when it failed. */
int tb_guest_setup(const tb_remote_target *t, const tb_remote_opts *o, const char *nginx_bin,
                   const volatile sig_atomic_t *stop, tb_guest_setup_result *res, tb_err *err);

#endif
