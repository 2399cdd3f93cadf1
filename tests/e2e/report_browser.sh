#!/usr/bin/env bash
# e2e: `teebench report` opened in headless Chromium, checked for what a person sees.
#
# Result files for three environments (host, one labelled "<script>alert(1)</script>",
# and a SIMULATED tdx-guest) come from tests/tools/make_results.py: 51 metrics each (the
# base set, 13 more, a VM's boot with its phases). The report is
# loaded by tests/e2e/report_cdp.py, which drives one Chromium over the DevTools
# protocol on a pipe, with the network emulated offline, and records the page's own
# requests, console messages and log entries, its DOM (what --dump-dom prints) and a
# full-page screenshot. Two control pages in the same browser prove the checks can
# fail: one loads an external image and logs a console error (both must be seen), one
# has the report's Content-Security-Policy and an external image (the violation must be
# seen). Then, over the report's DOM: every environment's name as text, the label as
# text and no <script> element, every headline number equal to what the result files
# give (medians and ratios of medians computed here), one chart per section with one
# mark per environment and metric, and no request but the page itself, no console
# message, no log entry. The forest plot comes first: one row per metric (51, every
# one), each with a mark per environment but the baseline whose data-value is the ratio
# of medians computed here, SIMULATED where the metric was; and it is rendered -- the
# browser's layout gives every row a box of its own (report_cdp.py --boxes: DOM
# boxes, not just elements), inside the page's width, one under the other, the plot
# above every other chart. The boot phases are one stacked bar per environment.
# The screenshot is copied beside the binary (build/report-screenshot.png) to look at.
# Also: bad invocations fail with one line and leave no file; runs named by label and
# id prefix in a results store; --format markdown writes the page and its SVG files.
source "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "skipped: chromium not installed"
  exit 77
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SCRIPT_LABEL='<script>alert(1)</script>'

python3 "$ROOT/tests/tools/make_results.py" "$WORK/res" --envs "host,$SCRIPT_LABEL,tdx-guest" \
  --simulated tdx-guest --extra-metrics 13 --boot >/dev/null
R=("$WORK/res/0.json" "$WORK/res/1.json" "$WORK/res/2.json")

# ---- the command line: errors, markdown, the page
expect_fail 2 "$TB" report
expect_fail 2 "$TB" report --format pdf "${R[@]}"
expect_fail 2 "$TB" report --baseline nosuch "${R[@]}" -o "$WORK/x.html"
expect_fail 2 "$TB" report --bogus "${R[@]}"
echo '{"schema":"teebench-result","schema_version":1' >"$WORK/bad.json"
expect_fail 1 "$TB" report "${R[0]}" "$WORK/bad.json" -o "$WORK/bad.html"
grep -q "bad.json" "$WORK/err" || fail "the error names the bad file: $(cat "$WORK/err")"
expect_fail 1 "$TB" report "$WORK/missing.json" -o "$WORK/bad.html"
[ ! -e "$WORK/bad.html" ] && [ ! -e "$WORK/x.html" ] || fail "a failed report left a file"
pass "bad invocations: one line, no file"

mkdir "$WORK/md"
"$TB" report "${R[@]}" --format markdown -o "$WORK/md/page.md" >"$WORK/out"
for f in page.md page-overview.svg page-throughput.svg page-latency-nginx.svg \
  page-phases-vm-boot-phases.svg page-notary.svg page-probes.svg; do
  [ -s "$WORK/md/$f" ] || fail "markdown: $f missing"
