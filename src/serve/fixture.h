/* fixture: the fixture server's documents, embedded in the binary at build time
 * (no source tree needed at run time), and their compact JSON re-encoding.
 *
 * The raw documents are the files of testdata/fixture (1kb.json, 4kb.json,
 * 8kb.json, 4kb.html), included byte for byte by the assembler (.incbin); they
 * are read-only and live as long as the program. The welcome page is the page
 * served at "/": 615 bytes, the size of nginx's default welcome page. */
#ifndef TB_SERVE_FIXTURE_H
#define TB_SERVE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_FIXTURE_WELCOME_LEN 615

typedef struct tb_blob {
    const uint8_t *p;
    size_t len;
} tb_blob;

/* The embedded document called name ("1kb.json", "4kb.json", "8kb.json",
 * "4kb.html"). Returns 0, or -1 for an unknown name. */
int tb_fixture_doc(const char *name, tb_blob *out, tb_err *err);

/* The static HTML page served at "/" (TB_FIXTURE_WELCOME_LEN bytes). */
tb_blob tb_fixture_welcome(void);

/* Re-encodes the JSON text doc as compact JSON (no whitespace, "," and ":"
 * separators, object keys in document order, UTF-8 kept, each number written
 * with the fewest digits that read back as the same double). Appends to out,
 * which the caller owns and frees. */
int tb_fixture_compact_json(const uint8_t *doc, size_t len, tb_buf *out, tb_err *err);

#endif
