/* file: see file.h. No partial file is ever left at the final path: a regular file
 * is only ever replaced by a rename of a complete, fsynced temporary; a device or
 * FIFO is written in place (it has no file to tear). Every write inside a directory
 * goes through one opened descriptor of it (openat, renameat), so a path that
 * changes meanwhile cannot redirect it. */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"

/* Undoes a failed read: out as it was before (a buffer without storage then is
 * freed again, so callers need no cleanup on failure). Returns -1. */
static int read_failed(int fd, tb_buf *out, size_t start, int had_storage)
{
    close(fd);
    if (!had_storage) {
        tb_buf_clear(out);
    } else {
        out->len = start;
        out->p[start] = 0;
    }
    return -1;
}

/* One path component: no '/', not empty, not "." or "..". */
static int check_name(const char *dir, const char *name, tb_err *err)
{
    if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return tb_errf(err, "%s/%s: not a plain file name", dir, name);
    return 0;
}

/* Reads all of the open fd into out (see tb_file_read); closes fd. */
static int read_fd(int fd, const char *label, size_t max, tb_buf *out, tb_err *err)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return tb_errf(err, "%s: is a directory", label);
    }
    size_t start = out->len;
    int had = out->p != NULL;
    for (;;) {
        if (tb_buf_reserve(out, 65536) < 0) {
            tb_errf(err, "%s: out of memory", label);
            return read_failed(fd, out, start, had);
        }
        ssize_t n = read(fd, out->p + out->len, out->cap - out->len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            tb_errno(err, "%s", label);
            return read_failed(fd, out, start, had);
        }
        if (n == 0)
            break;
        out->len += (size_t)n;
        out->p[out->len] = 0;
        if (out->len - start > max) {
            tb_errf(err, "%s: larger than %zu bytes", label, max);
            return read_failed(fd, out, start, had);
        }
    }
    close(fd);
    return 0;
}

int tb_file_read(const char *path, size_t max, tb_buf *out, tb_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    return read_fd(fd, path, max, out, err);
}

int tb_file_read_at(int dfd, const char *dir, const char *name, size_t max, tb_buf *out,
                    tb_err *err)
{
    char label[PATH_MAX];
    if (check_name(dir, name, err) < 0 || tb_path_join(label, sizeof label, dir, name, err) < 0)
        return -1;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "%s", label);
    return read_fd(fd, label, max, out, err);
}

int tb_file_write_atomic(const char *path, const void *data, size_t len, tb_err *err)
{
    return tb_file_write_atomic_mode(path, data, len, 0644, err);
}

/* Creates a new temporary file "<name>.tmp.<16 random hex digits>" in dfd beside
 * name: O_CREAT|O_EXCL (never an existing file, never through a symlink someone
 * else planted: O_EXCL does not follow one, O_NOFOLLOW says so twice), mode as given
 * minus the umask. Its name goes to tmp. label names name in messages. Returns the
 * fd, or -1 with err. */
static int create_temp(int dfd, const char *name, const char *label, mode_t mode, char *tmp,
                       size_t size, tb_err *err)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            r = tb_mono_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&r;
        if (snprintf(tmp, size, "%s.tmp.%016llx", name, (unsigned long long)r) >= (int)size)
            return tb_errf(err, "%s: path too long", label);
        int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            return tb_errno(err, "%s", label);
    }
    return tb_errf(err, "%s: no unused temporary name after 16 tries", label);
}

