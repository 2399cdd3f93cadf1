/* nginx: run-directory config, start/stop of a daemonized nginx, log counting;
 * see nginx.h.
 *
 * The run directory is opened once (tb_dir_open_private) and everything after
 * goes through that descriptor: the checks (fstat), every file written
 * (nginx.conf, html/index.html, start.log: openat, O_NOFOLLOW), and nginx itself,
 * which is started *inside* it: its working directory is set from the descriptor
 * (fchdir) and every path it is given is relative ("nginx -p ./ -c nginx.conf
 * -e error.log"; nginx.conf's pid, logs, temp paths and html are relative too).
 * A path is never resolved again, so swapping the directory under its name
 * (rename-exchange in a parent others may write) cannot make nginx load another
 * config or serve another tree: the master and its workers keep resolving
 * against the directory that was checked, whatever its name points to later.
 *
 * Start's stderr goes to start.log; with "daemon on" that process exits once the
 * master is forked (after binding its sockets), so its exit code tells whether
 * the bind and the config worked, and its [emerg] line is the reason when they
 * did not. The process is spawned directly (posix_spawn, not base/proc) because
 * base/proc kills the child's process group when it exits, which would race with
 * the daemon's setsid. The pid in nginx.pid counts as this run directory's nginx
 * only while /proc/<pid> shows a live (non-zombie) nginx master process whose
 * working directory is the run directory itself (the same device and inode): a
 * pid file naming any other process -- another program, another directory's
 * nginx -- is never signalled. */
#include "serve/internal.h"
#include "serve/nginx.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/file.h"
#include "net/sock.h"
#include "serve/fixture.h"

extern char **environ;

int tb_nginx_path(const char *dir, const char *name, char *out, size_t size, tb_err *err)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size)
        return tb_errf(err, "%.200s/%s: path too long", dir, name);
    return 0;
}

/* nginx.conf takes a path in double quotes; these bytes cannot be in one. */
static int check_conf_path(const char *what, const char *p, tb_err *err)
{
    if (p[0] != '/')
        return tb_errf(err, "%s %s: not an absolute path", what, p);
    if (strpbrk(p, "\"\\$\n\r;{}"))
        return tb_errf(err, "%s %s: contains a character nginx.conf cannot quote", what, p);
    return 0;
}

/* The user nginx's workers run as when it is started as root. */
struct worker {
    char user[64], group[64];
    uid_t uid;
    gid_t gid;
};

static int worker_of(const tb_nginx_opts *o, struct worker *w, tb_err *err)
{
    const char *name = o->user;
    struct passwd *pw = name ? getpwnam(name) : getpwnam("www-data");
    if (!name && !pw)
        pw = getpwnam(name = "nobody");
    if (!pw)
        return tb_errf(err, "worker user %s: no such user", name ? name : "www-data");
    if (strlen(pw->pw_name) >= sizeof w->user || strpbrk(pw->pw_name, "\";{} \\$\n"))
        return tb_errf(err, "worker user %.64s: not a name nginx.conf can hold", pw->pw_name);
    snprintf(w->user, sizeof w->user, "%s", pw->pw_name);
    w->uid = pw->pw_uid;
    w->gid = pw->pw_gid;
    struct group *gr = getgrgid(pw->pw_gid);
    if (!gr || strlen(gr->gr_name) >= sizeof w->group || strpbrk(gr->gr_name, "\";{} \\$\n"))
        return tb_errf(err, "worker user %s: its group %ld has no usable name", w->user,
                       (long)pw->pw_gid);
    snprintf(w->group, sizeof w->group, "%s", gr->gr_name);
    return 0;
}

