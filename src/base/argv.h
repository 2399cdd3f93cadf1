/* argv: a NULL-terminated argument vector for base/proc, built one printf-formatted
 * word at a time (mmdebstrap's command line in vm/image, ssh's and ssh-copy-id's in
 * suite/remote).
 *
 * Ownership: the builder owns v and its words until tb_argv_take hands them to the
 * caller, who frees them with tb_argv_free (each word, then the array).
 * Invariants: v is NULL or NULL-terminated at n; once a word could not be allocated
 * (oom), every later tb_argv_add does nothing and tb_argv_take frees what was built
 * and returns NULL -- so a caller adds every word and checks once, at the end. */
#ifndef TB_BASE_ARGV_H
#define TB_BASE_ARGV_H

#include <stddef.h>

typedef struct tb_argv {
    char **v;
    size_t n, cap;
    int oom;
} tb_argv;

/* Appends one word, fmt formatted. */
void tb_argv_add(tb_argv *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The vector built (malloc'd; caller frees with tb_argv_free), never NULL for a
   builder that added a word without running out of memory; NULL when out of memory
   (or nothing was added). b is {0} again either way. */
char **tb_argv_take(tb_argv *b);
/* Frees a NULL-terminated vector of malloc'd words (NULL: nothing). */
void tb_argv_free(char **argv);

#endif
