/* cli/wl_run: see wl_run.h. cli_wl_take prints a skipped part's line on stdout (the
 * command's text output). */
#include "cli/wl_run.h"

#include <stdint.h>
#include <stdio.h>

#include "base/clock.h"
#include "cli/cli.h"
#include "cli/json.h"
#include "cli/stop.h"

int cli_wl_fail(const cli_wl_out *o, int code, const char *msg)
{
    if (o->json)
        return cli_json_fail(code, o->cmd, o->schema, "%s", msg);
    return cli_fail_code(code, o->cmd, "%s", msg);
}

int cli_wl_take(const cli_wl_out *o, int rc, json_t *run, const tb_err *err, const char *skip_name,
                json_t *runs)
{
    if (rc == TB_WL_CANCELLED || cli_stopped()) {
        json_decref(run);
        return cli_wl_fail(o, 130, "interrupted");
    }
    if (rc == TB_WL_SKIPPED && skip_name && !o->json) {
        printf("%-9s skipped: %s\n", skip_name, err->msg);
        json_decref(run);
        return CLI_WL_NEXT;
    }
    if (rc != TB_WL_OK) {
        json_decref(run);
        return cli_wl_fail(o, 1, err->msg);
    }
    if (!o->json && o->print_run)
        o->print_run(run);
    json_array_append_new(runs, run);
    return CLI_WL_NEXT;
}

static void now_iso(char *out, size_t n)
{
    tb_utc_iso8601((int64_t)(tb_wall_ns() / 1000000000ull), out, n);
}

int cli_wl_run_begin(const char *cmd, cli_wl_run *r, tb_err *err)
{
    r->sink = (tb_wl_sink){.dir_fd = -1, .stop = cli_stop_flag()};
    if (tb_wl_workdir_open(cmd, r->work, sizeof r->work, &r->sink, err) < 0)
        return -1;
    cli_stop_catch(&r->old_int, &r->old_term);
    now_iso(r->started, sizeof r->started);
    return 0;
}

int cli_wl_run_print(const char *cmd, const cli_wl_run *r, const char *schema, json_t *body)
{
    char finished[40];
    now_iso(finished, sizeof finished);
    if (body) {
        json_object_set_new(body, "started_at", json_string(r->started));
        json_object_set_new(body, "finished_at", json_string(finished));
    }
    return cli_json_print(cmd, cli_json_envelope(schema, body, 1));
}

void cli_wl_run_end(cli_wl_run *r)
{
    cli_stop_restore(&r->old_int, &r->old_term);
    tb_wl_workdir_remove(&r->sink);
}
