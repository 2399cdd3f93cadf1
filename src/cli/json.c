/* cli/json: see json.h. */
#include "cli/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sys/env.h"

json_t *cli_json_envelope(const char *schema, json_t *body, int with_env)
{
    json_t *doc = json_object();
    tb_err e;
    json_t *env = with_env ? tb_env_json(&e) : NULL;
    if (!doc || json_object_set_new(doc, "schema", json_string(schema)) < 0 ||
        json_object_set_new(doc, "teebench", json_string(TEEBENCH_VERSION)) < 0 ||
        json_object_set_new(doc, "env", env ? env : json_null()) < 0 ||
        (body && json_object_update(doc, body) < 0)) {
        json_decref(doc);
        json_decref(body);
        return NULL;
    }
    json_decref(body);
    return doc;
}

int cli_json_print(const char *cmd, json_t *doc)
{
    char *s =
        doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(CLI_JSON_REAL_DIGITS)) : NULL;
    json_decref(doc);
    if (!s)
        return cli_fail(cmd, "writing JSON: out of memory");
    int bad = fputs(s, stdout) < 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0;
    free(s);
    if (bad)
        return cli_fail(cmd, "writing JSON: %s", strerror(errno));
    return 0;
}

int cli_json_fail(int code, const char *cmd, const char *schema, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_fail_code(code, cmd, "%s", msg);
    json_t *doc = cli_json_envelope(schema, json_pack("{s:s}", "error", msg), 1);
    char *s = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
    json_decref(doc);
    if (s) {
        printf("%s\n", s);
        fflush(stdout);
        free(s);
    }
    return code;
}

void cli_json_print_text(const json_t *o, int indent, int width)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        if (json_is_object(v)) {
            printf("%*s%s:\n", indent, "", key);
            cli_json_print_text(v, indent + 2, width);
        } else if (json_is_array(v)) {
            printf("%*s%-*s", indent, "", width, key);
            size_t i;
            json_t *x;
            json_array_foreach(v, i, x)
            {
                printf("%s%*s", i ? "\n" : "", i ? indent + width : 0, "");
                printf("%s", json_is_string(x) ? json_string_value(x) : "?");
            }
            printf("%s\n", json_array_size(v) ? "" : "(none)");
        } else if (json_is_string(v)) {
            printf("%*s%-*s%s\n", indent, "", width, key, json_string_value(v));
        } else if (json_is_integer(v)) {
            printf("%*s%-*s%lld\n", indent, "", width, key, (long long)json_integer_value(v));
        } else if (json_is_boolean(v)) {
            printf("%*s%-*s%s\n", indent, "", width, key, json_is_true(v) ? "yes" : "no");
        }
    }
}
