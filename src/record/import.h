/* import: other teebench outputs as records -- what `teebench results import`
 * and a FILE reference (`results show FILE`, `compare FILE ...`) read.
 *
 * Formats, detected from the content (never from the file name):
 *   TB_IMPORT_RESULT    a teebench result document (schema "teebench-result"),
 *                       taken as it is (its own id, label, profile);
 *   TB_IMPORT_HTTP      `teebench http --json`;
 *   TB_IMPORT_SYSCALL   `teebench syscall --json`;
 *   TB_IMPORT_PROBE     `teebench probe --json`;
 *   TB_IMPORT_BENCH_DIR a `teebench bench notary` results folder (results.csv
 *                       and run.json, env.json when present);
 *   TB_IMPORT_BENCH_CSV a results.csv alone (teebench's or the source document's
 *                       benchmark-tee-impact.sh: the same header).
 *
 * Metric names (what suite, compare and report agree on):
 *   http.<target>.rps (req/s, higher), http.<target>.latency.pNN (ms, lower; the
 *   latency as printed, with the coordinated-omission correction),
 *   http.<target>.latency_u.pNN (ms, lower; uncorrected, when present),
 *   http.<target>.transfer (B/s, higher), with pNN in p50 p90 p99 p99.9 p99.99
 *   p99.999 and <target> the caller's (tb_import_opts.target), else "imported"
 *   (the JSON does not say whether the server was nginx or teebench serve; the
 *   URL's host differs between environments, so it is not used);
 *   syscall.c1.lps / syscall.cn.lps (lps, higher; the passes UnixBench's scoring
 *   kept; c1 = one copy, cn = several) and syscall.c1.index / syscall.cn.index
 *   (index, higher) for mode mix, as `teebench suite` names them;
 *   syscall.<mode>.c1.lps / .cn.lps for the other modes (no index);
 *   probe.<name>.ns (ns, lower; note = the probe's description);
 *   notary.<mode>.notarization_ms, .total_e2e_ms, .wall_ms, .verify_ms (rows
 *   that verified: notary.tee_verify.verify_ms), notary.<mode>.overhead_ms (ms,
 *   lower; one sample: the median over iterations of the mode's time minus
 *   no_tee's, paired by iteration; notarization + verification for tee_verify);
 *   failed rows are left out; TEE modes of a SIMULATED run are simulated.
 *
 * An imported record has profile "imported", status "complete", the label given
 * (or the default label of the embedded env facts, else "unknown"), extra.source
 * = {"format": ..., "path": ...}, and an id derived from the content (a version 8
 * UUID made from SHA-256 of the format, the bytes, the label and the target):
 * importing the same file again gives the same id, so the store keeps one run.
 * Times: http's started_at; a bench folder's name (its UTC stamp); otherwise the
 * file's modification time.
 *
 * Ownership: *out is a new record (caller tb_record_free()s); NULL on failure. */
#ifndef TB_RECORD_IMPORT_H
#define TB_RECORD_IMPORT_H

#include <stddef.h>

#include "base/err.h"
#include "record/record.h"

enum tb_import_format {
    TB_IMPORT_RESULT,
    TB_IMPORT_DOC, /* a workload's document (extra.source.format: the workload's name) */
    TB_IMPORT_BENCH_DIR,
    TB_IMPORT_BENCH_CSV,
};

/* "result", "document", "bench-dir", "bench-csv". */
const char *tb_import_format_name(enum tb_import_format f);

/* What the caller may choose; a NULL tb_import_opts means all defaults. */
typedef struct tb_import_opts {
    const char *label;  /* the label to give the record (tb_record_label_valid); NULL: the
                           default label of its env facts ("unknown" without). Replaces a
                           result document's. */
    const char *target; /* the <target> of http metrics; NULL: "imported" */
} tb_import_opts;

/* Reads path (a file, or a bench results folder) as a record. fmt (may be NULL)
   says which format it was. 0 or -1 with one line in err ("<path>: ..."). */
int tb_record_import_file(const char *path, const tb_import_opts *opts, tb_record **out,
                          enum tb_import_format *fmt, tb_err *err);

#endif
