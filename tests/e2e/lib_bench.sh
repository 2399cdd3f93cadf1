# Helpers for the harness tests (sourced after lib.sh; not a test itself).
FAKE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)/fake_notarize_client.sh

# bench_fake OUTDIR [flags...]: runs the harness with the fake client, no servers,
# OUTDIR as its RESULTS_DIR (the run directory itself, as in the source script).
# Stdout/stderr go to $WORK/bench.out / bench.err; sets BENCH_RC and RUN_DIR (= OUTDIR).
bench_fake() {
  local out=$1; shift
  BENCH_RC=0
  START_NOTARY=0 START_FIXTURE=0 NOTARY_PORT=1 "$TB" bench notary --results-dir "$out" \
    --client-cmd "$FAKE" "$@" >"$WORK/bench.out" 2>"$WORK/bench.err" || BENCH_RC=$?
  RUN_DIR=$out
}

# summary_check RESULTS_CSV SUMMARY_TEXT_FILE: recomputes, independently in python3
# (statistics module), the per-mode figures and the headline lines, and checks that
# the summary text contains them exactly (a headline line may go on with "; not
# significant ..." or "; SIMULATED TEE"). Success is the source script's rule:
# exit 0 and a notarization_ms.
summary_check() {
  python3 - "$1" "$2" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
text = open(sys.argv[2]).read()
def ok(r):
    return r["exit_code"] == "0" and r["notarization_ms"] != ""
def vals(mode, col):
    return [float(r[col]) for r in rows if r["mode"] == mode and ok(r) and r[col] != ""]
def p90(x):
    return x[0] if len(x) == 1 else st.quantiles(x, n=10, method="inclusive")[8]
errors = []
for mode in dict.fromkeys(r["mode"] for r in rows):
    for col in ["notarization_ms", "tdx_verify_ms"]:
        x = vals(mode, col)
        if not x:
            continue
        want = "%-14s %-28s n=%-4d mean=%.2f ms  median=%.2f ms  p90=%.2f ms" % (mode, col, len(x), st.mean(x), st.median(x), p90(x))
        if want not in text:
            errors.append("missing: " + want)
base = vals("no_tee", "notarization_ms")
heads = []
if base and vals("tee_no_verify", "notarization_ms"):
    d = st.median(vals("tee_no_verify", "notarization_ms")) - st.median(base)
    heads.append("tee_no_verify median overhead over no_tee: %+.2f ms (%+.2f%%)" % (d, 100 * d / st.median(base)))
npv = vals("tee_verify", "notarization_plus_verify_ms")
if base and npv:
    d = st.median(npv) - st.median(base)
    heads.append("tee_verify median notarization+verify overhead over no_tee: %+.2f ms (%+.2f%%)" % (d, 100 * d / st.median(base)))
tdx = vals("tee_verify", "tdx_verify_ms")
if tdx:
    heads.append("tdx verify median: %.2f ms" % st.median(tdx))
lines = text.splitlines()
for h in heads:
    if not any(l == h or l.startswith(h + "; ") or l.startswith(h + " (n=") for l in lines):
        errors.append("missing headline: " + h)
if errors:
    print("\n".join(errors)); print("--- summary was:"); print(text); sys.exit(1)
print("summary matches python (%d headlines)" % len(heads))
PY
}
