/* libFuzzer target: tb_record_from_json over arbitrary bytes (json_loadb as
 * tb_record_read_file does, then the strict reader). A document that parses must
 * survive the round trip: its JSON text read again gives the same document; its TEE
 * (record/tee) is always described. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return 0;
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
        free(text);
        free(text2);
        json_decref(again);
        tb_record_free(r2);
        tb_record_free(r);
    } else if (r) {
        __builtin_trap(); /* a failed read leaves no record */
    }
    json_decref(doc);
    return 0;
}