static int write_all(int fd, const void *data, size_t len, const char *label, tb_err *err)
{
    const uint8_t *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? tb_errno(err, "%s", label) : tb_errf(err, "%s: short write", label);
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The atomic replacement of name in dfd (see file.h); label names it in messages. */
static int replace_at(int dfd, const char *name, const char *label, const void *data, size_t len,
                      mode_t mode, tb_err *err)
{
    char tmp[PATH_MAX];
    int fd = create_temp(dfd, name, label, mode, tmp, sizeof tmp, err);
    if (fd < 0)
        return -1;
    /* Before any byte is written: the mode is at most the one asked for, whatever a
     * default ACL of the directory added (open's mode minus the umask otherwise). */
    struct stat st;
    if (fstat(fd, &st) < 0 || fchmod(fd, st.st_mode & mode & 07777) < 0) {
        tb_errno(err, "%s", label);
        close(fd);
        unlinkat(dfd, tmp, 0);
        return -1;
    }
    if (write_all(fd, data, len, label, err) < 0) {
        close(fd);
        unlinkat(dfd, tmp, 0);
        return -1;
    }
    if (fsync(fd) < 0 || close(fd) < 0) {
        tb_errno(err, "%s", label);
        unlinkat(dfd, tmp, 0);
        return -1;
    }
    if (renameat(dfd, tmp, dfd, name) < 0) {
        tb_errno(err, "%s", label);
        unlinkat(dfd, tmp, 0);
        return -1;
    }
    return 0;
}

/* The atomic replacement of path: through its directory, opened once. */
static int replace_path(const char *path, const void *data, size_t len, mode_t mode, tb_err *err)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return tb_errf(err, "%s: path too long", path);
    char *slash = strrchr(dir, '/');
    /* the name is read from path, not dir: dir is cut below ("/x" keeps "/") */
    const char *name = slash ? path + (slash - dir) + 1 : path;
    if (!*name)
        return tb_errf(err, "%s: is a directory", path);
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return tb_errno(err, "%s", path);
    int rc = replace_at(dfd, name, path, data, len, mode, err);
    close(dfd);
    return rc;
}

/* What a file of this type is called in a refusal. */
static const char *kind_name(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISSOCK(m) ? "a socket"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file, device or FIFO";
}

/* A character device or FIFO, opened and written in place (no O_TRUNC, no rename,
 * its mode untouched). flags adds O_NOFOLLOW when path itself was the device. */
static int write_in_place(const char *path, int flags, const void *data, size_t len, tb_err *err)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | flags);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    struct stat st;
    if (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        close(fd);
        return tb_errf(err,
                       "%s: changed while it was opened (no longer a device or FIFO): not "
                       "written",
                       path);
    }
    int rc = write_all(fd, data, len, path, err);
    if (close(fd) < 0 && rc == 0 && errno != EINTR)
        rc = tb_errno(err, "%s", path);
    return rc;
}

/* path is (or leads to) st: replace a regular file, write a device or FIFO in place,
 * refuse the rest. */
static int write_by_type(const char *path, const struct stat *st, int flags, const void *data,
                         size_t len, mode_t mode, tb_err *err)
{
    if (S_ISREG(st->st_mode))
        return replace_path(path, data, len, mode, err);
    if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
        return write_in_place(path, flags, data, len, err);
    return tb_errf(err, "%s: %s: refusing to write to it", path, kind_name(st->st_mode));
}

/* A symbolic link of this user or root: its target takes the rule. A regular
 * target is replaced where it really is (its canonical path, checked to be the same
 * file), so the link stays a link. */
static int write_through_link(const char *path, const void *data, size_t len, mode_t mode,
                              tb_err *err)
{
    struct stat st, real_st;
    if (stat(path, &st) < 0) {
        if (errno == ENOENT)
            return tb_errf(err, "%s: a symbolic link to a missing file: not written", path);
        return tb_errno(err, "%s", path);
    }
    if (!S_ISREG(st.st_mode))
        return write_by_type(path, &st, 0, data, len, mode, err);
    char real[PATH_MAX];
    if (!realpath(path, real) || lstat(real, &real_st) < 0 || !S_ISREG(real_st.st_mode) ||
        real_st.st_dev != st.st_dev || real_st.st_ino != st.st_ino)
        return tb_errf(err, "%s: a symbolic link whose file has no path of its own: not written",
                       path);
    return replace_path(real, data, len, mode, err);
}

int tb_file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode,
                              tb_err *err)
{
    if (!*path)
        return tb_errf(err, "empty file name");
    struct stat st;
    if (lstat(path, &st) < 0) {
        if (errno != ENOENT)
            return tb_errno(err, "%s", path);
        return replace_path(path, data, len, mode, err); /* a new name */
    }
    if (S_ISLNK(st.st_mode)) {
        if (st.st_uid != geteuid() && st.st_uid != 0)
            return replace_path(path, data, len, mode, err); /* another user's: never followed */
        return write_through_link(path, data, len, mode, err);
    }
    return write_by_type(path, &st, O_NOFOLLOW, data, len, mode, err);
}