int tb_nginx_config(const tb_nginx_opts *o, tb_buf *b, tb_err *err)
{
    const char *addr = o->addr ? o->addr : "127.0.0.1";
    char root[PATH_MAX];
    if (!o->dir || check_conf_path("run directory", o->dir, err) < 0)
        return o->dir ? -1 : tb_errf(err, "no run directory");
    if (o->port < 1 || o->port > 65535)
        return tb_errf(err, "port %d: not in 1..65535", o->port);
    if (o->workers < 1 || o->workers > 1024)
        return tb_errf(err, "workers %d: not in 1..1024", o->workers);
    if (strpbrk(addr, "\"\\$\n\r;{} "))
        return tb_errf(err, "address %s: not an address", addr);
    /* the document root: the user's (absolute), else html/ in the run directory */
    snprintf(root, sizeof root, "%s", o->root ? o->root : "html");
    if (o->root && check_conf_path("root", root, err) < 0)
        return -1;
    if (o->tls && (!o->cert || !o->key))
        return tb_errf(err, "TLS needs a certificate and a key");
    if (o->tls && (check_conf_path("certificate", o->cert, err) < 0 ||
                   check_conf_path("key", o->key, err) < 0))
        return -1;
    const char *d = o->dir;
    int ok = tb_buf_printf(b,
                           "# nginx.conf written by teebench nginx for \"%s\": nginx runs in "
                           "that directory (-p ./) and every path nginx writes is relative to "
                           "it.\n",
                           d) == 0;
    if (geteuid() == 0) {
        /* The workers parse HTTP: as an unprivileged user, not as root. */
        struct worker w;
        if (worker_of(o, &w, err) < 0)
            return -1;
        ok = ok && tb_buf_printf(b, "user %s %s;\n", w.user, w.group) == 0;
    }
    ok = ok &&
         tb_buf_printf(b,
                       "worker_processes %d;\n"
                       "daemon on;\n"
                       "master_process on;\n"
                       "pid \"nginx.pid\";\n"
                       "error_log \"error.log\" warn;\n"
                       "events {\n    worker_connections 4096;\n}\n"
                       "http {\n"
                       "    types {\n        text/html html htm;\n        application/json json;\n"
                       "        text/plain txt;\n    }\n"
                       "    default_type application/octet-stream;\n"
                       "    access_log \"access.log\";\n"
                       "    client_body_temp_path \"tmp/body\";\n"
                       "    proxy_temp_path \"tmp/proxy\";\n"
                       "    fastcgi_temp_path \"tmp/fastcgi\";\n"
                       "    uwsgi_temp_path \"tmp/uwsgi\";\n"
                       "    scgi_temp_path \"tmp/scgi\";\n"
                       "    sendfile on;\n"
                       "    tcp_nopush on;\n"
                       "    keepalive_timeout 65s;\n"
                       "    keepalive_requests 1000000;\n"
                       "    server {\n"
                       "        listen %s%s%s:%d%s;\n"
                       "        server_name test-server.io localhost;\n",
                       o->workers, strchr(addr, ':') ? "[" : "", addr, strchr(addr, ':') ? "]" : "",
                       o->port, o->tls ? " ssl" : "") == 0;
    if (o->tls)
        ok = ok && tb_buf_printf(b,
                                 "        ssl_certificate \"%s\";\n"
                                 "        ssl_certificate_key \"%s\";\n",
                                 o->cert, o->key) == 0;
    ok = ok && tb_buf_printf(b,
                             "        root \"%s\";\n"
                             "        index index.html;\n"
                             "    }\n"
                             "}\n",
                             root) == 0;
    return ok ? 0 : tb_errf(err, "nginx.conf: out of memory");
}

/* Reads the start of /proc/<pid>/<name> into buf (cap bytes, NUL-terminated).
 * Returns 0, or -1 when the file cannot be opened (no such process). */
static int read_proc(pid_t pid, const char *name, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    return 0;
}

/* 1 if pid is a live (not zombie) nginx process. */
static int is_live_nginx(pid_t pid)
{
    char buf[512];
    if (read_proc(pid, "stat", buf, sizeof buf) < 0)
        return 0;
    /* "<pid> (<comm>) <state> ..." */
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close[1] != ' ')
        return 0;
    *close = 0;
    return close[2] != 'Z' && close[2] != 'X' && strcmp(open + 1, "nginx") == 0;
}

/* 1 if pid is a live nginx master whose working directory is the directory dfd
 * (same device and inode): the nginx this run directory started. */
static int is_our_master(pid_t pid, int dfd)
{
    if (!is_live_nginx(pid))
        return 0;
    char cmd[64] = {0};
    static const char master[] = "nginx: master process";
    if (read_proc(pid, "cmdline", cmd, sizeof cmd) < 0 ||
        strncmp(cmd, master, sizeof master - 1) != 0)
        return 0;
    char path[64];
    struct stat cwd, dir;
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
    return stat(path, &cwd) == 0 && fstat(dfd, &dir) == 0 && cwd.st_dev == dir.st_dev &&
           cwd.st_ino == dir.st_ino;
}

