/* libFuzzer target: the parsers of the tools' output the storage and kv workloads read --
 * fio's --output-format=json (tb_wl_fio_parse) and redis-benchmark's --csv
 * (tb_wl_kv_parse_csv) -- on arbitrary bytes. What parses is put into its workload's
 * document and read back by the workload's reader: every sample it gives has a name of
 * the workload's table and a finite value >= 0, and a run the parser accepted is one the
 * reader accepts. */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "workloads/internal.h"
#include "workloads/kv.h"
#include "workloads/storage.h"

static int check(void *ctx, const char *name, double v, int simulated, const char *note,
                 tb_err *err)
{
    const tb_workload *w = ctx;
    tb_wl_match m;
    (void)simulated;
    (void)note;
    (void)err;
    if (!tb_wl_metric_find(name, &m) || m.workload != w || !isfinite(v) || v < 0)
        __builtin_trap();
    return 0;
}

static void read_back(const tb_workload *w, json_t *doc)
{
    tb_wl_sink sink = {.ctx = (void *)w, .sample = check, .dir_fd = -1};
    tb_wl_doc_info info;
    tb_err err;
    if (!doc || w->doc_read(doc, NULL, &sink, &info, &err) != 0)
        __builtin_trap();
    json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    json_t *run = NULL;
    tb_err err;
    if (tb_wl_fio_parse(text, size, "libaio", &run, &err) == 0)
        read_back(&tb_wl_storage, json_pack("{s:[o]}", "runs", run));
    if (tb_wl_kv_parse_csv(text, size, "tls", &run, &err) == 0) {
        tb_wl_kv_params p;
        tb_wl_params_init(&tb_wl_kv, &p, TB_WL_QUICK, &err);
        read_back(&tb_wl_kv, tb_wl_kv_doc(&p, "7.0.15", "7.0.15", json_pack("[o]", run)));
    }
    return 0;
}