int tb_file_write_at(int dfd, const char *dir, const char *name, const void *data, size_t len,
                     mode_t mode, tb_err *err)
{
    char label[PATH_MAX];
    if (check_name(dir, name, err) < 0 || tb_path_join(label, sizeof label, dir, name, err) < 0)
        return -1;
    return replace_at(dfd, name, label, data, len, mode, err);
}

int tb_file_create_at(int dfd, const char *dir, const char *name, int flags, mode_t mode,
                      tb_err *err)
{
    char label[PATH_MAX];
    if (check_name(dir, name, err) < 0 || tb_path_join(label, sizeof label, dir, name, err) < 0)
        return -1;
    if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
        return tb_errno(err, "%s", label);
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | flags, mode);
    if (fd < 0)
        return tb_errno(err, "%s", label);
    return fd;
}

int tb_mkdirs(const char *path, tb_err *err)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return tb_errf(err, "%s: path too long", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            return tb_errno(err, "mkdir %s", p);
        *s = '/';
    }
    if (mkdir(p, 0755) < 0 && errno != EEXIST)
        return tb_errno(err, "mkdir %s", p);
    return 0;
}

/* The rule of a private directory, on the opened fd: the caller's, writable by no
 * one else. Closes fd and returns -1 with err when it fails; returns fd. */
static int check_private(int fd, const char *label, tb_err *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        tb_errno(err, "%s", label);
        close(fd);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        tb_errf(err, "%s: owned by uid %ld, not by this user (uid %ld): refusing it", label,
                (long)st.st_uid, (long)geteuid());
        close(fd);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        tb_errf(err, "%s: writable by %s (mode %04o): refusing it", label,
                (st.st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(st.st_mode & 07777));
        close(fd);
        return -1;
    }
    return fd;
}

/* Opens name in dfd as a directory without following a symlink; label for messages. */
static int open_dir_nofollow(int dfd, const char *name, const char *label, tb_err *err)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    struct stat st;
    if (errno == ELOOP ||
        (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)))
        return tb_errf(err, "%s: a symbolic link, not a directory: refusing it", label);
    return tb_errno(err, "%s", label);
}

int tb_dir_open_private(const char *path, mode_t mode, tb_err *err)
{
    char parent[PATH_MAX];
    if (snprintf(parent, sizeof parent, "%s", path) >= (int)sizeof parent)
        return tb_errf(err, "%s: path too long", path);
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/')
        parent[--n] = 0;
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        if (tb_mkdirs(parent, err) < 0)
            return -1;
    }
    if (mkdir(path, mode) < 0 && errno != EEXIST)
        return tb_errno(err, "mkdir %s", path);
    int fd = open_dir_nofollow(AT_FDCWD, path, path, err);
    return fd < 0 ? -1 : check_private(fd, path, err);
}

int tb_dir_open_at(int dfd, const char *dir, const char *name, mode_t mode, tb_err *err)
{
    char label[PATH_MAX];
    if (check_name(dir, name, err) < 0 || tb_path_join(label, sizeof label, dir, name, err) < 0)
        return -1;
    if (mkdirat(dfd, name, mode) < 0 && errno != EEXIST)
        return tb_errno(err, "mkdir %s", label);
    int fd = open_dir_nofollow(dfd, name, label, err);
    return fd < 0 ? -1 : check_private(fd, label, err);
}

int tb_path_join(char *out, size_t out_len, const char *dir, const char *name, tb_err *err)
{
    size_t dl = strlen(dir);
    if (name) {
        while (dl > 1 && dir[dl - 1] == '/')
            dl--;
        while (*name == '/')
            name++;
    }
    int n = name ? snprintf(out, out_len, "%.*s%s%s", (int)dl, dir,
                            (dl && dir[dl - 1] == '/') ? "" : "/", name)
                 : snprintf(out, out_len, "%s", dir);
    if (n < 0 || (size_t)n >= out_len) {
        if (out_len)
            out[0] = 0;
        return tb_errf(err, "path too long: %.60s%s%.60s...", dir, name ? "/" : "",
                       name ? name : "");
    }
    return 0;
}
