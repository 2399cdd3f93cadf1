/* suite/internal: the suite's entry points that only its unit tests and fuzz
 * targets call (the pure pieces of tb_remote_run and of the guest setup: the ssh argv,
 * the remote copy's name, the loader's and ssh's messages read; median and CV).
 * Other modules use suite/suite.h, suite/remote.h and suite/guest.h; a name moves back
 * there when another module needs it. */
#ifndef TB_SUITE_INTERNAL_H
#define TB_SUITE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "suite/guest.h"
#include "suite/remote.h"
#include "suite/suite.h"

/* ---- suite/guest.h ---- */
/* The script, for the nginx binary at nginx_bin (the suite's http.nginx_bin), appended
   to out. 0, or -1 when out of memory. */
int tb_guest_setup_script(const char *nginx_bin, tb_buf *out);

/* ---- suite/remote.h ---- */
/* The ssh argv (NULL-terminated, malloc'd; free with tb_remote_argv_free) that runs
   the shell command cmd on target t. Pure. NULL when out of memory. */
char **tb_remote_ssh_argv(const tb_remote_target *t, const tb_remote_opts *o, const char *cmd);
/* The remote file name of this build: "teebench-<version>-<first 12 hex of the
   SHA-256 of path>". 0, or -1 with err (unreadable binary). */
int tb_remote_binary_name(const char *path, char *out, size_t out_len, tb_err *err);
/* What "error while loading shared libraries: X: ..." on stderr means: the Debian
   package that has X (libjansson.so.4 -> libjansson4, ...), or NULL. Pure. */
const char *tb_remote_package_of(const char *stderr_text, char *lib, size_t lib_len);
/* What "version `GLIBC_2.34' not found" on stderr means: the glibc version this
   build needs ("2.34", the highest one named) into ver; 1, or 0 when there is no such
   message. Pure. */
int tb_remote_glibc_needed(const char *stderr_text, char *ver, size_t ver_len);
/* What ssh's "USER@HOST: Permission denied (publickey,password)." on stderr means
   for a BatchMode run: 1 when text holds such a refusal, with one line into out --
   for a server that offers passwords (a TD started by hand: Canonical's image
   takes tdx/123456), the exact ssh-copy-id command that installs a key of the
   user's once (`--ssh-copy-id` runs it); for a key-only server, that none of the
   user's keys is authorized there. 0 (out untouched) otherwise. Pure. */
int tb_remote_auth_hint(const tb_remote_target *t, const char *ssh_config, const char *text,
                        char *out, size_t len);

/* ---- suite/suite.h ---- */
/* Median, coefficient of variation (sample stdev / mean; NAN below 2 samples or
   a zero mean) of samples x[0..n) (n >= 1; x is not modified). -1 when out of
   memory. */
int tb_suite_describe(const double *x, size_t n, double *median, double *cv);

#endif
