/* Unit tests for src/workloads/param: every workload's parameter table (unique keys,
 * a help line, fields that fit the kind, defaults that parse in every profile and
 * read back from the JSON form), one setting from its text (durations, integers,
 * text with choices and checks, durations in whole seconds, lists of names into an
 * array or into fields of their own, lists read token by token, custom lists), a
 * refused setting leaving the parameters as they were (a bad value, or a combination
 * the workload's check refuses), the messages that name "<workload>.<key>", and the
 * helpers custom parsers use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "workloads/http.h"
#include "workloads/notary.h"
#include "workloads/syscall.h"
#include "workloads/workload.h"

static void test_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        assert_true(w->params_size <= TB_WL_PARAMS_MAX);
        assert_true(!w->n_params || w->params_size > 0);
        for (size_t k = 0; k < w->n_params; k++) {
            const tb_wl_param *r = &w->params[k];
            assert_true(r->key && r->key[0] && !strchr(r->key, '.'));
            assert_true(r->help && r->help[0]);
            for (size_t j = k + 1; j < w->n_params; j++)
                assert_string_not_equal(r->key, w->params[j].key);
            switch (r->kind) {
            case TB_WLP_SECONDS:
                assert_int_equal(r->size, sizeof(double));
                assert_true(r->lo <= r->hi);
                break;
            case TB_WLP_INT:
                assert_int_equal(r->size, sizeof(int));
                assert_true(r->lo <= r->hi);
                break;
            case TB_WLP_TEXT:
                assert_true(r->size > 1);
                break;
            case TB_WLP_CUSTOM:
                assert_non_null(r->parse);
                assert_non_null(r->json);
                break;
            case TB_WLP_WHOLE_SECONDS:
                assert_int_equal(r->size, sizeof(int));
                assert_true(r->lo <= r->hi);
                break;
            case TB_WLP_LIST:
                assert_non_null(r->token);
                assert_true(r->item || r->json);
                assert_true(r->size > 0);
                if (r->item)
                    assert_int_equal(r->size, sizeof(int)); /* the count */
                break;
            case TB_WLP_NAMES:
                assert_non_null(r->names);
                assert_true(r->names->n > 0 && r->names->n <= TB_WL_NAMES_MAX);
                if (!r->names->fields)
                    assert_int_equal(r->size, sizeof(int) * (size_t)r->names->n);
                for (int f = 0; r->names->fields && f < r->names->n; f++)
                    assert_true(r->names->fields[f] + sizeof(int) <= w->params_size);
                break;
            }
            if (r->kind != TB_WLP_CUSTOM)
                assert_true(r->offset + r->size <= w->params_size);
        }
        /* every profile's defaults parse, pass the check and read back from JSON */
        for (int p = 0; p < TB_WL_PROFILES; p++) {
            tb_wl_params a, b;
            tb_err e = {{0}};
            if (tb_wl_params_init(w, a.bytes, p, &e) < 0)
                fail_msg("%s, profile %d: %s", w->name, p, e.msg);
            json_t *j = tb_wl_params_json(w, a.bytes);
            assert_non_null(j);
            memset(b.bytes, 0x5a, sizeof b.bytes);
            assert_int_equal(tb_wl_params_init(w, b.bytes, p, &e), 0);
            const char *key;
            json_t *v;
            json_object_foreach(j, key, v)
            {
                char text[1024] = "";
                if (json_is_string(v))
                    snprintf(text, sizeof text, "%s", json_string_value(v));
                else if (json_is_integer(v))
                    snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
                else if (json_is_real(v))
                    snprintf(text, sizeof text, "%.17g", json_real_value(v));
                else if (json_is_array(v))
                    for (size_t n = 0; n < json_array_size(v); n++)
                        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s",
                                 n ? "," : "", json_string_value(json_array_get(v, n)));
                if (!text[0])
                    continue; /* an empty text setting (attest.certs) is its zero */
                if (tb_wl_params_set(w, b.bytes, key, text, NULL, &e) < 0)
                    fail_msg("%s.%s=%s: %s", w->name, key, text, e.msg);
            }
            json_t *j2 = tb_wl_params_json(w, b.bytes);
            assert_true(json_equal(j, j2));
            json_decref(j);
            json_decref(j2);
        }
    }
}

