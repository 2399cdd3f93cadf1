/* text: text that came from elsewhere -- a result file, the store, a remote host's
 * output -- made safe to print on a terminal. The one escaper of the tree: every
 * text format that prints such strings (results list/show, compare's text and
 * markdown, the suite's summary and progress lines, error lines) goes through it.
 *
 * What a terminal would act on is shown as text instead:
 *   C0 controls        \t \n \r, the others as \xNN (ESC is \x1b); DEL is \x7f
 *   C1 controls        U+0080..U+009F (as UTF-8) as \u0080 .. \u009f
 *   bidi controls      U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 as
 *                      \u202e ... (they reorder what follows them on the screen)
 *   line separators    U+2028, U+2029 as \u2028, \u2029
 *   not UTF-8          each byte that does not start a valid sequence (a stray
 *                      continuation byte, a cut or overlong sequence, a surrogate,
 *                      above U+10FFFF) as \xNN
 * Everything else passes unchanged, backslashes included: the output is for reading,
 * not for parsing back. Pure functions over caller-owned memory. */
#ifndef TB_BASE_TEXT_H
#define TB_BASE_TEXT_H

#include <stddef.h>

#include "base/buf.h"

/* Appends s[0..n) escaped to out. 0, or -1 when out of memory. */
int tb_text_escape(tb_buf *out, const char *s, size_t n);
/* The same for a C string (NULL appends nothing). */
int tb_text_escape_str(tb_buf *out, const char *s);
/* 1 when s[0..n) prints as itself (nothing in it would be escaped), else 0. */
int tb_text_plain(const char *s, size_t n);
/* s ready for printf's %s: s itself when it is plain, else its escaped form in
   buf[len] -- cut at a character boundary, ending in "...", when it does not fit
   (len >= 4). NULL s gives "". Never NULL. */
const char *tb_text_safe(const char *s, char *buf, size_t len);

#endif
