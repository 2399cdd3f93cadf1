/* curl: the libcurl entry points of the tree, forwarded to libcurl.so.4 loaded
 * with dlopen on first use. See curl.h for why and for the failure behaviour.
 *
 * curl_easy_setopt is variadic: its one argument is read with the type libcurl
 * itself reads for the option's number range (CURLOPTTYPE_LONG, OBJECTPOINT,
 * FUNCTIONPOINT, OFF_T, BLOB), then passed on with that type. curl_easy_getinfo's
 * argument is always a pointer. In the self-contained build (base/linkage.h) nothing is
 * loaded: every entry point fails as for a missing library, and tb_curl_load says why. */
#define CURL_DISABLE_TYPECHECK 1 /* the type-checking macros would rename our definitions */
#include "base/curl.h"
#include "base/linkage.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

typedef void (*any_fn)(void);

static struct {
    int ok;
    char why[TB_ERR_MAX];
    CURLcode (*global_init)(long);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    char *(*easy_unescape)(CURL *, const char *, int, int *);
    void (*free_)(void *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* dlsym into *slot (a function pointer of any type); 0 or -1 with lib.why set. */
static int sym(void *h, const char *name, void *slot)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(lib.why, sizeof lib.why, "%s: no symbol %s", TB_CURL_SONAME, name);
        return -1;
    }
    *(void **)slot = p;
    return 0;
}

static void load(void)
{
    if (tb_linkage_static()) { /* a libcurl.so.4 (and the libc it needs) would abort us */
        snprintf(lib.why, sizeof lib.why,
                 "this teebench is the self-contained build (statically linked), which "
                 "cannot load %s; the ordinary build (build/teebench, with libcurl4 "
                 "installed) can",
                 TB_CURL_SONAME);
        return;
    }
    void *h = dlopen(TB_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(lib.why, sizeof lib.why, "%s", e ? e : TB_CURL_SONAME ": cannot be loaded");
        return;
    }
    if (sym(h, "curl_global_init", &lib.global_init) < 0 ||
        sym(h, "curl_global_cleanup", &lib.global_cleanup) < 0 ||
        sym(h, "curl_easy_init", &lib.easy_init) < 0 ||
        sym(h, "curl_easy_setopt", &lib.easy_setopt) < 0 ||
        sym(h, "curl_easy_perform", &lib.easy_perform) < 0 ||
        sym(h, "curl_easy_cleanup", &lib.easy_cleanup) < 0 ||
        sym(h, "curl_easy_getinfo", &lib.easy_getinfo) < 0 ||
        sym(h, "curl_easy_strerror", &lib.easy_strerror) < 0 ||
        sym(h, "curl_easy_unescape", &lib.easy_unescape) < 0 ||
        sym(h, "curl_free", &lib.free_) < 0 || sym(h, "curl_slist_append", &lib.slist_append) < 0 ||
        sym(h, "curl_slist_free_all", &lib.slist_free_all) < 0)
        return; /* the handle stays open: a half-usable library is not retried */
    lib.ok = 1;
}

static int loaded(void)
{
    pthread_once(&lib_once, load);
    return lib.ok;
}

int tb_curl_load(tb_err *err)
{
    if (loaded())
        return 0;
    return tb_errf(err, "libcurl is not available: %s", lib.why);
}

CURLcode curl_global_init(long flags)
{
    return loaded() ? lib.global_init(flags) : CURLE_FAILED_INIT;
}

void curl_global_cleanup(void)
{
    if (loaded())
        lib.global_cleanup();
}

CURL *curl_easy_init(void)
{
    return loaded() ? lib.easy_init() : NULL;
}

CURLcode curl_easy_setopt(CURL *c, CURLoption opt, ...)
{
    if (!loaded())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, opt);
    CURLcode rc;
    if (opt < CURLOPTTYPE_OBJECTPOINT) {
        long v = va_arg(ap, long);
        rc = lib.easy_setopt(c, opt, v);
    } else if (opt < CURLOPTTYPE_FUNCTIONPOINT) {
        void *v = va_arg(ap, void *);
        rc = lib.easy_setopt(c, opt, v);
    } else if (opt < CURLOPTTYPE_OFF_T) {
        any_fn v = va_arg(ap, any_fn);
        rc = lib.easy_setopt(c, opt, v);
    } else if (opt < CURLOPTTYPE_BLOB) {
        curl_off_t v = va_arg(ap, curl_off_t);
        rc = lib.easy_setopt(c, opt, v);
    } else {
        void *v = va_arg(ap, void *);
        rc = lib.easy_setopt(c, opt, v);
    }
    va_end(ap);
    return rc;
}

CURLcode curl_easy_perform(CURL *c)
{
    return loaded() ? lib.easy_perform(c) : CURLE_FAILED_INIT;
}

void curl_easy_cleanup(CURL *c)
{
    if (c && loaded())
        lib.easy_cleanup(c);
}

CURLcode curl_easy_getinfo(CURL *c, CURLINFO info, ...)
{
    if (!loaded())
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    void *p = va_arg(ap, void *);
    va_end(ap);
    return lib.easy_getinfo(c, info, p);
}

const char *curl_easy_strerror(CURLcode code)
{
    return loaded() ? lib.easy_strerror(code) : "libcurl is not available";
}

char *curl_easy_unescape(CURL *c, const char *s, int len, int *outlen)
{
    return loaded() ? lib.easy_unescape(c, s, len, outlen) : NULL;
}

void curl_free(void *p)
{
    if (p && loaded())
        lib.free_(p);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *s)
{
    return loaded() ? lib.slist_append(list, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *list)
{
    if (list && loaded())
        lib.slist_free_all(list);
}
