/* record/internal: the record module's entry points that only its unit tests and
 * fuzz targets call (reading a file by path, importing bytes, the evidence words of a
 * tee code). Other modules use record/record.h and record/import.h; a name moves back
 * there when another module needs it. */
#ifndef TB_RECORD_INTERNAL_H
#define TB_RECORD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "record/import.h"
#include "record/record.h"

/* ---- record/import.h ---- */
/* tb_record_import_file (import.h) for the bytes of a file (data need not be NUL-terminated); name
   is the path recorded in extra.source. A folder's format is not read from bytes. */
int tb_record_import_bytes(const char *data, size_t len, const char *name,
                           const tb_import_opts *opts, tb_record **out, enum tb_import_format *fmt,
                           tb_err *err);

/* ---- record/record.h ---- */
/* Reads a result JSON file (tb_record_from_json of its content). */
int tb_record_read_file(const char *path, tb_record **out, tb_err *err);
/* The evidence words of a tee code: "tdx" -> "TDX quotes", "snp" -> "SEV-SNP reports",
   "sim" -> "SIMULATED TDX quotes", "sim-snp" -> "SIMULATED SEV-SNP reports"; NULL for
   anything else (NULL included). */
const char *tb_record_tee_evidence(const char *tee);

#endif
