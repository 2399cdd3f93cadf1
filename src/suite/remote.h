/* suite/remote: the suite in another environment, reached with OpenSSH.
 *
 * A target is NAME=ssh://[user@]host[:port] (or NAME=vm:VM, a VM that `teebench
 * vm start` runs, or NAME=local for this machine). tb_remote_run runs
 * `teebench suite run` there through the system ssh -- BatchMode, one control
 * master per target (ControlMaster/ControlPath under a caller-made directory), the
 * user's ssh config and keys (or -F FILE) -- and returns the record it measured:
 *   1. the remote's teebench is ~/.cache/teebench/teebench-<version>-<sha256/12 of
 *      this binary>; when that file is absent (or there but does not answer as this
 *      build: damaged) this binary is streamed there (ssh ... 'cat > tmp, check its
 *      size, chmod, mv': a dropped connection never leaves a short file under the
 *      name): a remote runs exactly the build that runs here, or an explicit
 *      --remote-binary (which must say `teebench <this version>`);
 *   2. `teebench --version` there proves it runs; a missing shared library is
 *      named with the Debian package that has it, a glibc older than this build's
 *      with the version it needs. In both cases the self-contained build
 *      (fallback_binary: build/teebench-static, `make static`) is copied and run
 *      there instead when there is one, under its own name (its own hash), and an
 *      INFO event says so;
 *   3. `teebench suite run ... --no-store -o - --progress=jsonl` runs there: the
 *      result comes back on stdout, each progress event as one JSON line on stderr,
 *      re-delivered to hooks->progress as it arrives; other stderr lines become
 *      INFO events. What the remote sends is its text, not ours: the events' strings
 *      are handed on as they came (the printer escapes them); the result is stored
 *      under the target's name whatever label it carries. Memory stays bounded
 *      whatever the remote does: each stderr byte is looked at once and a line keeps
 *      its first 64 KiB (the rest is counted: "... (a line of N bytes, cut)"); the
 *      result is streamed into an unnamed temporary file ($TMPDIR or /tmp; more
 *      than 256 MiB is refused, the ssh killed) and read with tb_record_read_fd's
 *      limits. stdin stays open: when *hooks->stop is set it is closed, and a
 *      small sh wrapper there sends the suite SIGINT, so an interrupted remote run
 *      still returns what it finished ("interrupted"); one that does not end within
 *      stop_grace_ms (60 s) of that is killed, and so is one that meanwhile goes on
 *      writing a stderr line past 64 KiB or more than 1 MiB of stderr (a suite that
 *      stops writes a few lines). *stop set before the suite started (during the
 *      probe or the copy) kills that ssh and fails with "interrupted".
 * Nothing here prints. Children are stopped on every path; the control master is
 * closed (ssh -O exit) at the end. The caller ignores SIGPIPE (teebench's main()
 * does): a remote end that stops reading mid-copy is then an error, not the end of
 * this process. */
#ifndef TB_SUITE_REMOTE_H
#define TB_SUITE_REMOTE_H

#include "base/err.h"
#include "record/record.h"
#include "suite/suite.h"

typedef enum { TB_TARGET_LOCAL, TB_TARGET_SSH, TB_TARGET_VM } tb_target_kind;

typedef struct tb_remote_target {
    tb_target_kind kind;
    char name[64]; /* the environment's label */
    char user[64]; /* "": ssh's default (config or the local user) */
    char host[256];
    int port;    /* 0: ssh's default */
    char vm[64]; /* TB_TARGET_VM: the VM's name */
    /* set for VMs (from the VM's state), "" otherwise: */
    char identity[1100];
    char known_hosts[1100];
} tb_remote_target;

/* Parses NAME=ssh://[user@]host[:port][/], NAME=vm:VM or NAME=local. NAME is a
   label (tb_record_label_valid: "TDX VM" is one); VM 1..63 of [A-Za-z0-9_.-]. IPv6
   hosts in brackets. 0, or -1 with err. */
int tb_remote_target_parse(const char *spec, tb_remote_target *out, tb_err *err);

typedef struct tb_remote_opts {
    const char *local_binary;  /* this teebench (to copy) */
    const char *remote_binary; /* run this path there instead of copying (a leading ~/ is
                                  the remote home); NULL: copy */
    const char *ssh_config;    /* ssh -F FILE; NULL: the user's */
    const char *control_dir;   /* existing private directory for control sockets */
    char *const *suite_args;   /* NULL-terminated args after `suite run` (profile, ...) */
    const char *suite_doc;     /* a suite file's text, sent along (--suite); NULL: none */
    int connect_timeout_s;     /* ssh ConnectTimeout; 0: 10 */
    const char *ssh_program;   /* argv[0] of every ssh call; NULL: "ssh" (from PATH). For
                                  tests (tests/tools/fake_ssh.sh) and wrappers around ssh */
    int stop_grace_ms;         /* after *stop, how long the remote suite gets to end before
                                  its ssh is killed; 0: 60000 */

    /* copied instead where local_binary cannot run (a missing library, an older glibc):
       the self-contained build; NULL: none (the error then names what is missing) */
    const char *fallback_binary;
} tb_remote_opts;

/* Frees an argv of this module (base/argv's tb_argv_free). */
void tb_remote_argv_free(char **argv);

/* One word quoted for a POSIX shell (single quotes; ' as '\''), appended to out. */
int tb_remote_shell_quote(const char *word, tb_buf *out);

/* The ssh-copy-id argv for t (NULL-terminated, malloc'd; tb_remote_argv_free). */
char **tb_remote_copy_id_argv(const tb_remote_target *t, const char *ssh_config);

/* Runs the suite on t (see above). On 0, *out is the record (caller frees) with
   label t->name (the remote's own label is replaced). -1 with err when the target
   cannot be reached, the binary cannot be put there or run, the command is too long
   for ssh (a suite_doc over ~120 KiB), no result came back, or the result is too
   large (over 256 MiB, or past tb_record_read_fd's limits). */
int tb_remote_run(const tb_remote_target *t, const tb_remote_opts *o, tb_suite_hooks *hooks,
                  tb_record **out, tb_err *err);

/* Runs `teebench ARGS...` there (this build, copied when absent, as tb_remote_run
   does); its stdout (the first MiB) is appended to out (may be NULL). A non-zero exit is an error
   with its last stderr line. Used by --http-client local to start and stop nginx
   there. Leaves the control master open (tb_remote_run closes it). */
int tb_remote_teebench(const tb_remote_target *t, const tb_remote_opts *o, char *const *args,
                       const volatile sig_atomic_t *stop, tb_buf *out, tb_err *err);

/* Runs the shell command cmd there (stdin empty); its stdout and stderr are appended
   to out and errb (either may be NULL), its exit code is *code (255: ssh failed).
   Killed after timeout_ms (-1: none), or when *stop is set ("interrupted"; stop may be
   NULL). 0, or -1 with err. Leaves the control master open. */
int tb_remote_sh(const tb_remote_target *t, const tb_remote_opts *o, const char *cmd,
                 int64_t timeout_ms, const volatile sig_atomic_t *stop, tb_buf *out, tb_buf *errb,
                 int *code, tb_err *err);

/* The address ssh connects to for t (`ssh -G`: the user's config may map an alias to
   a HostName), into out. 0, or -1 with err. No connection is made. */
int tb_remote_hostname(const tb_remote_target *t, const tb_remote_opts *o, char *out, size_t len,
                       tb_err *err);

#endif