/* The pid of the nginx running in the run directory dfd (dir: its path, for
 * messages), or -1 with err. */
static pid_t pid_at(int dfd, const char *dir, tb_err *err)
{
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read_at(dfd, dir, "nginx.pid", 64, &b, &e) < 0)
        return tb_errf(err, "no nginx runs from %s (no readable %s/nginx.pid)", dir, dir);
    char *end = NULL;
    long pid = b.p ? strtol((const char *)b.p, &end, 10) : 0;
    int junk = !end || (*end && *end != '\n');
    tb_buf_clear(&b);
    if (pid <= 0 || pid > INT_MAX || junk || !is_live_nginx((pid_t)pid))
        return tb_errf(err, "no nginx runs from %s (stale pid file %s/nginx.pid)", dir, dir);
    if (!is_our_master((pid_t)pid, dfd))
        return tb_errf(err,
                       "%s/nginx.pid names pid %ld, which is not the nginx master running in "
                       "%s: refusing to signal it",
                       dir, pid, dir);
    return (pid_t)pid;
}

/* The run directory dir, opened for reading its nginx.pid (not through a symlink:
 * start never runs nginx in one). Returns the fd or -1 with err. */
static int open_dir_for_pid(const char *dir, tb_err *err)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return tb_errf(err, "no nginx runs from %s (%s)", dir, strerror(errno));
    return dfd;
}

pid_t tb_nginx_pid(const char *dir, tb_err *err)
{
    int dfd = open_dir_for_pid(dir, err);
    if (dfd < 0)
        return -1;
    pid_t pid = pid_at(dfd, dir, err);
    close(dfd);
    return pid;
}

/* html/index.html in the run directory's html/ (html_fd). */
static int write_index(int html_fd, const char *html_dir, tb_err *err)
{
    tb_buf page = {0};
    /* nginx's own welcome page when installed, else ours of the same size. */
    tb_err ignore;
    if (tb_file_read("/usr/share/nginx/html/index.html", 1 << 20, &page, &ignore) < 0) {
        tb_buf_reset(&page);
        tb_blob w = tb_fixture_welcome();
        if (tb_buf_append(&page, w.p, w.len) < 0) {
            tb_buf_clear(&page);
            return tb_errf(err, "out of memory");
        }
    }
    int rc = tb_file_write_at(html_fd, html_dir, "index.html", page.p, page.len, 0644, err);
    tb_buf_clear(&page);
    return rc;
}

/* The first "[emerg]" (or else the last) line nginx wrote to start.log in dfd,
 * without its "nginx: [emerg] " prefix, into out. */
static void start_failure(int dfd, const char *dir, char *out, size_t size)
{
    tb_buf b = {0};
    tb_err ignore;
    snprintf(out, size, "no message");
    if (tb_file_read_at(dfd, dir, "start.log", 1 << 16, &b, &ignore) < 0 || !b.len) {
        tb_buf_clear(&b);
        return;
    }
    char *s = (char *)b.p, *best = NULL, *last = NULL;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        last = line;
        if (!best && strstr(line, "[emerg]"))
            best = line;
    }
    char *msg = best ? best : last;
    if (msg) {
        char *tag = strstr(msg, "] ");
        snprintf(out, size, "%s", tag ? tag + 2 : msg);
    }
    tb_buf_clear(&b);
}

/* Runs nginx inside the run directory dfd: its working directory set from the
 * descriptor, every path relative to it. */
