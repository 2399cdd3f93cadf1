/* logcount: newline counting over a file. See logcount.h. */
#include "load/logcount.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int tb_log_count_lines(const char *path, uint64_t *lines, tb_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "open %s", path);
    char buf[65536];
    uint64_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            tb_errno(err, "read %s", path);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        for (char *p = buf, *end = buf + r; (p = memchr(p, '\n', (size_t)(end - p))); p++)
            n++;
    }
    close(fd);
    *lines = n;
    return 0;
}
