/* attest/common/http: one GET of collateral; see http.h for the invariants. */
#include "attest/common/http.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    tb_attest_http *r = ud;
    size_t k = size * n;
    if (r->body.len + k > r->max_body) {
        r->too_big = 1;
        return 0;
    }
    return tb_buf_append(&r->body, p, k) < 0 ? 0 : k;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    tb_attest_http *r = ud;
    size_t k = size * n, wl = r->want ? strlen(r->want) : 0;
    if (wl && k > wl + 1 && !strncasecmp(p, r->want, wl) && p[wl] == ':') {
        const char *v = p + wl + 1;
        size_t vl = k - wl - 1;
        while (vl && (*v == ' ' || *v == '\t'))
            v++, vl--;
        while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
            vl--;
        free(r->header);
        r->header = malloc(vl + 1);
        if (r->header) {
            memcpy(r->header, v, vl);
            r->header[vl] = '\0';
        }
    }
    return k;
}

void tb_attest_http_clear(tb_attest_http *r)
{
    tb_buf_clear(&r->body);
    free(r->header);
    r->header = NULL;
    r->too_big = 0;
}

int tb_attest_http_get(CURL *c, const char *url, long timeout_ms, tb_attest_http *r, long *status,
                       tb_err *err)
{
    tb_attest_http_clear(r);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "teebench/" TEEBENCH_VERSION);
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK)
        return tb_errf(err, "GET %s: %s", url,
                       r->too_big ? "response too large" : curl_easy_strerror(rc));
    *status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    return 0;
}
