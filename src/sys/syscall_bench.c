/* syscall_bench: the UnixBench "System Call Overhead" loops and scoring (see syscall_bench.h).
 *
 * Owns: the per-copy child processes of one pass (forked, started together by
 * closing a "go" pipe, each reporting one fixed-size record on a result pipe
 * and leaving with _exit), and the pass scoring. A copy checks the clock only
 * every CHUNK loops so the loop body stays UnixBench's; the rate divides by
 * the copy's measured elapsed time, so the overshoot of the last chunk is
 * counted, not lost. */
#include "sys/syscall_bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"

#define EXEC_PATH "/bin/true"

/* What a copy reports to the parent: loops done, its elapsed ns, and an error
   (0, or an errno with the step that failed). */
typedef struct copy_report {
    uint64_t count;
    uint64_t ns;
    int32_t err_no;
    int32_t step; /* 0 none, 1 pipe, 2 fork, 3 exec/wait */
} copy_report;

int tb_syscall_bench_mode_parse(const char *name, tb_syscall_bench_mode *out, tb_err *err)
{
    static const struct {
        const char *name;
        tb_syscall_bench_mode mode;
    } modes[] = {{"mix", TB_SYSCALL_BENCH_MIX},
                 {"close", TB_SYSCALL_BENCH_CLOSE},
                 {"getpid", TB_SYSCALL_BENCH_GETPID},
                 {"exec", TB_SYSCALL_BENCH_EXEC}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(name, modes[i].name)) {
            *out = modes[i].mode;
            return 0;
        }
    return tb_errf(err, "%s: unknown mode (mix, close, getpid, exec)", name);
}

const char *tb_syscall_bench_mode_name(tb_syscall_bench_mode mode)
{
    switch (mode) {
    case TB_SYSCALL_BENCH_MIX:
        return "mix";
    case TB_SYSCALL_BENCH_CLOSE:
        return "close";
    case TB_SYSCALL_BENCH_GETPID:
        return "getpid";
    case TB_SYSCALL_BENCH_EXEC:
        return "exec";
    }
    return "?";
}

const char *tb_syscall_bench_mode_loop(tb_syscall_bench_mode mode)
{
    switch (mode) {
    case TB_SYSCALL_BENCH_MIX:
        return "close(dup(fd)); syscall(SYS_getpid); getuid(); umask(022);";
    case TB_SYSCALL_BENCH_CLOSE:
        return "close(dup(fd));";
    case TB_SYSCALL_BENCH_GETPID:
        return "syscall(SYS_getpid);";
    case TB_SYSCALL_BENCH_EXEC:
        return "fork(); execl(\"" EXEC_PATH "\"); waitpid();";
    }
    return "?";
}

/* ---------- one copy (runs in a child process) ---------- */

/* One fork + exec /bin/true + wait. 0, or the failing step (errno kept). */
static int exec_once(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        execl(EXEC_PATH, EXEC_PATH, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 3;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        errno = ENOEXEC;
        return 3;
    }
    return 0;
}

/* The loops. Each inner chunk is the UnixBench loop body, unrolled by nothing
   but the loop itself; the clock is read between chunks. */
static void run_loops(tb_syscall_bench_mode mode, int fd, uint64_t deadline, copy_report *r)
{
    uint64_t iter = 0;
    switch (mode) {
    case TB_SYSCALL_BENCH_MIX:
        do {
            for (int k = 0; k < 64; k++) {
                close(dup(fd));
                syscall(SYS_getpid);
                getuid();
                umask(022);
            }
            iter += 64;
        } while (tb_mono_ns() < deadline);
        break;
    case TB_SYSCALL_BENCH_CLOSE:
        do {
            for (int k = 0; k < 128; k++)
                close(dup(fd));
            iter += 128;
        } while (tb_mono_ns() < deadline);
        break;
    case TB_SYSCALL_BENCH_GETPID:
        do {
            for (int k = 0; k < 256; k++)
                syscall(SYS_getpid);
            iter += 256;
        } while (tb_mono_ns() < deadline);
        break;
    case TB_SYSCALL_BENCH_EXEC:
        do {
            int step = exec_once();
            if (step) {
                r->err_no = errno;
                r->step = step;
                break;
            }
            iter++;
        } while (tb_mono_ns() < deadline);
        break;
    }
    r->count = iter;
}

static void write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

static void copy_main(tb_syscall_bench_mode mode, uint64_t duration_ns, int go_fd, int out_fd)
{
    copy_report r = {0, 0, 0, 0};
    int fd = -1;
    if (mode == TB_SYSCALL_BENCH_MIX || mode == TB_SYSCALL_BENCH_CLOSE) {
        int p[2] = {-1, -1};
        if (pipe(p) != 0 || close(p[1]) != 0) {
            r.err_no = errno;
            r.step = 1;
        }
        fd = p[0];
    }
    char c;
    while (read(go_fd, &c, 1) < 0 && errno == EINTR)
        ;
    close(go_fd);
    if (!r.step) {
        uint64_t start = tb_mono_ns();
        run_loops(mode, fd, start + duration_ns, &r);
        r.ns = tb_mono_ns() - start;
    }
    write_all(out_fd, &r, sizeof r);
    _exit(0);
}