static int spawn_nginx(const tb_nginx_opts *o, int dfd, int timeout_ms, tb_err *err)
{
    const char *bin = o->nginx ? o->nginx : TB_NGINX_BIN;
    char *argv[] = {(char *)bin, "-p", "./", "-c", "nginx.conf", "-e", "error.log", NULL};
    int logfd = tb_file_create_at(dfd, o->dir, "start.log", 0, 0644, err);
    if (logfd < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addfchdir_np(&fa, dfd);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, logfd, 1);
    posix_spawn_file_actions_adddup2(&fa, logfd, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(logfd);
    if (rc != 0) {
        errno = rc;
        return tb_errno(err, "cannot run %s", bin);
    }
    int status = 0;
    uint64_t deadline = tb_mono_ns() + (uint64_t)timeout_ms * 1000000;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return tb_errno(err, "waiting for %s", bin);
        if (tb_mono_ns() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return tb_errf(err, "%s did not daemonize within %d ms", bin, timeout_ms);
        }
        tb_sleep_ns(2000000);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char why[300];
    start_failure(dfd, o->dir, why, sizeof why);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return tb_errf(err, "cannot run %s: %s", bin, why);
    return tb_errf(err, "nginx failed to start: %s (see %s/start.log)", why, o->dir);
}

static int stop_at(int dfd, const char *dir, int timeout_ms, tb_err *err);

/* Waits until nginx wrote its pid (in dfd, then in *pid) and accepts on addr:port. */
static int wait_ready(const tb_nginx_opts *o, int dfd, int timeout_ms, pid_t *pid, tb_err *err)
{
    char port[16];
    tb_addr a;
    snprintf(port, sizeof port, "%d", o->port);
    if (tb_addr_resolve(o->addr ? o->addr : "127.0.0.1", port, &a, err) < 0)
        return -1;
    uint64_t deadline = tb_mono_ns() + (uint64_t)timeout_ms * 1000000;
    for (;;) {
        tb_err e;
        if ((*pid = pid_at(dfd, o->dir, &e)) > 0 && tb_sock_connect_wait(&a, 200, &e) == 0)
            return 0;
        if (tb_mono_ns() > deadline)
            return tb_errf(err, "nginx does not answer on %s:%d after %d ms: %s",
                           o->addr ? o->addr : "127.0.0.1", o->port, timeout_ms, e.msg);
        tb_sleep_ns(10000000);
    }
}

/* An entry of the run directory that must be a directory (not a symlink) of ours
 * -- or of uid also (nginx's master gives its temp paths to the workers' user) --
 * created if missing. */
static int own_subdir(int dfd, const char *dir, const char *name, mode_t mode, uid_t also,
                      tb_err *err)
{
    if (mkdirat(dfd, name, mode) < 0 && errno != EEXIST)
        return tb_errno(err, "mkdir %s/%s", dir, name);
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return tb_errno(err, "%s/%s", dir, name);
    if (!S_ISDIR(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != also))
        return tb_errf(err, "%s/%s: not a directory of this user (a symlink?): refusing it", dir,
                       name);
    return 0;
}

/* Whether user w can reach (search every directory above) and read directory path,
 * judged from the mode bits: the owner's, the group's for w's group, else others'. */
static int worker_can_read(const struct worker *w, const char *path, tb_err *err)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    size_t n = strlen(p);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != 0)
            continue;
        char c = p[i];
        p[i] = 0;
        struct stat st;
        if (stat(p, &st) < 0)
            return tb_errno(err, "%s", p);
        mode_t need = c ? S_IXOTH : S_IXOTH | S_IROTH;
        mode_t have = st.st_uid == w->uid   ? (st.st_mode >> 6) & 7
                      : st.st_gid == w->gid ? (st.st_mode >> 3) & 7
                                            : st.st_mode & 7;
        if ((have & need) != need)
            return tb_errf(err,
                           "%s: nginx's workers (user %s) cannot %s it (mode %04o); make it "
                           "readable (chmod o+x on directories above) or choose --user",
                           p, w->user, c ? "pass through" : "read", (unsigned)(st.st_mode & 07777));
        p[i] = c;
    }
    return 0;
}

/* The run directory, as only we can change it; as root, its group is the workers'
 * (mode 0710: they pass through to html/, nothing else). Returns its fd. */
static int open_run_dir(const tb_nginx_opts *o, const struct worker *w, tb_err *err)
{
    int dfd = tb_dir_open_private(o->dir, 0700, err);
    if (dfd < 0)
        return tb_err_wrap(err, "run directory");
    if (w && w->uid != 0 && (fchown(dfd, (uid_t)-1, w->gid) < 0 || fchmod(dfd, 0710) < 0)) {
        tb_errno(err, "run directory %s", o->dir);
        close(dfd);
        return -1;
    }
    return dfd;
}

