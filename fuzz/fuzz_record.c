/* libFuzzer target: tb_record_from_json over arbitrary bytes (json_loadb as
 * tb_record_read_file does, then the strict reader). A document that parses must
 * survive the round trip: its JSON text read again gives the same document; its TEE
 * (record/tee_label) is always described. The same bytes through tb_record_read_fd (the
 * bounded reader of a remote's result, from a memfd) give the same record, or --
 * only when a limit is passed -- "too large for a result". */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/internal.h"
#include "record/record.h"

/* tb_record_read_fd of data: 0 and *out, or -1 (and *too_large when a limit). */
static int read_fd(const uint8_t *data, size_t size, tb_record **out, int *too_large)
{
    *too_large = 0;
    int fd = memfd_create("fuzz_record", 0);
    if (fd < 0)
        __builtin_trap();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            __builtin_trap();
        done += (size_t)w;
    }
    lseek(fd, 0, SEEK_SET);
    tb_err err;
    int rc = tb_record_read_fd(fd, out, &err);
    close(fd);
    if (rc < 0 && (*out || !err.msg[0]))
        __builtin_trap();
    *too_large = rc < 0 && !strncmp(err.msg, "too large for a result", 22);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    tb_record *bounded = NULL;
    int too_large, bounded_rc = read_fd(data, size, &bounded, &too_large);
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        if (bounded_rc == 0)
            __builtin_trap(); /* the bounded reader accepted what jansson refuses */
        return 0;
    }
    tb_record *r = NULL;
    tb_err err;
    if (tb_record_from_json(doc, &r, &err) == 0) {
        char label[64];
        tb_record_default_label(r->env, label, sizeof label);
        /* the TEE of any record: filled, the summary starts with the kind, simulated
           evidence says so */
        tb_record_tee_info tee;
        int known = tb_record_tee(r, &tee);
        if (known != tee.known || !tee.kind[0] ||
            strncmp(tee.summary, tee.kind, strlen(tee.kind)) ||
            (tee.simulated && !strstr(tee.evidence, "SIMULATED")) || (tee.evidence[0] && !known))
            __builtin_trap();
        size_t n;
        char *text = tb_record_dumps(r, 0, &n);
        if (!text)
            __builtin_trap();
        json_t *again = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
        tb_record *r2 = NULL;
        if (!again || tb_record_from_json(again, &r2, &err) != 0)
            __builtin_trap();
        char *text2 = tb_record_dumps(r2, 0, NULL);
        if (!text2 || strcmp(text, text2))
            __builtin_trap();
        /* the bounded reader: the same record, unless a limit stopped it */
        if (bounded_rc < 0 && !too_large)
            __builtin_trap();
        if (bounded_rc == 0) {
            char *text3 = tb_record_dumps(bounded, 0, NULL);
            if (!text3 || strcmp(text, text3))
                __builtin_trap();
            free(text3);
        }
        free(text);
        free(text2);
        json_decref(again);
        tb_record_free(r2);
        tb_record_free(r);
    } else if (r || bounded_rc == 0) {
        __builtin_trap(); /* a failed read leaves no record; both readers refuse it */
    }
    tb_record_free(bounded);
    json_decref(doc);
    return 0;
}
