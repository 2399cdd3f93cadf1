/* qmp: see qmp.h. The socket is blocking with poll() deadlines; lines are cut
 * out of one input buffer, so a message split over reads (or two messages in
 * one read) is handled the same way. */
#include "vm/qmp.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/clock.h"

int tb_qmp_take_line(tb_buf *in, tb_buf *line, tb_err *err)
{
    tb_buf_reset(line);
    const uint8_t *nl = in->len ? memchr(in->p, '\n', in->len) : NULL;
    if (!nl) {
        if (in->len > TB_QMP_MAX_LINE)
            return tb_errf(err, "QMP message longer than %u bytes", TB_QMP_MAX_LINE);
        return 0;
    }
    size_t n = (size_t)(nl - in->p);
    if (n > TB_QMP_MAX_LINE)
        return tb_errf(err, "QMP message longer than %u bytes", TB_QMP_MAX_LINE);
    size_t keep = n;
    if (keep && in->p[keep - 1] == '\r')
        keep--;
    if (tb_buf_append(line, in->p, keep) < 0 || tb_buf_reserve(line, 0) < 0)
        return tb_errf(err, "out of memory");
    tb_buf_consume(in, n + 1);
    return 1;
}

static void copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

int tb_qmp_parse(const char *line, size_t len, tb_qmp_msg *msg, tb_err *err)
{
    memset(msg, 0, sizeof *msg);
    msg->id = -1;
    json_error_t je;
    json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return tb_errf(err, "QMP message is not JSON: %s", je.text);
    if (!json_is_object(j)) {
        json_decref(j);
        return tb_errf(err, "QMP message is not a JSON object");
    }
    json_t *id = json_object_get(j, "id");
    if (json_is_integer(id))
        msg->id = json_integer_value(id);
    json_t *v;
    if ((v = json_object_get(j, "return")) != NULL) {
        msg->type = TB_QMP_RETURN;
    } else if ((v = json_object_get(j, "error")) != NULL) {
        const char *cls = json_string_value(json_object_get(v, "class"));
        const char *desc = json_string_value(json_object_get(v, "desc"));
        if (!json_is_object(v) || !desc) {
            json_decref(j);
            return tb_errf(err, "QMP error without a \"desc\" string");
        }
        msg->type = TB_QMP_ERROR;
        snprintf(msg->desc, sizeof msg->desc, "%s: %s", cls ? cls : "Error", desc);
    } else if ((v = json_object_get(j, "event")) != NULL) {
        if (!json_is_string(v)) {
            json_decref(j);
            return tb_errf(err, "QMP event name is not a string");
        }
        msg->type = TB_QMP_EVENT;
        copy_str(msg->desc, sizeof msg->desc, json_string_value(v));
    } else if ((v = json_object_get(j, "QMP")) != NULL) {
        if (!json_is_object(v)) {
            json_decref(j);
            return tb_errf(err, "QMP greeting is not an object");
        }
        msg->type = TB_QMP_GREETING;
    } else {
        json_decref(j);
        return tb_errf(err, "QMP message is neither a return, an error, an event nor a greeting");
    }
    msg->json = j;
    msg->value = v;
    return 0;
}

int tb_qmp_cpu_threads(const json_t *ret, int *tids, int max, int *n, tb_err *err)
{
    if (!json_is_array(ret))
        return tb_errf(err, "query-cpus-fast: the return value is not an array");
    size_t count = json_array_size(ret);
    if (count == 0)
        return tb_errf(err, "query-cpus-fast: no vCPUs");
    if (count > (size_t)max)
        return tb_errf(err, "query-cpus-fast: %zu vCPUs, more than %d", count, max);
    for (size_t i = 0; i < count; i++)
        tids[i] = -1;
    for (size_t i = 0; i < count; i++) {
        const json_t *c = json_array_get(ret, i);
        const json_t *idx = json_object_get(c, "cpu-index");
        const json_t *tid = json_object_get(c, "thread-id");
        if (!json_is_integer(idx) || !json_is_integer(tid))
            return tb_errf(err,
                           "query-cpus-fast: entry %zu lacks an integer cpu-index or "
                           "thread-id",
                           i);
        json_int_t k = json_integer_value(idx), t = json_integer_value(tid);
        if (k < 0 || (size_t)k >= count)
            return tb_errf(err, "query-cpus-fast: cpu-index %lld out of range 0..%zu", (long long)k,
                           count - 1);
        if (t <= 0 || t > 0x3fffffff)
            return tb_errf(err, "query-cpus-fast: thread-id %lld is not a thread id", (long long)t);
        if (tids[k] != -1)
            return tb_errf(err, "query-cpus-fast: cpu-index %lld listed twice", (long long)k);
        tids[k] = (int)t;
    }
    *n = (int)count;
    return 0;
}

