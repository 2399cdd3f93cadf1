/* proc: see proc.h. Waiting uses a pidfd (poll with a timeout) when the kernel
 * has pidfd_open, else a waitpid(WNOHANG) loop with 1 ms sleeps. A child that
 * exited is SIGKILLed as a group before it is reaped, so nothing it left behind
 * in its group survives it (its zombie keeps the group id from being reused). */
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"

static int open_out(const char *path)
{
    if (!path)
        return open("/dev/null", O_WRONLY | O_CLOEXEC);
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
}

static int code_of(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 255;
}

/* In the child after fork: dies with its parent, own group, stdin (a pipe or
 * /dev/null), files or pipes on fd 1 and 2,
 * default signals, exec. On failure, writes errno to report_fd and exits 127.
 * parent is the pid of the process that forked (read before fork). */
__attribute__((noreturn)) static void child_exec(const tb_proc_opts *o, int in, int out, int errfd,
                                                 int report_fd, pid_t parent)
{
    /* SIGKILL when the parent dies, however it dies (kill -9 included); kept across
     * execve. A parent that died between fork and prctl is not noticed by the kernel
     * (we were already reparented): then getppid() differs and the child gives up. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        goto fail;
    if (getppid() != parent) {
        errno = ESRCH;
        goto fail;
    }
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (in >= 0) {
        if (dup2(in, 0) < 0)
            goto fail;
    } else {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0 && devnull != 0) {
            dup2(devnull, 0);
            close(devnull);
        }
    }
    if (dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
        goto fail;
    if (o->env_set)
        for (char *const *e = o->env_set; *e; e++)
            if (putenv(*e) != 0)
                goto fail;
    execvp(o->argv[0], o->argv);
fail:;
    int e = errno;
    ssize_t n = write(report_fd, &e, sizeof e);
    (void)n;
    _exit(127);
}

void tb_proc_close_pipes(tb_proc *p)
{
    int *fds[] = {&p->in, &p->out, &p->err};
    for (size_t i = 0; i < 3; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

/* The child's end (*child) and the parent's end (*parent) of one stream: a pipe when
   piped, else a copy of the caller's fd (> 2) or the file (or /dev/null) for
   stdout/stderr, or -1 for stdin (/dev/null). */
static int stream_fds(int piped, int is_input, const char *path, int fd, int *child, int *parent,
                      tb_err *err)
{
    *child = *parent = -1;
    if (piped) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
            return tb_errno(err, "spawn: pipe");
        *child = is_input ? fds[0] : fds[1];
        *parent = is_input ? fds[1] : fds[0];
        return 0;
    }
    if (is_input)
        return 0;
    if (fd > 2) {
        *child = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        return *child < 0 ? tb_errno(err, "spawn: dup") : 0;
    }
    *child = open_out(path);
    return *child < 0 ? tb_errno(err, "%s", path ? path : "/dev/null") : 0;
}

static void close_fd(int fd)
{
    if (fd >= 0)
        close(fd);
}

int tb_proc_spawn(const tb_proc_opts *o, tb_proc *p, tb_err *err)
{
    p->pid = -1;
    p->pidfd = -1;
    p->code = -1;
    p->in = p->out = p->err = -1;
    if (!o->argv || !o->argv[0])
        return tb_errf(err, "spawn: empty command");
    int in = -1, out = -1, errfd = -1, report[2] = {-1, -1};
    if (stream_fds(o->pipes & TB_PROC_PIPE_IN, 1, NULL, -1, &in, &p->in, err) < 0 ||
        stream_fds(o->pipes & TB_PROC_PIPE_OUT, 0, o->stdout_path, o->stdout_fd, &out, &p->out,
                   err) < 0 ||
        stream_fds(o->pipes & TB_PROC_PIPE_ERR, 0, o->stderr_path, o->stderr_fd, &errfd, &p->err,
                   err) < 0 ||
        (pipe2(report, O_CLOEXEC) < 0 && tb_errno(err, "spawn %s: pipe", o->argv[0]))) {
        close_fd(in);
        close_fd(out);
        close_fd(errfd);
        tb_proc_close_pipes(p);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(o, in, out, errfd, report[1], parent);
    int fork_errno = errno;
    close_fd(in);
    close(out);
    close(errfd);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        tb_proc_close_pipes(p);
        errno = fork_errno;
        return tb_errno(err, "spawn %s: fork", o->argv[0]);
    }
    setpgid(pid, pid); /* also in the parent: no window where a kill(-pid) misses */
    int child_errno = 0;
    ssize_t n;
    do
        n = read(report[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof child_errno) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        tb_proc_close_pipes(p);
        errno = child_errno;
        return tb_errno(err, "cannot run %s", o->argv[0]);
    }
    p->pid = pid;
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (p->pidfd >= 0)
        fcntl(p->pidfd, F_SETFD, FD_CLOEXEC);
#endif
    return 0;
}

