/* embed: the one way bytes from the source tree get into the binary -- the
 * trusted roots of data/roots/ (attest/common/root, attest/snp/roots), the fixture
 * documents of testdata/fixture/ (serve/fixture) and the TLSNotary party's page and
 * script of src/tlsn/pages/ (tlsn/session).
 *
 * TB_EMBED(sym, "data/roots/x.der") at file scope has the assembler include the
 * file byte for byte (.incbin, resolved against TEEBENCH_SOURCE_DIR at compile
 * time; gcc and clang, sanitizer, fuzzer and static builds alike) into .rodata
 * and declares sym_start[] and sym_end[] around it; TB_EMBED_LEN(sym) is its
 * size. Invariants: the bytes are read-only and live as long as the program; one
 * NUL byte follows each blob (not counted), so a PEM text may be used as a C
 * string; the symbols are hidden (one object's). The build (CMakeLists.txt,
 * TB_EMBEDDED) names every embedded file as a dependency of the object that
 * embeds it, so changing a file re-embeds it. Nothing is read at run time. */
#ifndef TB_BASE_EMBED_H
#define TB_BASE_EMBED_H

#include <stddef.h>
#include <stdint.h>

#define TB_EMBED(sym, path)                                                                        \
    __asm__(".pushsection .rodata\n"                                                               \
            ".balign 16\n"                                                                         \
            ".globl " #sym "_start\n"                                                              \
            ".hidden " #sym "_start\n" #sym "_start:\n"                                            \
            ".incbin \"" TEEBENCH_SOURCE_DIR "/" path "\"\n"                                       \
            ".globl " #sym "_end\n"                                                                \
            ".hidden " #sym "_end\n" #sym "_end:\n"                                                \
            ".byte 0\n"                                                                            \
            ".popsection\n");                                                                      \
    extern const uint8_t sym##_start[], sym##_end[]

#define TB_EMBED_LEN(sym) ((size_t)(sym##_end - sym##_start))

#endif