static int make_dirs(const tb_nginx_opts *o, int dfd, const struct worker *w, tb_err *err)
{
    uid_t mine = geteuid(), workers = w ? w->uid : mine;
    static const char *const subdirs[] = {"tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi",
                                          "tmp/scgi"};
    if (own_subdir(dfd, o->dir, "tmp", 0755, mine, err) < 0)
        return -1;
    for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++)
        if (own_subdir(dfd, o->dir, subdirs[i], 0700, workers, err) < 0)
            return -1;
    if (o->root)
        return 0;
    char html[PATH_MAX];
    if (tb_nginx_path(o->dir, "html", html, sizeof html, err) < 0 ||
        own_subdir(dfd, o->dir, "html", 0755, mine, err) < 0)
        return -1;
    int hfd = openat(dfd, "html", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (hfd < 0)
        return tb_errno(err, "%s", html);
    int rc = write_index(hfd, html, err);
    close(hfd);
    return rc;
}

int tb_nginx_start(const tb_nginx_opts *o, int timeout_ms, pid_t *pid, tb_err *err)
{
    tb_buf text = {0};
    tb_err e;
    struct worker w, *wp = NULL;
    if (tb_nginx_config(o, &text, err) < 0) {
        tb_buf_clear(&text);
        return -1;
    }
    if (geteuid() == 0) {
        if (worker_of(o, &w, err) < 0) {
            tb_buf_clear(&text);
            return -1;
        }
        wp = &w;
    }
    int rc = -1, dfd = open_run_dir(o, wp, err);
    if (dfd < 0)
        goto out;
    pid_t running = pid_at(dfd, o->dir, &e);
    if (running > 0) {
        tb_errf(err, "nginx already runs from %s (pid %d)", o->dir, (int)running);
        goto out;
    }
    /* The workers reach a document root of the user's by its path; html/ in the run
       directory they reach from their working directory (the run directory, which
       open_run_dir let them pass through). */
    if (make_dirs(o, dfd, wp, err) < 0 ||
        (wp && wp->uid != 0 && o->root && worker_can_read(wp, o->root, err) < 0) ||
        tb_file_write_at(dfd, o->dir, "nginx.conf", text.p, text.len, 0644, err) < 0)
        goto out;
    unlinkat(dfd, "nginx.pid", 0); /* stale: pid_at said no nginx of ours lives there */
    if (spawn_nginx(o, dfd, timeout_ms, err) < 0)
        goto out;
    pid_t master = -1;
    if (wait_ready(o, dfd, timeout_ms, &master, err) < 0) {
        stop_at(dfd, o->dir, timeout_ms, &e);
        goto out;
    }
    if (pid)
        *pid = master;
    rc = 0;
out:
    if (dfd >= 0)
        close(dfd);
    tb_buf_clear(&text);
    return rc;
}

/* Stops the nginx running in the run directory dfd (see tb_nginx_stop). */
static int stop_at(int dfd, const char *dir, int timeout_ms, tb_err *err)
{
    pid_t pid = pid_at(dfd, dir, err);
    if (pid < 0)
        return -1;
    if (kill(pid, SIGTERM) < 0 && errno != ESRCH)
        return tb_errno(err, "stopping nginx (pid %d)", (int)pid);
    uint64_t deadline = tb_mono_ns() + (uint64_t)timeout_ms * 1000000;
    while (is_live_nginx(pid)) {
        if (tb_mono_ns() > deadline) {
            /* The master leads its own process group (setsid): kill it and its workers. */
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            for (int i = 0; i < 100 && is_live_nginx(pid); i++)
                tb_sleep_ns(10000000);
            break;
        }
        tb_sleep_ns(5000000);
    }
    if (is_live_nginx(pid))
        return tb_errf(err, "nginx (pid %d) does not stop", (int)pid);
    unlinkat(dfd, "nginx.pid", 0);
    return 0;
}

int tb_nginx_stop(const char *dir, int timeout_ms, tb_err *err)
{
    int dfd = open_dir_for_pid(dir, err);
    if (dfd < 0)
        return -1;
    int rc = stop_at(dfd, dir, timeout_ms, err);
    close(dfd);
    return rc;
}
