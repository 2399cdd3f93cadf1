/* record/bounded: a result document from elsewhere (a remote host's stdout, kept in
 * a temporary file) read with a bound on the memory it can make this process use.
 *
 * jansson builds the whole tree, ~50 bytes a value: 120 MB of "1,1,1,..." would take
 * gigabytes. So the bytes jansson reads pass through a scanner first that counts
 * what the tree will hold -- values (strings and keys, arrays, objects, numbers and
 * literals), the bytes of strings, the length of a number -- and stops the read as
 * soon as a count goes over its limit (record.h), before that part is built. The
 * scanner needs no memory and does not validate: jansson does, on the same bytes.
 *
 * Invariants: every byte jansson is given was scanned first; a refused document
 * leaves nothing allocated; the limits are far above any document teebench writes
 * (a standard suite's result is ~10^4 values). */
#include "record/record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64u << 10)
#define STR_(x) #x
#define STR(x) STR_(x)

typedef struct reader {
    int fd;
    unsigned char buf[CHUNK];
    size_t len, off; /* buf[off..len) is read but not yet handed to jansson */
    /* the scanner */
    size_t values, text, token; /* token: bytes of the number or literal in progress */
    int in_str, esc;
    const char *over; /* which limit was passed; NULL */
    int read_errno;
} reader;

static void scan(reader *r, const unsigned char *p, size_t n)
{
    /* the state in locals: this loop sees every byte of the document */
    size_t values = r->values, text = r->text, token = r->token;
    int in_str = r->in_str, esc = r->esc;
    const char *over = r->over;
    for (size_t i = 0; i < n && !over; i++) {
        unsigned char c = p[i];
        if (in_str) {
            text++;
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"' || c == '[' || c == '{') {
            in_str = c == '"';
            values++;
            token = 0;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':' ||
                   c == ']' || c == '}') {
            token = 0;
        } else if (token++ == 0) {
            values++;
        } else if (token > TB_RECORD_TOKEN_MAX) {
            over = "a number longer than " STR(TB_RECORD_TOKEN_MAX) " bytes";
        }
        if (values > TB_RECORD_VALUES_MAX)
            over = "more than " STR(TB_RECORD_VALUES_MAX) " values";
        else if (text > TB_RECORD_TEXT_MAX)
            over = "more than " STR(TB_RECORD_TEXT_MAX_MIB) " MiB of strings";
    }
    r->values = values, r->text = text, r->token = token;
    r->in_str = in_str, r->esc = esc;
    r->over = over;
}

/* jansson's json_load_callback source: scanned bytes, (size_t)-1 to stop. */
static size_t feed(void *dst, size_t want, void *ctx)
{
    reader *r = ctx;
    if (r->off == r->len && !r->over) {
        ssize_t got;
        do
            got = read(r->fd, r->buf, sizeof r->buf);
        while (got < 0 && errno == EINTR);
        if (got < 0) {
            r->read_errno = errno;
            return (size_t)-1;
        }
        r->off = 0;
        r->len = (size_t)got;
        scan(r, r->buf, r->len);
    }
    if (r->over)
        return (size_t)-1;
    size_t n = r->len - r->off < want ? r->len - r->off : want;
    memcpy(dst, r->buf + r->off, n);
    r->off += n;
    return n; /* 0: end of the file */
}

int tb_record_read_fd(int fd, tb_record **out, tb_err *err)
{
    *out = NULL;
    reader *r = calloc(1, sizeof *r);
    if (!r)
        return tb_errf(err, "out of memory");
    r->fd = fd;
    json_error_t je;
    json_t *doc = json_load_callback(feed, r, JSON_REJECT_DUPLICATES, &je);
    int rc;
    if (r->over)
        rc = tb_errf(err, "too large for a result: %s", r->over);
    else if (r->read_errno)
        rc = tb_errf(err, "reading it: %s", strerror(r->read_errno));
    else if (!doc)
        rc = tb_errf(err, "not valid JSON (line %d, column %d: %s)", je.line, je.column, je.text);
    else
        rc = tb_record_from_json(doc, out, err);
    json_decref(doc);
    free(r);
    return rc;
}
