/* libFuzzer target: format detection and every importer that reads bytes
 * (result JSON, http/syscall/probe JSON, results.csv) on arbitrary input. An
 * input that imports must give a valid result document, the same one twice
 * (same id: the id is derived from the bytes). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/import.h"
#include "record/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tb_record *r = NULL, *again = NULL, *back = NULL;
    tb_err err;
    tb_import_opts o = {.target = "fuzz"};
    if (tb_record_import_bytes((const char *)data, size, "fuzz.in", &o, &r, NULL, &err) != 0) {
        if (r)
            __builtin_trap(); /* a failed import leaves no record */
        return 0;
    }
    json_t *doc = tb_record_to_json(r);
    if (!doc || tb_record_from_json(doc, &back, &err) != 0)
        __builtin_trap();
    if (tb_record_import_bytes((const char *)data, size, "fuzz.in", &o, &again, NULL, &err) != 0 ||
        strcmp(again->id, r->id))
        __builtin_trap();
    json_decref(doc);
    tb_record_free(back);
    tb_record_free(again);
    tb_record_free(r);
    return 0;
}
