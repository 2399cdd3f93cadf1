/* suite/guest: see guest.h. The script reports on stdout, one word a line ("as root",
 * "manager dnf", "present", "installed"); a failure is its exit code (below), with the
 * package manager's messages on stderr, whose last line goes into the error. */
#include "suite/guest.h"
#include "suite/internal.h"

#include <stdio.h>
#include <string.h>

enum {
    EXIT_NO_PRIVILEGE = 10, /* neither root nor sudo -n */
    EXIT_NO_MANAGER,        /* neither apt-get nor dnf */
    EXIT_INSTALL_FAILED,    /* the package manager failed */
    EXIT_STILL_ABSENT       /* it succeeded, but the binary is not there */
};

int tb_guest_setup_script(const char *nginx_bin, tb_buf *out)
{
    if (tb_buf_puts(out, "n=") < 0 || tb_remote_shell_quote(nginx_bin, out) < 0)
        return -1;
    return tb_buf_printf(
        out,
        "; if [ -x \"$n\" ]; then echo present; exit 0; fi; "
        "if [ \"$(id -u)\" = 0 ]; then s=; echo as root; "
        "elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then "
        "s='sudo -n'; echo as sudo; "
        "else exit %d; fi; "
        "if command -v apt-get >/dev/null 2>&1; then echo manager apt-get; "
        "$s env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || "
        "echo 'apt-get update failed: installing from the package lists there' >&2; "
        "$s env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
        "--no-install-recommends nginx >&2 </dev/null || exit %d; "
        "elif command -v dnf >/dev/null 2>&1; then echo manager dnf; "
        "$s dnf install -y -q nginx >&2 </dev/null || exit %d; "
        "else exit %d; fi; "
        "[ -x \"$n\" ] || exit %d; "
        "if command -v systemctl >/dev/null 2>&1; then "
        "$s systemctl disable --now nginx >/dev/null 2>&1 || true; fi; "
        "echo installed",
        EXIT_NO_PRIVILEGE, EXIT_INSTALL_FAILED, EXIT_INSTALL_FAILED, EXIT_NO_MANAGER,
        EXIT_STILL_ABSENT);
}

/* The value of the stdout line "key value", or "" (into out). */
static void reported(const tb_buf *b, const char *key, char *out, size_t len)
{
    out[0] = 0;
    size_t kl = strlen(key);
    for (const char *p = b->p ? (const char *)b->p : ""; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > kl + 1 && !strncmp(p, key, kl) && p[kl] == ' ') {
            snprintf(out, len, "%.*s", (int)(n - kl - 1), p + kl + 1);
            return;
        }
        p += n + (p[n] == '\n');
    }
}

static int has_line(const tb_buf *b, const char *line)
{
    size_t ll = strlen(line);
    for (const char *p = b->p ? (const char *)b->p : ""; *p;) {
        size_t n = strcspn(p, "\n");
        if (n == ll && !strncmp(p, line, n))
            return 1;
        p += n + (p[n] == '\n');
    }
    return 0;
}

int tb_guest_setup(const tb_remote_target *t, const tb_remote_opts *o, const char *nginx_bin,
                   const volatile sig_atomic_t *stop, tb_guest_setup_result *res, tb_err *err)
{
    memset(res, 0, sizeof *res);
    tb_buf cmd = {0}, out = {0}, errb = {0};
    int code = -1, rc = tb_guest_setup_script(nginx_bin, &cmd) < 0
                            ? tb_errf(err, "out of memory")
                            : tb_remote_sh(t, o, (const char *)cmd.p, 15 * 60 * 1000, stop, &out,
                                           &errb, &code, err);
    char line[300], manager[16];
    tb_buf_last_line(&errb, line, sizeof line);
    reported(&out, "manager", manager, sizeof manager);
    if (rc == 0) {
        switch (code) {
        case 0:
            res->installed = has_line(&out, "installed");
            if (!res->installed && !has_line(&out, "present"))
                rc = tb_errf(err, "the setup script on %s ended without a word", t->host);
            snprintf(res->manager, sizeof res->manager, "%s", manager);
            reported(&out, "as", res->as, sizeof res->as);
            if (!strcmp(res->as, "sudo"))
                snprintf(res->as, sizeof res->as, "sudo -n");
            break;
        case EXIT_NO_PRIVILEGE:
            rc = tb_errf(err,
                         "nginx is not installed on %s and this login can neither install "
                         "it (not root) nor use sudo without a password (sudo -n): install the "
                         "package nginx there, or log in as root",
                         t->host);
            break;
        case EXIT_NO_MANAGER:
            rc = tb_errf(err,
                         "nginx is not installed on %s, which has neither apt-get nor dnf: "
                         "install the package nginx there with its package manager",
                         t->host);
            break;
        case EXIT_INSTALL_FAILED:
            rc = tb_errf(err, "%s install nginx failed on %s: %s",
                         manager[0] ? manager : "the package manager", t->host,
                         line[0] ? line : "no message");
            break;
        case EXIT_STILL_ABSENT:
            rc = tb_errf(err, "%s installed nginx on %s, but %s is not there", manager, t->host,
                         nginx_bin);
            break;
        case 255:
            rc = tb_errf(err, "ssh to %s failed: %s", t->host, line[0] ? line : "exit 255");
            break;
        default:
            rc = tb_errf(err, "the setup script on %s exited %d: %s", t->host, code,
                         line[0] ? line : "no message");
        }
    }
    tb_buf_clear(&cmd);
    tb_buf_clear(&out);
    tb_buf_clear(&errb);
    return rc;
}
