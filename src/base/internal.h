/* base/internal: the base files' entry points that only their unit tests and fuzz
 * targets call (test hooks: a piece of a function other modules use whole). Other
 * modules use the public headers (base/csv.h, base/paths.h, base/text.h, ...); a name
 * moves back there when another module needs it. Functions, not data: no state. */
#ifndef TB_BASE_INTERNAL_H
#define TB_BASE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/csv.h"
#include "base/paths.h"
#include "base/text.h"

/* ---- base/csv.h ---- */
/* 1 when a spreadsheet would read s as a formula: s, after its leading single
   quotes, starts with '=', '+', '-', '@', TAB or CR. */
int tb_csv_formula_like(const char *s);

/* ---- base/paths.h ---- */
/* The environment variable of a kind ("XDG_DATA_HOME", ...). */
const char *tb_path_var(tb_path_kind kind);

/* ---- base/text.h ---- */
/* 1 when s[0..n) holds a bidi control (the list in text.h), else 0. */
int tb_text_has_bidi(const char *s, size_t n);

#endif