/* Reads more bytes into q->in, waiting until deadline (tb_mono_ns). */
static int read_more(tb_qmp *q, uint64_t deadline, tb_err *err)
{
    for (;;) {
        uint64_t now = tb_mono_ns();
        if (now >= deadline)
            return tb_errf(err, "QMP: no answer within %d ms", q->timeout_ms);
        int ms = (int)((deadline - now + 999999) / 1000000);
        struct pollfd pfd = {.fd = q->fd, .events = POLLIN};
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return tb_errno(err, "QMP: poll");
        if (r == 0)
            continue;
        if (tb_buf_reserve(&q->in, 4096) < 0)
            return tb_errf(err, "out of memory");
        ssize_t got = read(q->fd, q->in.p + q->in.len, 4096);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0)
            return tb_errno(err, "QMP: read");
        if (got == 0)
            return tb_errf(err, "QMP: QEMU closed the connection");
        q->in.len += (size_t)got;
        q->in.p[q->in.len] = 0;
        return 0;
    }
}

/* The next message (events included) within the timeout. */
static int next_msg(tb_qmp *q, tb_qmp_msg *msg, tb_err *err)
{
    uint64_t deadline = tb_mono_ns() + (uint64_t)q->timeout_ms * 1000000u;
    tb_buf line = {0};
    for (;;) {
        int r = tb_qmp_take_line(&q->in, &line, err);
        if (r < 0)
            break;
        if (r == 1) {
            if (line.len == 0)
                continue;
            r = tb_qmp_parse((const char *)line.p, line.len, msg, err);
            tb_buf_clear(&line);
            return r;
        }
        if (read_more(q, deadline, err) < 0)
            break;
    }
    tb_buf_clear(&line);
    return -1;
}

static int send_all(int fd, const char *p, size_t n, tb_err *err)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return tb_errno(err, "QMP: send");
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int tb_qmp_exec(tb_qmp *q, const char *command, json_t *args, json_t **ret, tb_err *err)
{
    if (ret)
        *ret = NULL;
    long long id = q->next_id++;
    json_t *req = json_pack("{s:s, s:I}", "execute", command, "id", (json_int_t)id);
    if (!req)
        return tb_errf(err, "out of memory");
    if (args)
        json_object_set(req, "arguments", args);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (!text)
        return tb_errf(err, "out of memory");
    size_t n = strlen(text);
    int rc = send_all(q->fd, text, n, err);
    if (rc == 0)
        rc = send_all(q->fd, "\r\n", 2, err);
    free(text);
    if (rc < 0)
        return tb_err_wrap(err, "%s", command);
    for (;;) {
        tb_qmp_msg m;
        if (next_msg(q, &m, err) < 0)
            return tb_err_wrap(err, "%s", command);
        if (m.type == TB_QMP_EVENT || m.type == TB_QMP_GREETING || m.id != id) {
            json_decref(m.json);
            continue;
        }
        if (m.type == TB_QMP_ERROR) {
            tb_errf(err, "%s: %s", command, m.desc);
            json_decref(m.json);
            return -1;
        }
        if (ret)
            *ret = json_incref(m.value);
        json_decref(m.json);
        return 0;
    }
}

static int connect_unix(const char *path, int timeout_ms, tb_err *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return tb_errf(err, "QMP socket path %s: too long", path);
    memcpy(sa.sun_path, path, strlen(path) + 1);
    uint64_t deadline = tb_mono_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return tb_errno(err, "QMP: socket");
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
            return fd;
        int e = errno;
        close(fd);
        if ((e != ENOENT && e != ECONNREFUSED) || tb_mono_ns() >= deadline) {
            errno = e;
            return tb_errno(err, "QMP: connect %s", path);
        }
        tb_sleep_ns(20 * 1000000u);
    }
}

int tb_qmp_open(tb_qmp *q, const char *path, int timeout_ms, tb_err *err)
{
    memset(q, 0, sizeof *q);
    q->timeout_ms = timeout_ms;
    q->next_id = 1;
    q->fd = connect_unix(path, timeout_ms, err);
    if (q->fd < 0)
        return -1;
    tb_qmp_msg m;
    if (next_msg(q, &m, err) < 0)
        goto fail;
    int greeting = m.type == TB_QMP_GREETING;
    json_decref(m.json);
    if (!greeting) {
        tb_errf(err, "QMP: the first message is not a greeting");
        goto fail;
    }
    if (tb_qmp_exec(q, "qmp_capabilities", NULL, NULL, err) < 0)
        goto fail;
    return 0;
fail:
    tb_qmp_close(q);
    return -1;
}

void tb_qmp_close(tb_qmp *q)
{
    if (q->fd >= 0)
        close(q->fd);
    q->fd = -1;
    tb_buf_clear(&q->in);
}