static void test_set(void **state)
{
    (void)state;
    tb_wl_http_params h, before;
    tb_err e = {{0}};
    int place = -1;
    assert_int_equal(tb_wl_params_init(&tb_wl_http, &h, TB_WL_SEED, &e), 0);
    assert_true(h.duration_s == 30 && h.threads == 4 && h.connections == 100);
    assert_true(h.nginx && h.serve_tls);
    assert_int_equal(tb_wl_params_set(&tb_wl_http, &h, "duration", "500ms", &place, &e), 0);
    assert_true(h.duration_s == 0.5);
    assert_int_equal(place, 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_http, &h, "duration", "1.5m", NULL, &e), 0);
    assert_true(h.duration_s == 90);
    assert_int_equal(tb_wl_params_set(&tb_wl_http, &h, "nginx_bin", "/opt/nginx", &place, &e), 0);
    assert_int_equal(place, 1); /* where nginx is, not how much is measured */
    assert_int_equal(tb_wl_params_set(&tb_wl_http, &h, "targets", "serve-tls", NULL, &e), 0);
    assert_true(!h.nginx && h.serve_tls);
    json_t *hj = tb_wl_params_json(&tb_wl_http, &h);
    json_t *tj = json_object_get(hj, "targets");
    assert_int_equal(json_array_size(tj), 1);
    assert_string_equal(json_string_value(json_array_get(tj, 0)), "serve-tls");
    json_decref(hj);
    /* refused settings leave everything as it was */
    before = h;
    static const char *const bad[][3] = {
        {"duration", "abc", "http.duration: 'abc' is not a duration (e.g. 5s, 500ms)"},
        {"duration", "5h", "http.duration: '5h' is not a duration"},
        {"duration", "0", "http.duration: 0 is out of range (0.01 s .. 86400 s)"},
        {"threads", "1.5", "http.threads: '1.5' is not an integer"},
        {"threads", " 5", "http.threads: ' 5' is not an integer"},
        {"threads", "99999999999999999999",
         "http.threads: 99999999999999999999 is out of range (1 .. 1024)"},
        {"duration", "-5s", "http.duration: '-5s' is not a duration"},
        {"duration", "1e3", "http.duration: '1e3' is not a duration"},
        {"threads", "2000", "http.threads: 2000 is out of range (1 .. 1024)"},
        {"threads", "101", "http.connections (100) must be >= http.threads (101)"},
        {"targets", "nginx,apache", "http.targets: unknown target 'apache' (nginx, serve-tls)"},
        {"targets", " , ", "http.targets: empty list"},
        {"targets", "all", "http.targets: unknown target 'all' (nginx, serve-tls)"},
        {"nginx_bin", "nginx", "http.nginx_bin: 'nginx' is not an absolute path"},
        {"nginx_url", "https://h/", "http.nginx_url: 'https://h/' is https"},
        {"nginx_url", "http://h/\x01", "http.nginx_url"},
        {"speed", "1", "unknown setting 'http.speed'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (tb_wl_params_set(&tb_wl_http, &h, bad[i][0], bad[i][1], NULL, &e) != -1)
            fail_msg("%s=%s accepted", bad[i][0], bad[i][1]);
        if (!strstr(e.msg, bad[i][2]))
            fail_msg("%s=%s: \"%s\", want \"%s\"", bad[i][0], bad[i][1], e.msg, bad[i][2]);
        assert_memory_equal(&h, &before, sizeof h);
    }

    tb_wl_syscall_params s;
    assert_int_equal(tb_wl_params_init(&tb_wl_syscall, &s, TB_WL_QUICK, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_syscall, &s, "mode", "fork", NULL, &e), -1);
    assert_string_equal(e.msg, "syscall.mode: 'fork' is not mix, close, getpid or exec");
    assert_int_equal(tb_wl_params_set(&tb_wl_syscall, &s, "mode", "getpid", NULL, &e), 0);
    assert_string_equal(s.mode, "getpid");
    assert_int_equal(tb_wl_params_set(&tb_wl_syscall, &s, "copies", "cpus", NULL, &e), 0);
    assert_true(!s.c1 && s.cn);

    tb_wl_notary_params n;
    assert_int_equal(tb_wl_params_init(&tb_wl_notary, &n, TB_WL_STANDARD, &e), 0);
    assert_int_equal(n.run_timeout_s, 300);
    assert_int_equal(tb_wl_params_set(&tb_wl_notary, &n, "run_timeout", "1500ms", NULL, &e), 0);
    assert_int_equal(n.run_timeout_s, 2); /* whole seconds, rounded up */
    json_t *nj = tb_wl_params_json(&tb_wl_notary, &n);
    assert_true(json_is_integer(json_object_get(nj, "run_timeout")));
    assert_int_equal(json_integer_value(json_object_get(nj, "run_timeout")), 2);
    json_decref(nj);
    assert_int_equal(tb_wl_params_set(&tb_wl_notary, &n, "run_timeout", "0.5s", NULL, &e), -1);
    assert_string_equal(e.msg, "notary.run_timeout: 0.5s is out of range (1 s .. 86400 s)");
    assert_int_equal(n.run_timeout_s, 2);
    /* modes run in the harness's order whatever the list's */
    assert_int_equal(tb_wl_params_set(&tb_wl_notary, &n, "modes", "tee_verify no_tee", NULL, &e),
                     0);
    assert_int_equal(n.n_modes, 2);
    assert_string_equal(n.modes[0], "no_tee");
    assert_string_equal(n.modes[1], "tee_verify");
    assert_int_equal(tb_wl_params_set(&tb_wl_notary, &n, "tee", "sgx", NULL, &e), -1);
    assert_string_equal(e.msg, "notary.tee: 'sgx' is not auto, sim, sim-snp, tdx or snp");
    assert_int_equal(tb_wl_params_set(&tb_wl_notary, &n, "pccs", "ftp://x", NULL, &e), -1);
    assert_string_equal(e.msg, "notary.pccs: 'ftp://x' is not an http:// or https:// URL");

    assert_int_equal(tb_wl_params_init(&tb_wl_http, &h, 3, &e), -1);
    assert_int_equal(tb_wl_profile_parse("quick"), TB_WL_QUICK);
    assert_int_equal(tb_wl_profile_parse("seed"), TB_WL_SEED);
    assert_int_equal(tb_wl_profile_parse("custom"), -1);
}

