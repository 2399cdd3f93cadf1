/* bench/internal: the harness's entry points that only its unit tests call (the
 * target host, the mode table; the CSV files' are in benchcsv/internal.h). Other
 * modules use bench/run.h, bench/report.h and bench/script_summary.h; a name moves
 * back there when another module needs it. */
#ifndef TB_BENCH_INTERNAL_H
#define TB_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bench/run.h"

/* ---- bench/run.h ---- */
/* The TCP target the client gets: TARGET_HOST, or FIXTURE_ADDR when unset. */
const char *tb_bench_config_target_host(const tb_bench_config *c);
/* Mode -> client flags: no_tee (0,0), tee_no_verify (1,0), tee_verify (1,1). */
int tb_bench_mode_flags(const char *mode, int *enable_tee, int *verify);

#endif
