/* fleet/access: a target made ready before its suite -- --ssh-copy-id (a key of the
 * user's installed once on each ssh:// target, by ssh-copy-id on this terminal: it
 * asks for the password, which teebench's BatchMode ssh never types), --guest-setup
 * (nginx installed there when the run needs it: suite/guest), and the note on a
 * target user that is not root.
 *
 * Invariants: ssh-copy-id runs only with a terminal on stdin, in the foreground (this
 * process group: it reads the terminal), one target after the other, and a failure
 * stops before the next; nothing here prints (the child's exec failure comes back
 * through a pipe and is said by the parent). */
#include "fleet/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suite/guest.h"
#include "workloads/attest.h"
#include "workloads/http.h"
#include "workloads/notary.h"

void fleet_guest_setup(const tb_suite_plan *p, const tb_remote_target *t, const tb_remote_opts *o,
                       const tb_fleet_hooks *h, int *failed)
{
    const tb_wl_http_params *hp = tb_suite_plan_params(p, &tb_wl_http);
    if (!tb_suite_plan_enabled(p, &tb_wl_http) || !hp->nginx) {
        tb_suite_info(&h->suite, "--guest-setup: nothing to install (nginx is not in this run)");
        return;
    }
    tb_guest_setup_result gr;
    tb_err e;
    if (tb_guest_setup(t, o, hp->nginx_bin, h->suite.stop, &gr, &e) < 0) {
        fleet_say(h, TB_FLEET_ERROR, "%s: --guest-setup: %s", t->name, e.msg);
        *failed = 1;
    } else if (gr.installed) {
        tb_suite_info(&h->suite,
                      "--guest-setup: installed nginx there with %s (as %s); its system-wide "
                      "service is stopped and disabled",
                      gr.manager, gr.as);
    } else {
        tb_suite_info(&h->suite, "--guest-setup: nginx is installed there (%s)", hp->nginx_bin);
    }
}

void fleet_note_user(const tb_suite_plan *p, const tb_remote_target *t, const tb_fleet_hooks *h)
{
    if (!t->user[0] || !strcmp(t->user, "root"))
        return;
    if (!tb_suite_plan_enabled(p, &tb_wl_attest) && !tb_suite_plan_enabled(p, &tb_wl_notary))
        return;
    fleet_say(h, TB_FLEET_NOTE,
              "NOTE: %s logs in as %s, not root: attest and notary's TEE modes need root there "
              "(configfs-tsm reports are root's) and fail as %s; every other workload runs as "
              "any user",
              t->name, t->user, t->user);
}

/* Runs argv in the foreground with this process's terminal and waits. Its exit code
   (128 + N for signal N; 127 with *exec_errno set when argv[0] could not be executed),
   or -1 with err when no child could be made. */
static int run_on_terminal(char **argv, int *exec_errno, tb_err *err)
{
    *exec_errno = 0;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return tb_errno(err, "pipe");
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return tb_errno(err, "fork");
    }
    if (pid == 0) {
        close(pfd[0]);
        execvp(argv[0], argv);
        int e = errno; /* a successful exec closes the write end: nothing to read then */
        ssize_t w = write(pfd[1], &e, sizeof e);
        _exit(w < 0 ? 126 : 127);
    }
    close(pfd[1]);
    int e = 0;
    ssize_t got;
    while ((got = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(pfd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == (ssize_t)sizeof e)
        *exec_errno = e;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tb_fleet_copy_ids(const tb_fleet *f, const tb_fleet_hooks *h, tb_err *err)
{
    int n = 0;
    for (int i = 0; i < f->n_targets; i++) {
        const tb_remote_target *t = &f->targets[i];
        if (t->kind != TB_TARGET_SSH)
            continue;
        if (!isatty(STDIN_FILENO)) {
            tb_errf(err,
                    "--ssh-copy-id: needs a terminal (ssh-copy-id asks for the password of %s)",
                    t->host);
            return TB_FLEET_USAGE;
        }
        char **argv = tb_remote_copy_id_argv(t, f->o.ssh_config);
        if (!argv)
            return tb_errf(err, "--ssh-copy-id: out of memory");
        char line[1024];
        size_t len = (size_t)snprintf(line, sizeof line, "%s: running ssh-copy-id", t->name);
        for (char **w = argv + 1; *w && len < sizeof line; w++)
            len += (size_t)snprintf(line + len, sizeof line - len, " %s", *w);
        fleet_say(h, TB_FLEET_NOTE, "%s", line);
        int exec_errno;
        int code = run_on_terminal(argv, &exec_errno, err);
        tb_remote_argv_free(argv);
        if (code < 0)
            return tb_err_wrap(err, "--ssh-copy-id");
        if (exec_errno)
            fleet_say(h, TB_FLEET_ERROR,
                      "--ssh-copy-id: cannot run ssh-copy-id: %s (install openssh-client)",
                      strerror(exec_errno));
        if (code != 0)
            return tb_errf(err, "--ssh-copy-id: ssh-copy-id for %s failed (exit %d)", t->name,
                           code);
        n++;
    }
    if (!n) {
        tb_errf(err, "--ssh-copy-id: no ssh:// target to copy a key to");
        return TB_FLEET_USAGE;
    }
    return 0;
}
