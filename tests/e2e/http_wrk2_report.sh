#!/usr/bin/env bash
# teebench http -R with --latency / -U prints wrk2's report: the 8-row HdrHistogram
# distribution, the Detailed Percentile spectrum with its #[...] footer and wrk2's
# rule, for the corrected and the uncorrected latency; --hdr-log writes HdrHistogram's
# interval log, which HdrHistogram's own HistogramLogProcessor (Debian's
# libhdrhistogram-java, when installed) reads back to the same spectrum; with WRK2
# set, a layout diff against wrk2 itself.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"

port=$(free_port)
start_pyserver "$port" ok
"$TB" http -t1 -c2 -d1s -R 0.3k -U --hdr-log "$WORK/run.hlog" "http://127.0.0.1:$port/" \
  >"$WORK/out" || fail "run: $(cat "$WORK/out")"
python3 - "$WORK/out" "$WORK/run.hlog" <<'PY' || fail "wrk2 layout: $(cat "$WORK/out")"
import re, sys
out = open(sys.argv[1]).read().split("\n")
def section(title):
    i = out.index("  Latency Distribution (HdrHistogram - %s)" % title)
    rows = out[i + 1:i + 9]
    assert [r[:8] for r in rows] == [" 50.000%", " 75.000%", " 90.000%", " 99.000%",
                                    " 99.900%", " 99.990%", " 99.999%", "100.000%"], rows
    assert all(re.fullmatch(r".{8} +[0-9.]+(us|ms|s)", r) for r in rows), rows
    assert out[i + 9] == "" and out[i + 10] == "  Detailed Percentile spectrum:"
    assert out[i + 11] == "       Value   Percentile   TotalCount 1/(1-Percentile)" and out[i + 12] == ""
    j = i + 13
    spectrum = []
    while not out[j].startswith("#[Mean"):
        m = re.fullmatch(r" +([0-9.]+) +([0-9.]+) +([0-9]+) +([0-9.]+|inf)", out[j])
        assert m, out[j]
        spectrum.append((float(m.group(1)), int(m.group(3))))
        j += 1
    assert re.fullmatch(r"#\[Mean    = +[0-9.]+, StdDeviation   = +[0-9.]+\]", out[j]), out[j]
    assert re.fullmatch(r"#\[Max     = +[0-9.]+, Total count    = +[0-9]+\]", out[j + 1])
    assert re.fullmatch(r"#\[Buckets = +35, SubBuckets     = +2048\]", out[j + 2])
    assert out[j + 3] == "-" * 58
    assert out[j - 1].split()[1] == "1.000000" and out[j - 1].split()[3] == "inf"
    return i, j + 3, spectrum
a, end_a, spec = section("Recorded Latency")
b, end_b, _spec_u = section("Uncorrected Latency (measured without taking delayed starts into account)")
assert b == end_a + 2 and out[end_a + 1] == ""
assert out[a - 1].startswith("    Req/Sec") and re.match(r"  \d+ requests in ", out[end_b + 1])
n = int(out[end_b + 1].split()[0])
assert spec[-1][1] == n, (spec[-1], n)  # TotalCount ends at the requests counted
open(sys.argv[1] + ".spec", "w").write("\n".join("%.3f %d" % s for s in spec) + "\n")
log = open(sys.argv[2]).read().split("\n")
assert log[1] == "#[Histogram log format version 1.3]" and log[2].startswith("#[StartTime: ")
assert log[4] == '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"'
assert re.fullmatch(r"0\.000,1\.0\d\d,[0-9.]+,HISTFAAAA[A-Za-z0-9+/=]+", log[5]), log[5]
assert log[6].startswith("Tag=uncorrected,0.000,") and log[7] == ""
PY
jar=/usr/share/java/hdrhistogram-2.1.11.jar
if command -v java >/dev/null && [ -f "$jar" ]; then
  java -cp "$jar" org.HdrHistogram.HistogramLogProcessor -i "$WORK/run.hlog" \
    -outputValueUnitRatio 1000000 >"$WORK/java.out" 2>&1 || fail "HistogramLogProcessor: $(cat "$WORK/java.out")"
  awk '$1 ~ /^[0-9.]+$/ && NF >= 3 {printf "%.3f %d\n", $1, $3}' "$WORK/java.out" >"$WORK/java.spec"
  diff "$WORK/java.spec" "$WORK/out.spec" >"$WORK/diff" || fail "HdrHistogram reads another spectrum: $(cat "$WORK/diff")"
else
  echo "note: libhdrhistogram-java not installed: the .hlog was checked by format only"
fi
# With a wrk2 binary at hand (not packaged by Debian: WRK2=/path/to/wrk), the whole
# output has wrk2's layout line for line (numbers replaced by N).
if [ -x "${WRK2:-}" ]; then
  "$WRK2" -t1 -c2 -d1s -R 300 -U "http://127.0.0.1:$port/" >"$WORK/wrk2.out" 2>&1 || fail "wrk2"
  normalize "$WORK/wrk2.out" >"$WORK/wrk2.norm"
  normalize "$WORK/out" >"$WORK/tb.norm"
  diff -u "$WORK/wrk2.norm" "$WORK/tb.norm" >"$WORK/diff" || fail "layout differs from wrk2's: $(cat "$WORK/diff")"
fi
pass http_wrk2_report
