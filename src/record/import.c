/* import: other teebench outputs as records (see import.h). */
#include "record/import.h"

#include "base/buf.h"
#include "base/file.h"

const char *tb_import_format_name(enum tb_import_format f)
{
    switch (f) {
    case TB_IMPORT_RESULT:
        return "result";
    case TB_IMPORT_HTTP:
        return "http";
    case TB_IMPORT_SYSCALL:
        return "syscall";
    case TB_IMPORT_PROBE:
        return "probe";
    case TB_IMPORT_BENCH_DIR:
        return "bench-dir";
    case TB_IMPORT_BENCH_CSV:
        return "bench-csv";
    }
    return "?";
}

int tb_record_import_bytes(const char *data, size_t len, const char *name, const char *label,
                           tb_record **out, enum tb_import_format *fmt, tb_err *err)
{
    *out = NULL;
    json_error_t je;
    json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return tb_errf(err, "%s: not valid JSON", name);
    int rc = tb_record_from_json(doc, out, err);
    json_decref(doc);
    if (rc == 0 && label && tb_record_set_str(&(*out)->label, label, err) < 0)
        rc = -1;
    if (rc == 0 && fmt)
        *fmt = TB_IMPORT_RESULT;
    return rc;
}

int tb_record_import_file(const char *path, const char *label, tb_record **out,
                          enum tb_import_format *fmt, tb_err *err)
{
    tb_buf b = {0};
    *out = NULL;
    if (tb_file_read(path, 256u << 20, &b, err) < 0)
        return -1;
    int rc = tb_record_import_bytes((const char *)b.p, b.len, path, label, out, fmt, err);
    tb_buf_free(&b);
    return rc;
}