/* ---------- one pass (parent) ---------- */

static void kill_all(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        kill(pids[i], SIGKILL);
        while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
            ;
    }
}

static const char *step_name(int step)
{
    return step == 1 ? "pipe" : step == 2 ? "fork" : "exec " EXEC_PATH;
}

/* Reads the copies' reports and waits for them; sums into out. */
static int collect(int res_fd, pid_t *pids, int copies, tb_syscall_bench_pass *out, tb_err *err)
{
    int rc = 0, got = 0;
    double ns_sum = 0;
    uint64_t count = 0;
    copy_report r;
    size_t have = 0;
    for (;;) {
        ssize_t n = read(res_fd, (char *)&r + have, sizeof r - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        if (have < sizeof r)
            continue;
        have = 0;
        got++;
        if (r.step && !rc) {
            errno = r.err_no;
            rc = tb_errno(err, "copy: %s", step_name(r.step));
        }
        count += r.count;
        ns_sum += (double)r.ns;
    }
    for (int i = 0; i < copies; i++) {
        int st;
        while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (rc)
        return rc;
    if (got != copies)
        return tb_errf(err, "%d of %d copies did not report (killed?)", copies - got, copies);
    out->count = count;
    out->seconds = ns_sum / copies / 1e9;
    out->lps = out->seconds > 0 ? (double)count / out->seconds : 0;
    out->kept = 1;
    if (count == 0 || out->seconds <= 0)
        return tb_errf(err, "a pass completed no loop");
    return 0;
}

int tb_syscall_bench_run_pass(tb_syscall_bench_mode mode, double duration_s, int copies,
                              tb_syscall_bench_pass *out, tb_err *err)
{
    if (!(duration_s > 0) || duration_s > 86400)
        return tb_errf(err, "duration %g s: must be > 0 and <= 86400", duration_s);
    if (copies < 1 || copies > 4096)
        return tb_errf(err, "copies %d: must be 1..4096", copies);
    if (mode == TB_SYSCALL_BENCH_EXEC && access(EXEC_PATH, X_OK) != 0)
        return tb_errno(err, "%s", EXEC_PATH);
    int go[2], res[2];
    if (pipe2(go, O_CLOEXEC) != 0)
        return tb_errno(err, "pipe");
    if (pipe2(res, O_CLOEXEC) != 0) {
        int e = errno;
        close(go[0]);
        close(go[1]);
        errno = e;
        return tb_errno(err, "pipe");
    }
    pid_t *pids = calloc((size_t)copies, sizeof *pids);
    if (!pids) {
        close(go[0]);
        close(go[1]);
        close(res[0]);
        close(res[1]);
        return tb_errf(err, "out of memory");
    }
    uint64_t dns = (uint64_t)(duration_s * 1e9);
    int n = 0, rc = 0;
    for (; n < copies; n++) {
        pid_t pid = fork();
        if (pid < 0) {
            rc = tb_errno(err, "fork copy %d", n + 1);
            break;
        }
        if (pid == 0) {
            close(go[1]);
            close(res[0]);
            copy_main(mode, dns, go[0], res[1]);
        }
        pids[n] = pid;
    }
    close(go[0]);
    close(res[1]);
    if (rc) {
        kill_all(pids, n);
        close(go[1]);
        close(res[0]);
        free(pids);
        return -1;
    }
    close(go[1]); /* every copy starts now */
    rc = collect(res[0], pids, copies, out, err);
    close(res[0]);
    free(pids);
    return rc;
}

/* ---------- scoring ---------- */

int tb_syscall_bench_score(tb_syscall_bench_pass *passes, size_t n, double *score, tb_err *err)
{
    if (n == 0)
        return tb_errf(err, "no passes to score");
    for (size_t i = 0; i < n; i++)
        if (passes[i].count == 0 || !(passes[i].seconds > 0))
            return tb_errf(err, "pass %zu has no loops or no time", i + 1);
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return tb_errf(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    /* stable insertion sort by count: ties keep pass order */
    for (size_t i = 1; i < n; i++) {
        size_t v = order[i], j = i;
        while (j > 0 && passes[order[j - 1]].count > passes[v].count) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    size_t drop = n / 3;
    double logsum = 0;
    for (size_t k = 0; k < n; k++) {
        tb_syscall_bench_pass *p = &passes[order[k]];
        p->lps = (double)p->count / p->seconds;
        p->kept = k >= drop;
        if (p->kept)
            logsum += log(p->lps);
    }
    free(order);
    *score = exp(logsum / (double)(n - drop));
    return 0;
}

double tb_syscall_bench_index(double score_lps)
{
    return score_lps / TB_SYSCALL_BENCH_BASELINE_LPS * 10.0;
}
