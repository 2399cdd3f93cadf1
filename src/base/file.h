/* file: whole-file reads, atomic writes and directory creation.
 * Atomic write = create a new "<path>.tmp.<16 random hex digits>" (O_EXCL|O_NOFOLLOW:
 * never a file or symlink someone else placed there, so in a shared directory
 * another user cannot make us write through their link or keep a handle on the
 * file), set its mode, write, fsync, rename over path: a reader (or a crash) sees
 * the old file or the new one, never a torn one. */
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
/* Writes data to path atomically (mode 0644). */
int tb_file_write_atomic(const char *path, const void *data, size_t len, tb_err *err);
/* The same with the new file's mode (before the umask, as open(2)): 0600 for keys,
 * so a private key is never readable by others, not even for a moment. The mode is
 * fixed with fchmod before the first byte is written (no bits beyond mode even
 * where a default ACL would add some). */
int tb_file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode,
                              tb_err *err);
/* Joins dir and name with one '/' between them (name may start with '/', which is
   then not doubled; a NULL name copies dir alone) into out[out_len]. The one checked
   path join of the tree: a result that does not fit is an error ("path too long"),
   never a silently truncated path. 0, or -1 with err filled. */
int tb_path_join(char *out, size_t out_len, const char *dir, const char *name, tb_err *err);
/* mkdir -p with mode 0755. */
int tb_mkdirs(const char *path, tb_err *err);
/* A directory only the caller controls, for files a privileged process writes:
 * creates path (missing parents 0755, path itself with mode) or takes the existing
 * one, and opens it with O_DIRECTORY|O_NOFOLLOW. Refuses a symbolic link, a
 * directory owned by another user than the effective one, and one that group or
 * others may write (anyone who can write it could swap what is inside). Returns
 * the directory's fd (caller closes), or -1 with err saying which rule failed. */
int tb_dir_open_private(const char *path, mode_t mode, tb_err *err);

#endif
