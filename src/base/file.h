/* file: whole-file reads, the one writer of files, and private directories.
 *
 * Writing a file by path (tb_file_write_atomic*) follows one rule, whatever the
 * command (-o, --hdr-log, --save-key, ...):
 * - a new name or a regular file is replaced atomically: a new
 *   "<path>.tmp.<16 random hex digits>" is created beside it (O_EXCL|O_NOFOLLOW:
 *   never a file or symlink someone else placed there, so in a shared directory
 *   another user cannot make us write through their link or keep a handle on the
 *   file), its mode set, written, fsynced and renamed over path: a reader (or a
 *   crash) sees the old file or the new one, never a torn one;
 * - a character device or a FIFO (/dev/null, a terminal, a named pipe) is opened
 *   and written in place, never replaced (renaming a file over /dev/null as root
 *   breaks every program that writes to it), its mode untouched;
 * - a symbolic link of this user or of root (/dev/stdout, the /dev/fd/N of a
 *   shell's >(...)) is followed and its target takes these rules: a regular file
 *   is replaced atomically where it is (the link stays), a device or FIFO written
 *   in place. A symbolic link of another user is replaced, never followed;
 * - anything else (a directory, a socket, a block device) is refused, nothing
 *   written.
 *
 * Files inside a directory teebench writes into (a results or work directory) are
 * written relative to that directory's descriptor, never through a path that
 * someone could change: tb_dir_open_private checks the directory once (new ones
 * 0700; an existing one must be the caller's and writable by no one else), and
 * every file and subdirectory in it is created with openat/mkdirat, O_NOFOLLOW and
 * O_EXCL (tb_file_write_at, tb_file_create_at, tb_dir_open_at). */
#ifndef TB_BASE_FILE_H
#define TB_BASE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"

/* Reads all of path into out (appended). Fails above max bytes. On failure out is
 * as it was: its length restored, and a buffer that had no storage freed again,
 * so a caller with a fresh tb_buf has nothing to clean up. */
int tb_file_read(const char *path, size_t max, tb_buf *out, tb_err *err);
/* The same for name (one path component) in the directory dfd, never through a
 * symlink. dir is dfd's path, for messages only. */
int tb_file_read_at(int dfd, const char *dir, const char *name, size_t max, tb_buf *out,
                    tb_err *err);
/* Writes data to path by the rule above (a new regular file: mode 0644). */
int tb_file_write_atomic(const char *path, const void *data, size_t len, tb_err *err);
/* The same with the new file's mode (before the umask, as open(2)): 0600 for keys,
 * so a private key is never readable by others, not even for a moment. The mode is
 * fixed with fchmod before the first byte is written (no bits beyond mode even
 * where a default ACL would add some). A device or FIFO keeps its own mode. */
int tb_file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode,
                              tb_err *err);
/* Joins dir and name with one '/' between them (name may start with '/', which is
   then not doubled; a NULL name copies dir alone) into out[out_len]. The one checked
   path join of the tree: a result that does not fit is an error ("path too long"),
   never a silently truncated path. 0, or -1 with err filled. */
int tb_path_join(char *out, size_t out_len, const char *dir, const char *name, tb_err *err);
/* mkdir -p with mode 0755. */
int tb_mkdirs(const char *path, tb_err *err);
/* A directory only the caller controls, for the files teebench writes into it:
 * creates path (missing parents 0755, path itself with mode) or takes the existing
 * one, and opens it with O_DIRECTORY|O_NOFOLLOW. Refuses a symbolic link, a
 * directory owned by another user than the effective one, and one that group or
 * others may write (anyone who can write it could swap what is inside). Returns
 * the directory's fd (caller closes), or -1 with err saying which rule failed. */
int tb_dir_open_private(const char *path, mode_t mode, tb_err *err);
/* The subdirectory name (one path component) of the private directory dfd, by the
 * same rule: created with mode if missing, else it must be a directory (not a
 * symlink) of the caller that no one else may write. dir is dfd's path, for
 * messages only. Returns its fd (caller closes), or -1 with err. */
int tb_dir_open_at(int dfd, const char *dir, const char *name, mode_t mode, tb_err *err);
/* Writes data atomically to name (one path component) in the directory dfd: a
 * temporary created there O_EXCL|O_NOFOLLOW with mode, then renameat over name
 * (whatever name was, a symlink included, it is replaced, never followed). dir is
 * dfd's path, for messages only. */
int tb_file_write_at(int dfd, const char *dir, const char *name, const void *data, size_t len,
                     mode_t mode, tb_err *err);
/* A new file name (one path component) in the directory dfd, opened for writing
 * (flags added to O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, e.g. O_APPEND):
 * an old file or symlink of that name is removed first, never opened. dir is dfd's
 * path, for messages only. Returns the fd (caller closes), or -1 with err. */
int tb_file_create_at(int dfd, const char *dir, const char *name, int flags, mode_t mode,
                      tb_err *err);

#endif