static int count_token(void *ctx, const char *t, tb_err *err)
{
    int *n = ctx;
    if (!strcmp(t, "bad"))
        return tb_errf(err, "'%s' is bad", t);
    (*n)++;
    return 0;
}

static void test_helpers(void **state)
{
    (void)state;
    tb_err e = {{0}};
    int n = 0;
    assert_int_equal(tb_wl_each_token("k", "a, b,,c", count_token, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_int_equal(tb_wl_each_token("k", "a,bad", count_token, &n, &e), -1);
    assert_string_equal(e.msg, "k: 'bad' is bad");
    char big[1100];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(tb_wl_each_token("k", big, count_token, &n, &e), -1);
    assert_string_equal(e.msg, "k: list too long");
    char out[4];
    assert_int_equal(tb_wl_parse_text("k", "abcd", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "k: longer than 3 bytes");
    assert_int_equal(tb_wl_parse_text("k", "a\tb", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "k: contains a control character");
    double s;
    assert_int_equal(tb_wl_parse_seconds("k", " 5", 0, 10, &s, &e), -1);
    assert_int_equal(tb_wl_parse_seconds("k", "nan", 0, 10, &s, &e), -1);
    assert_int_equal(tb_wl_parse_seconds("k", "10s", 0, 10, &s, &e), 0);
    assert_true(s == 10);
    int i;
    assert_int_equal(tb_wl_parse_int("k", "99999999999999999999", 0, 10, &i, &e), -1);
    assert_int_equal(tb_wl_parse_int("k", "-1", -1, 10, &i, &e), 0);
    assert_int_equal(i, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
