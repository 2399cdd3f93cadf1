/* proc: child processes run in their own process group, with stdout/stderr sent
 * to files and an optional timeout.
 *
 * Invariants:
 * - every spawned child calls setpgid(0, 0): its pid is also its process group id,
 *   so one kill(-pid, sig) reaches it and everything it started;
 * - every spawned child dies with its parent: PR_SET_PDEATHSIG(SIGKILL), checked
 *   against the fork/prctl race, so a harness killed with SIGKILL leaves no
 *   fixture server or notary holding its port. The signal is sent when the
 *   *thread* that spawned exits: spawn from a thread that outlives the child
 *   (the main thread). Grandchildren are not covered (a shell's children);
 *   servers teebench starts are direct children;
 * - a child that runs past its timeout has its whole group killed (SIGKILL) and
 *   is reported with exit code 124 (the convention of timeout(1));
 * - a child killed by signal N is reported as 128 + N; one that could not be
 *   executed is an error of tb_proc_spawn (not an exit code);
 * - tb_proc_wait/tb_proc_stop reap the child exactly once and close its pidfd:
 *   after they report an exit, the tb_proc is done (pid = -1).
 * Nothing here installs signal handlers or touches global state: cancellation is
 * a caller-owned flag (typically set by a SIGINT handler in the cli). */
#ifndef TB_BASE_PROC_H
#define TB_BASE_PROC_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

#define TB_PROC_TIMEOUT_CODE 124

typedef struct tb_proc_opts {
    char *const *argv;       /* argv[0] is looked up in PATH (execvp) */
    char *const *env_set;    /* NULL, or NULL-terminated "KEY=VALUE" strings set in the child */
    const char *stdout_path; /* NULL: /dev/null; otherwise created/truncated, mode 0644,
                                never through a symlink (O_NOFOLLOW) */
    const char *stderr_path; /* NULL: /dev/null */
    int stdout_fd;           /* > 2: the child's stdout is this open file instead of
                                stdout_path (e.g. from tb_file_create_at in a private
                                directory); the caller keeps it and closes it */
    int stderr_fd;           /* > 2: the same for stderr */
    int pipes;               /* TB_PROC_PIPE_* bits: these streams are pipes to the parent
                                instead (the *_path of a piped stream is ignored) */
} tb_proc_opts;

enum { TB_PROC_PIPE_IN = 1, TB_PROC_PIPE_OUT = 2, TB_PROC_PIPE_ERR = 4 };

typedef struct tb_proc {
    pid_t pid; /* -1 once reaped */
    int pidfd; /* -1 when the kernel has no pidfd_open (then waits poll waitpid) */
    int code;  /* exit code once reaped */
    /* The parent's ends of the pipes asked for in tb_proc_opts.pipes (close-on-exec),
       -1 otherwise: in is written to the child's stdin, out and err read from its
       stdout and stderr. The caller closes them (tb_proc_close_pipes). */
    int in, out, err;
} tb_proc;

/* Closes the pipe ends of p that are still open (sets them to -1). */
void tb_proc_close_pipes(tb_proc *p);

/* Starts the child described by o. Fails (and leaves no child behind) when the
 * output files cannot be opened or argv[0] cannot be executed. */
int tb_proc_spawn(const tb_proc_opts *o, tb_proc *p, tb_err *err);

/* Outcome of tb_proc_wait. */
enum { TB_PROC_EXITED = 0, TB_PROC_TIMEDOUT = 1, TB_PROC_CANCELLED = 2 };

/* Waits until the child exits (TB_PROC_EXITED, p->code set, child reaped), the
 * timeout passes (timeout_ms < 0: none) or *cancel becomes non-zero (cancel may
 * be NULL). On TIMEDOUT and CANCELLED the child is still running: the caller
 * normally calls tb_proc_kill. Returns -1 on a system error. */
int tb_proc_wait(tb_proc *p, int64_t timeout_ms, const volatile sig_atomic_t *cancel, tb_err *err);

/* SIGKILLs the child's whole process group and reaps the child (p->code = 128+9). */
void tb_proc_kill(tb_proc *p);

/* Graceful stop of a server: SIGTERM to the whole group, up to grace_ms for the
 * child to exit, then SIGKILL to the group; reaps the child. Returns p->code. */
int tb_proc_stop(tb_proc *p, int64_t grace_ms);

/* 1 while the child has not exited, 0 once it has (it is then reaped, p->code set). */
int tb_proc_alive(tb_proc *p);

/* Result of one complete run. */
typedef struct tb_proc_result {
    int exit_code;    /* the child's exit code, 128+N for signal N, 124 on timeout */
    int timed_out;    /* 1 when the timeout killed it */
    int cancelled;    /* 1 when *cancel stopped it (exit_code is then 128+SIGKILL) */
    uint64_t wall_ns; /* spawn to reap, monotonic clock */
} tb_proc_result;

/* Spawns, waits with the timeout (timeout_ms < 0: none), kills the group on
 * timeout or cancellation. Returns 0 when the child ran (whatever its exit code),
 * -1 when it could not be started. */
int tb_proc_run(const tb_proc_opts *o, int64_t timeout_ms, const volatile sig_atomic_t *cancel,
                tb_proc_result *r, tb_err *err);

#endif