done
grep -q '](page-probes.svg)' "$WORK/md/page.md" || fail "markdown: no link to its SVG"
grep -q '](page-overview.svg)' "$WORK/md/page.md" || fail "markdown: no link to the forest plot"
if grep -q '<script' "$WORK/md/page.md" "$WORK"/md/*.svg; then fail "markdown: raw <script"; fi
pass "markdown: page.md and six SVG files"

# runs named by label and by id prefix in a results store; a missing name is one line
export TEEBENCH_DB="$WORK/db/results.db"
"$TB" results import "${R[0]}" "${R[2]}" >/dev/null
id=$("$TB" results list | awk '$3 == "tdx-guest" {print $1}')
[ -n "$id" ] || fail "results list shows no tdx-guest run"
"$TB" report host "${id:0:6}" -o "$WORK/store.html" >"$WORK/out" || fail "report from the store"
grep -q "2 environments" "$WORK/out" || fail "report from the store: $(cat "$WORK/out")"
grep -q '<b class="env">tdx-guest \[TDX\] \[SIMULATED\]</b>' "$WORK/store.html" || fail "store: no tdx-guest"
expect_fail 1 "$TB" report host no-such-label -o "$WORK/x.html"
[ ! -e "$WORK/x.html" ] || fail "a failed report left a file"
unset TEEBENCH_DB
pass "runs from the store by label and id prefix"

"$TB" report "${R[@]}" -o "$WORK/report.html" --title "e2e report" >"$WORK/out"
grep -q "^wrote $WORK/report.html (" "$WORK/out" || fail "no 'wrote' line: $(cat "$WORK/out")"
[ -s "$WORK/report.html" ] || fail "no report written"

# ---- controls and the report in one headless Chromium
cat >"$WORK/control.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p>control</p>
<img src="http://203.0.113.9/control.png"><script>console.error("control error")</script></body></html>
EOF
csp=$(grep -o '<meta http-equiv="Content-Security-Policy"[^>]*>' "$WORK/report.html")
[ -n "$csp" ] || fail "the report has no Content-Security-Policy"
printf '<!DOCTYPE html><html><head><meta charset="utf-8">%s</head><body><img src="http://203.0.113.9/csp.png"></body></html>\n' \
  "$csp" >"$WORK/csp.html"
python3 "$HERE/report_cdp.py" "$CHROMIUM" "$WORK/cdp" "file://$WORK/control.html" \
  '--boxes=section#overview g.tb-frow[data-kind="metric"]' '--boxes=figure > svg' \
  "file://$WORK/csp.html" "file://$WORK/report.html" ||
  fail "chromium: $(tail -5 "$WORK/cdp/chromium.log" 2>/dev/null)"
shot_dir=$(dirname "$TB")
cp "$WORK/cdp/page2.png" "$WORK/report-screenshot.png"
cp "$WORK/cdp/page2.png" "$shot_dir/report-screenshot.png" 2>/dev/null &&
  echo "screenshot: $shot_dir/report-screenshot.png"

python3 - "$WORK" "$SCRIPT_LABEL" <<'EOF' || fail "the page in the browser (above)"
import html.parser, json, math, re, struct, sys

work, script_label = sys.argv[1], sys.argv[2]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)

def page(i):
    return json.load(open("%s/cdp/page%d.json" % (work, i)))

# controls: the checks below can fail
c = page(0)
check(any(u.startswith("http://203.0.113.9/") for u in c["requests"]), "control: request not seen")
check(any("control error" in m for m in c["console"]), "control: console error not seen")
c = page(1)
check(any("Content Security Policy" in e["text"] for e in c["log"]), "control: CSP violation not seen")

# the report: loads offline, asks for nothing but itself, says nothing on the console
p = page(2)
check(p["loaded"], "report did not finish loading")
check(p["requests"] == ["file://%s/report.html" % work], "requests: %s" % p["requests"])
check(p["console"] == [], "console: %s" % p["console"])
check(p["log"] == [], "log entries: %s" % p["log"])
check(p["exceptions"] == [], "exceptions: %s" % p["exceptions"])

# the screenshot: a PNG, 1280 pixels wide, the whole page
png = open("%s/cdp/page2.png" % work, "rb").read()
check(png[:8] == b"\x89PNG\r\n\x1a\n", "screenshot is not a PNG")
w, h = struct.unpack(">II", png[16:24])
check(w == 1280 and h > 2000, "screenshot size %dx%d" % (w, h))

# the DOM, as the browser built it
class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.elems, self.text = [], [], []
    def handle_starttag(self, tag, attrs):
        e = {"tag": tag, "attrs": dict(attrs), "text": [], "anc": list(self.stack)}
        self.elems.append(e)
        if tag not in ("meta", "br", "img", "input", "link", "path", "rect", "circle", "use"):
            self.stack.append(e)
    def handle_startendtag(self, tag, attrs):
        self.elems.append({"tag": tag, "attrs": dict(attrs), "text": [], "anc": list(self.stack)})
    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                break
    def handle_data(self, d):
        self.text.append(d)
        for e in self.stack:
            e["text"].append(d)

dom = Dom()
dom.feed(open("%s/cdp/page2.html" % work, encoding="utf-8").read())
text = "".join(dom.text)
txt = lambda e: "".join(e["text"])
cls = lambda e: e["attrs"].get("class", "").split()

check(not any(e["tag"] == "script" for e in dom.elems), "a <script> element in the DOM")
check(script_label in text, "the <script> label is not shown as text")
h1 = [txt(e) for e in dom.elems if e["tag"] == "h1"]
check(h1 == ["e2e report"], "title: %s" % h1)

recs = [json.load(open("%s/res/%d.json" % (work, i))) for i in range(3)]
labels = [r["label"] for r in recs]
check(labels[1] == script_label, "label of the second record")
for r in recs:
    check(r["label"] in text, "environment %r not on the page" % r["label"])

def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

def fmt_num(v):  # report/svg's tb_svg_fmt_num
    if v == 0:
        return "0"
    a = abs(v)
    e = math.floor(math.log10(a))
    if math.floor(a / 10 ** (e - 2) + 0.5) >= 1000:
        e += 1
    if e >= 3:
        return "{:,.0f}".format(v)
    return "{:.{}f}".format(v, 2 - e)

def unit(u):
    return "\u00b5s" if u == "us" else u

metrics = [{m["name"]: m for m in r["metrics"]} for r in recs]
med = lambda i, name: median(metrics[i][name]["samples"])

# headline: every number equal to the result files' value, as data and as text
cards = {e["attrs"].get("data-env"): e for e in dom.elems if "card" in cls(e)}
check(sorted(cards) == sorted(labels), "cards: %s" % sorted(cards))
lines = [e for e in dom.elems if "hl" in cls(e)]
def line(env, metric):
    for e in lines:
        if e["anc"] and cards.get(env) in e["anc"] and e["attrs"].get("data-metric") == metric:
            return e
    return None
def big(e):
    for b in dom.elems:
        if b["tag"] == "b" and "big" in cls(b) and e in b["anc"]:
            return txt(b)
    return None
def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))

n_checked = 0
for i, env in enumerate(labels):
    for name in ("http.nginx.rps", "syscall.cn.index"):
        e = line(env, name)
        check(e is not None, "%s: no headline line for %s" % (env, name))
        if e is None:
            continue
        if i == 0:
            want, shown = med(0, name), fmt_num(med(0, name)) + " " + metrics[0][name]["unit"]
        else:
            want = med(i, name) / med(0, name)
            shown = fmt_num(want) + "\u00d7"
        check(close(float(e["attrs"]["data-value"]), want),
              "%s %s: data-value %s != %r" % (env, name, e["attrs"]["data-value"], want))
        check(big(e) == shown, "%s %s: shows %r, want %r" % (env, name, big(e), shown))
        n_checked += 1
    for name in ("notary.tee_no_verify.overhead_ms", "notary.tee_verify.overhead_ms"):
        e = line(env, name)
        want = med(i, name)
        pct = want / med(i, "notary.no_tee.notarization_ms") * 100
        check(e is not None and close(float(e["attrs"]["data-value"]), want), "%s %s" % (env, name))
        check(e is not None and close(float(e["attrs"]["data-pct"]), pct), "%s %s %%" % (env, name))
        check(e is not None and big(e) == ("+" if want > 0 else "") + fmt_num(want) + " ms",
              "%s %s: shows %r" % (env, name, e and big(e)))
        check(e is not None and ("(%s%s %%)" % ("+" if pct > 0 else "", fmt_num(pct))) in txt(e),
              "%s %s: %% not shown" % (env, name))
        n_checked += 1
    for name in ("notary.tee_verify.verify_ms", "attest.verify_scratch.ms", "attest.verify_prepared.us"):
        e = line(env, name)
        want = med(i, name)
        check(e is not None and close(float(e["attrs"]["data-value"]), want), "%s %s" % (env, name))
        check(e is not None and big(e) == fmt_num(want) + " " + unit(metrics[i][name]["unit"]),
              "%s %s: shows %r" % (env, name, e and big(e)))
        n_checked += 1
check(n_checked == 3 * 7, "headline lines checked: %d" % n_checked)
sim_card = "".join(cards["tdx-guest"]["text"]) if "tdx-guest" in cards else ""
check("SIMULATED" in sim_card, "the simulated environment's card has no SIMULATED badge")
check("SIMULATED" not in "".join(cards["host"]["text"]), "host marked SIMULATED")
tee = {env: [txt(e) for e in dom.elems if e["tag"] == "p" and "tee" in cls(e) and cards.get(env) in e["anc"]]
       for env in cards}
check(tee.get("tdx-guest") == ["TEE TDX; attestation evidence none recorded"], "tdx-guest TEE: %s" % tee.get("tdx-guest"))
check(tee.get("host") == ["TEE none; attestation evidence none recorded"], "host TEE: %s" % tee.get("host"))
check("significantly lower" in text and "no significant difference" in text, "verdict words")

# charts: one per section, one mark per environment and metric
def section(sid):
    return [e for e in dom.elems if e["tag"] == "section" and e["attrs"].get("id") == sid][0]
def inside(sec, pred):
    return [e for e in dom.elems if sec in e["anc"] and pred(e)]
names = list(metrics[0])
lat = [n for n in names if re.match(r"http\.[^.]+\.latency(_u)?\.p[0-9.]+$", n)]
notary = [n for n in names if n.startswith("notary.")]
probes = [n for n in names if n.startswith("probe.")]
phases = [n for n in names if re.match(r"vm\.boot\.[a-z]+\.s$", n)]
bars = [n for n in names if n not in lat + notary + probes + phases]
boxes = [n for n in notary if n.endswith((".notarization_ms", ".verify_ms", ".total_e2e_ms"))]
check(len(names) == 51 and len(phases) == 4, "metrics: %d, phases %s" % (len(names), phases))
want = {"throughput": ("tb-bar", 3 * len(bars)), "latency": ("tb-pt", 3 * len(lat)),
        "notary": ("tb-box", 3 * len(boxes)), "probes": ("tb-dot", 3 * len(probes)),
        "phases": ("tb-seg", 3 * len(phases))}
for sid, (mark, n) in want.items():
    sec = section(sid)
    svgs = inside(sec, lambda e: e["tag"] == "svg")
    check(len(svgs) == 1, "%s: %d charts" % (sid, len(svgs)))
    got = len(inside(sec, lambda e: mark in cls(e)))
    check(got == n and n > 0, "%s: %d marks (%s), want %d" % (sid, got, mark, n))
samples = len(inside(section("notary"), lambda e: "tb-sample" in cls(e)))
check(samples == sum(len(metrics[i][b]["samples"]) for i in range(3) for b in boxes),
      "notary: %d sample dots" % samples)
check("99.999%" in "".join(section("latency")["text"]), "latency: no 99.999% tick")
check("\u00b5s" in "".join(section("probes")["text"]), "probes: no \u00b5s on the log axis")
# the forest plot: the first section, every metric a row with a mark per environment but
# the baseline (its ratio of medians, as computed here), SIMULATED where it was
sections = [e["attrs"].get("id") for e in dom.elems if e["tag"] == "section"]
check(sections[:2] == ["overview", "headline"], "sections: %s" % sections)
ov = section("overview")
frows = inside(ov, lambda e: "tb-frow" in cls(e) and e["attrs"].get("data-kind") == "metric")
check(sorted(r["attrs"]["data-label"] for r in frows) == sorted(names),
      "forest rows: %d, not the %d metrics" % (len(frows), len(names)))
n_marks = 0
for r in frows:
    name = r["attrs"]["data-label"]
    marks = [e for e in dom.elems if r in e["anc"] and "tb-fm" in cls(e)]
    check([m["attrs"].get("data-series") for m in marks] == ["1", "2"],
          "%s: marks %s" % (name, [m["attrs"].get("data-series") for m in marks]))
    for m in marks:
        i = int(m["attrs"]["data-series"])
        want_r = med(i, name) / med(0, name)
        check(close(float(m["attrs"]["data-value"]), want_r),
              "%s #%d: ratio %s != %r" % (name, i, m["attrs"]["data-value"], want_r))
        check(m["attrs"].get("data-verdict") in ("better", "worse", "same", "untested"),
              "%s: verdict %s" % (name, m["attrs"].get("data-verdict")))
        n_marks += 1
    sim = [txt(e) for e in dom.elems if r in e["anc"] and "tb-simt" in cls(e)]
    check(sim == (["SIMULATED"] if metrics[2][name]["simulated"] else []),
          "%s: SIMULATED marks %s" % (name, sim))
check(n_marks == 2 * len(names), "forest marks: %d" % n_marks)
rps = [r for r in frows if r["attrs"]["data-label"] == "http.nginx.rps"][0]
check([e["attrs"].get("data-verdict") for e in dom.elems if rps in e["anc"] and "tb-fm" in cls(e)]
      == ["worse", "worse"], "http.nginx.rps: not worse in both")
heads = [e["attrs"]["data-label"] for e in inside(ov, lambda e: e["attrs"].get("data-kind") == "heading")]
check(len(heads) >= 6 and heads[0].startswith("Throughput") and heads[-1].startswith("Other"),
      "forest headings: %s" % heads)
check(len(inside(ov, lambda e: e["attrs"].get("data-kind") == "summary")) >= 4, "forest: no means")
check("1\u00d7" in "".join(ov["text"]), "forest: no 1x tick")
# rendered: a box of its own for every row, inside the page, one under the other; the plot
# above every other chart
bx = p.get("boxes", {})
rb = bx.get('section#overview g.tb-frow[data-kind="metric"]', [])
check(len(rb) == len(names) and all(b and b[2] > 100 and b[3] > 10 for b in rb),
      "forest rows not rendered: %s" % rb[:3])
check(all(b and b[0] >= 0 and b[0] + b[2] <= 1280 for b in rb), "forest rows outside the page")
check(all(a and b and b[1] >= a[1] + a[3] - 1 for a, b in zip(rb, rb[1:])), "forest rows overlap")
fb = bx.get("figure > svg", [])
check(len(fb) >= 6 and all(fb) and fb[0][1] == min(b[1] for b in fb) and fb[0][3] > 20 * len(names),
      "forest plot is not the first, tall chart: %s" % fb[:2])
rows = inside(section("comparison"), lambda e: e["tag"] == "tr" and "data-metric" in e["attrs"])
check(len(rows) == len(names), "comparison: %d rows" % len(rows))
# under the table, compare's multiple-comparison line for each environment but the baseline
mc = [txt(e) for e in inside(section("comparison"), lambda e: e["tag"] == "p" and "mc" in cls(e))]
check(len(mc) == 2 and all(re.fullmatch(r".+ vs host: \d+ of %d rows differ at \u03b1 = 0\.05; "
                                        r"\u2248 [0-9.]+ expected by chance" % len(names), m)
                           for m in mc), "multiple-comparison lines: %s" % mc)

if bad:
    for b in bad:
        print("FAIL:", b, file=sys.stderr)
    sys.exit(1)
print("PASS: %d headline numbers, a forest plot of %d rendered rows, 5 charts, %d table rows, "
      "no request, no console message" % (n_checked, len(rb), len(rows)))
EOF
pass "report in headless Chromium"