/* Reaps an exited (zombie) child after killing what is left of its group. */
static void reap(tb_proc *p)
{
    int status = 0;
    kill(-p->pid, SIGKILL);
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
        ;
    p->code = code_of(status);
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
    p->pid = -1;
}

/* 1 when the child has exited (not yet reaped), 0 when running. */
static int has_exited(tb_proc *p)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
        return errno == ECHILD;
    return si.si_pid == p->pid;
}

int tb_proc_wait(tb_proc *p, int64_t timeout_ms, const volatile sig_atomic_t *cancel, tb_err *err)
{
    if (p->pid < 0)
        return TB_PROC_EXITED;
    uint64_t deadline =
        timeout_ms < 0 ? UINT64_MAX : tb_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    for (;;) {
        if (has_exited(p)) {
            reap(p);
            return TB_PROC_EXITED;
        }
        if (cancel && *cancel)
            return TB_PROC_CANCELLED;
        uint64_t now = tb_mono_ns();
        if (now >= deadline)
            return TB_PROC_TIMEDOUT;
        /* Slices of at most 100 ms so a cancel that lands just before poll is seen soon. */
        uint64_t left_ms = (deadline - now + 999999) / 1000000;
        int slice = left_ms > 100 ? 100 : (int)left_ms;
        if (p->pidfd >= 0) {
            struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
            if (poll(&pfd, 1, slice) < 0 && errno != EINTR)
                return tb_errno(err, "waiting for pid %ld", (long)p->pid);
        } else {
            tb_sleep_ns(1000000);
        }
    }
}

void tb_proc_kill(tb_proc *p)
{
    if (p->pid < 0)
        return;
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
    reap(p);
}

int tb_proc_stop(tb_proc *p, int64_t grace_ms)
{
    if (p->pid < 0)
        return p->code;
    kill(-p->pid, SIGTERM);
    if (tb_proc_wait(p, grace_ms, NULL, NULL) != TB_PROC_EXITED)
        tb_proc_kill(p);
    return p->code;
}

int tb_proc_alive(tb_proc *p)
{
    if (p->pid < 0)
        return 0;
    if (has_exited(p)) {
        reap(p);
        return 0;
    }
    return 1;
}

int tb_proc_run(const tb_proc_opts *o, int64_t timeout_ms, const volatile sig_atomic_t *cancel,
                tb_proc_result *r, tb_err *err)
{
    memset(r, 0, sizeof *r);
    uint64_t t0 = tb_mono_ns();
    tb_proc p;
    if (tb_proc_spawn(o, &p, err) < 0)
        return -1;
    int w = tb_proc_wait(&p, timeout_ms, cancel, err);
    if (w != TB_PROC_EXITED)
        tb_proc_kill(&p);
    r->wall_ns = tb_mono_ns() - t0;
    r->timed_out = w == TB_PROC_TIMEDOUT;
    r->cancelled = w == TB_PROC_CANCELLED || w < 0;
    r->exit_code = r->timed_out ? TB_PROC_TIMEOUT_CODE : p.code;
    return 0;
}
