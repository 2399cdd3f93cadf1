/* curl: libcurl loaded on first use instead of at program start.
 *
 * The binary does not link libcurl (DT_NEEDED): the dynamic loader would map and
 * relocate libcurl and the 27 libraries it pulls in (GnuTLS, Kerberos, LDAP...) on every
 * start, which tripled `teebench --help`'s start-up time although only the notary
 * client and the PCCS fetch ever use it. Instead base/curl.c defines the libcurl
 * entry points the tree calls (curl_global_init/cleanup, curl_easy_init/setopt/
 * perform/getinfo/cleanup/strerror/unescape, curl_free, curl_slist_append/
 * free_all) with libcurl's own prototypes from <curl/curl.h>: each forwards to the
 * real function, resolved once with dlopen("libcurl.so.4") + dlsym on first call.
 * Call sites use the ordinary libcurl API and need no change.
 *
 * When libcurl cannot be loaded, curl_global_init returns CURLE_FAILED_INIT,
 * curl_easy_init and curl_slist_append return NULL, curl_easy_perform returns
 * CURLE_FAILED_INIT; tb_curl_load says why (for a clearer error line). The
 * self-contained build (`make static`, base/linkage.h) never loads it: a shared object
 * built for another glibc would abort a statically linked program.
 *
 * Invariant: the function table is written exactly once (pthread_once) and only
 * read afterwards, so first uses from several threads are safe. It is the one
 * piece of process-wide state in base, standing in for the loader's own. */
#ifndef TB_BASE_CURL_H
#define TB_BASE_CURL_H

#include "base/err.h"

/* The library name loaded (the soname of Debian's libcurl4). */
#define TB_CURL_SONAME "libcurl.so.4"

/* Loads libcurl if not done yet. 0, or -1 with err saying why it cannot be used
 * ("libcurl.so.4: cannot open shared object file ..." or a missing symbol). */
int tb_curl_load(tb_err *err);

#endif
