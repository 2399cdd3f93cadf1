/* file: see file.h. No partial file is ever left at the final path. */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
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

int tb_file_read(const char *path, size_t max, tb_buf *out, tb_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return tb_errf(err, "%s: is a directory", path);
    }
    size_t start = out->len;
    int had = out->p != NULL;
    for (;;) {
        if (tb_buf_reserve(out, 65536) < 0) {
            tb_errf(err, "%s: out of memory", path);
            return read_failed(fd, out, start, had);
        }
        ssize_t n = read(fd, out->p + out->len, out->cap - out->len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            tb_errno(err, "%s", path);
            return read_failed(fd, out, start, had);
        }
        if (n == 0)
            break;
        out->len += (size_t)n;
        out->p[out->len] = 0;
        if (out->len - start > max) {
            tb_errf(err, "%s: larger than %zu bytes", path, max);
            return read_failed(fd, out, start, had);
        }
    }
    close(fd);
    return 0;
}

int tb_file_write_atomic(const char *path, const void *data, size_t len, tb_err *err)
{
    return tb_file_write_atomic_mode(path, data, len, 0644, err);
}

/* Creates a new temporary file "<path>.tmp.<16 random hex digits>" beside path:
 * O_CREAT|O_EXCL (never an existing file, never through a symlink someone else
 * planted: O_EXCL does not follow one, O_NOFOLLOW says so twice), mode as given
 * minus the umask. Its name goes to tmp. Returns the fd, or -1 with err. */
static int create_temp(const char *path, mode_t mode, char *tmp, size_t size, tb_err *err)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            r = tb_mono_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&r;
        if (snprintf(tmp, size, "%s.tmp.%016llx", path, (unsigned long long)r) >= (int)size)
            return tb_errf(err, "%s: path too long", path);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            return tb_errno(err, "%s", path);
    }
    return tb_errf(err, "%s: no unused temporary name after 16 tries", path);
}

int tb_file_write_atomic_mode(const char *path, const void *data, size_t len, mode_t mode,
                              tb_err *err)
{
    char tmp[PATH_MAX];
    int fd = create_temp(path, mode, tmp, sizeof tmp, err);
    if (fd < 0)
        return -1;
    /* Before any byte is written: the mode is at most the one asked for, whatever a
     * default ACL of the directory added (open's mode minus the umask otherwise). */
    struct stat st;
    if (fstat(fd, &st) < 0 || fchmod(fd, st.st_mode & mode & 07777) < 0) {
        tb_errno(err, "%s", path);
        close(fd);
        unlink(tmp);
        return -1;
    }
    const uint8_t *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            tb_errno(err, "%s", path);
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) < 0 || close(fd) < 0) {
        tb_errno(err, "%s", path);
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) < 0) {
        tb_errno(err, "%s", path);
        unlink(tmp);
        return -1;
    }
    return 0;
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
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        if (errno == ELOOP || (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)))
            return tb_errf(err, "%s: a symbolic link, not a directory: refusing it", path);
        return tb_errno(err, "%s", path);
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        tb_errno(err, "%s", path);
        close(fd);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        tb_errf(err, "%s: owned by uid %ld, not by this user (uid %ld): refusing it", path,
                (long)st.st_uid, (long)geteuid());
        close(fd);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        tb_errf(err, "%s: writable by %s (mode %04o): refusing it", path,
                (st.st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(st.st_mode & 07777));
        close(fd);
        return -1;
    }
    return fd;
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
