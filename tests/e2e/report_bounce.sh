#!/usr/bin/env bash
# e2e: the bounce-buffer split in `teebench report`, opened in headless Chromium.
#
# Result files from tests/tools/make_results.py for a host, a VM, the VM booted with
# swiotlb=force and a TD -- told apart by their extra.vm facts, the labels chosen so
# that they lie ("td" is the bounced VM, "bounce" the TD) -- with I/O metrics whose
# costs are known: the bounce path explains 50 % of the TD's extra latency and 61.5 %
# of its lost IOPS / req/s; kv.plain.set.latency.p50 is the same everywhere (no share).
# Over the DOM Chromium built (tests/e2e/report_cdp.py, network offline): the forest
# plot is there and comes first, the bounce section has one bar per environment and
# I/O metric (VM, VM+bounce, TD in that order, each the right record), one table row
# per I/O metric whose share (data-share) is the one computed here from the samples'
# medians, with a 95 % interval around it, and the undefined one says why; the
# section's boxes are laid out (rendered). Then without the TD the section says what
# is missing, and the markdown page carries the table and its SVG.
source "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "skipped: chromium not installed"
  exit 77
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

python3 "$ROOT/tests/tools/make_results.py" "$WORK/res" --envs host,vm,td,bounce \
  --vm-kinds none,regular,regular-swiotlb,tdx --io --samples 12 >/dev/null
R=("$WORK/res/0.json" "$WORK/res/1.json" "$WORK/res/2.json" "$WORK/res/3.json")
"$TB" report "${R[@]}" -o "$WORK/report.html" >"$WORK/out" || fail "report: $(cat "$WORK/out")"
python3 "$HERE/report_cdp.py" "$CHROMIUM" "$WORK/cdp" '--boxes=section#bounce figure > svg' \
  '--boxes=section#bounce tr[data-metric]' '--boxes=section#overview g.tb-frow[data-kind="metric"]' \
  "file://$WORK/report.html" || fail "chromium: $(tail -5 "$WORK/cdp/chromium.log" 2>/dev/null)"

python3 - "$WORK" <<'EOF' || fail "the bounce section in the browser (above)"
import html.parser, json, statistics, sys

work = sys.argv[1]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)

p = json.load(open("%s/cdp/page0.json" % work))
check(p["loaded"], "report did not load")
check(p["requests"] == ["file://%s/report.html" % work], "requests: %s" % p["requests"])
check(p["console"] == [] and p["exceptions"] == [], "console: %s %s" % (p["console"], p["exceptions"]))

class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.elems, self.stack = [], []
    def handle_starttag(self, tag, attrs):
        e = {"tag": tag, "attrs": dict(attrs), "text": [], "anc": list(self.stack)}
        self.elems.append(e)
        if tag not in ("meta", "br", "img", "input", "link", "path", "rect", "circle", "use", "line", "polygon"):
            self.stack.append(e)
    def handle_startendtag(self, tag, attrs):
        self.elems.append({"tag": tag, "attrs": dict(attrs), "text": [], "anc": list(self.stack)})
    def handle_endtag(self, tag):
        if not any(e["tag"] == tag for e in self.stack):
            return
        while self.stack:
            e = self.stack.pop()
            if e["tag"] == tag:
                break
    def handle_data(self, d):
        for e in self.stack:
            e["text"].append(d)

dom = Dom()
dom.feed(open("%s/cdp/page0.html" % work).read())
def inside(e, sid):
    return any(a["tag"] == "section" and a["attrs"].get("id") == sid for a in e["anc"])
sections = [e["attrs"].get("id") for e in dom.elems if e["tag"] == "section"]
check(sections[:1] == ["overview"], "the forest plot is not first: %s" % sections)
check("bounce" in sections, "no bounce section: %s" % sections)
check(sections.index("bounce") < sections.index("throughput"), "bounce after the bars: %s" % sections)
forest = [e for e in dom.elems if inside(e, "overview") and e["attrs"].get("class") == "tb-frow"
          and e["attrs"].get("data-kind") == "metric"]
check(len(forest) > 20, "forest rows: %d" % len(forest))

docs = [json.load(open("%s/res/%d.json" % (work, i))) for i in range(4)]
def samples(doc, name):
    return [m for m in doc["metrics"] if m["name"] == name][0]["samples"]
io = [m["name"] for m in docs[1]["metrics"] if m["name"].startswith(("storage.", "kv."))]
# roles from facts: vm = record 1, bounced = record 2 ("td"), TD = record 3 ("bounce")
rows = [e for e in dom.elems if inside(e, "bounce") and e["tag"] == "tr" and "data-metric" in e["attrs"]]
check(sorted(r["attrs"]["data-metric"] for r in rows) == sorted(io), "table rows: %s" % [r["attrs"] for r in rows])
for r in rows:
    name = r["attrs"]["data-metric"]
    v, b, t = (statistics.median(samples(docs[i], name)) for i in (1, 2, 3))
    if name == "kv.plain.set.latency.p50":
        check("data-share" not in r["attrs"] or abs(t - v) > 0, "%s: a share where none" % name)
        continue
    want = (b - v) / (t - v)
    got = float(r["attrs"].get("data-share", "nan"))
    check(abs(got - want) < 1e-9, "%s: share %s, want %s" % (name, got, want))
    lo, hi = float(r["attrs"].get("data-lo", "nan")), float(r["attrs"].get("data-hi", "nan"))
    check(lo < want < hi and hi - lo < 0.1, "%s: interval [%s, %s] around %s" % (name, lo, hi, want))
    check(abs(want - (0.5 if ".clat." in name else 0.615)) < 0.03, "%s: the synthetic share %s" % (name, want))
    txt = "".join(r["text"])
    check("%.0f %% [" % (100 * want) in txt, "%s: the cell says %r" % (name, txt))
kv = [r for r in rows if r["attrs"]["data-metric"] == "kv.plain.set.latency.p50"]
check(kv and "".join(kv[0]["text"]).find("not slower") >= 0, "the undefined share does not say why")
# the chart: per I/O metric three bars, VM then VM+bounce then TD, of the right records
bars = [e for e in dom.elems if inside(e, "bounce") and e["tag"] == "rect" and "tb-bar" in e["attrs"].get("class", "")]
check(len(bars) == 3 * len(io), "bars: %d for %d metrics" % (len(bars), len(io)))
check([b["attrs"].get("data-series") for b in bars[:3]] == ["1", "2", "3"], "bar order: %s" % [b["attrs"] for b in bars[:3]])
text = "".join(t for e in dom.elems if inside(e, "bounce") and e["tag"] == "svg" for t in e["text"])
check("td (VM+bounce)" in text and "bounce (TD)" in text and "vm (VM)" in text, "bar labels: %r" % text[:400])
check("explains 62 % [" in text, "the bounced bar's note lacks the share")
# rendered: the chart and every row have a box inside the page
for sel, n in (("section#bounce figure > svg", 1), ("section#bounce tr[data-metric]", len(io)),
               ('section#overview g.tb-frow[data-kind="metric"]', len(forest))):
    boxes = p["boxes"][sel]
    check(len(boxes) == n and all(b and b[2] > 0 and b[3] > 0 for b in boxes), "%s: boxes %s" % (sel, boxes[:3]))
fy = min(b[1] for b in p["boxes"]['section#overview g.tb-frow[data-kind="metric"]'])
by = p["boxes"]["section#bounce figure > svg"][0][1]
check(fy < by, "the forest plot is not above the bounce chart")
if bad:
    print("\n".join(bad))
    sys.exit(1)
EOF
pass "the bounce split in Chromium: VM / VM+bounce / TD by their facts, shares with intervals, forest plot first"

# without the TD: the section says what is missing; no shares
"$TB" report "${R[0]}" "${R[1]}" "${R[2]}" -o "$WORK/two.html" >/dev/null || fail "report without a TD"
grep -q 'id="bounce"' "$WORK/two.html" || fail "no bounce section without a TD"
grep -q "the split needs also a TD or SEV-SNP guest" "$WORK/two.html" || fail "does not say the TD is missing"
if grep -q 'data-share=' "$WORK/two.html"; then fail "shares without a TD"; fi
# no bounced VM: no section at all
"$TB" report "${R[0]}" "${R[1]}" "${R[3]}" -o "$WORK/none.html" >/dev/null || fail "report without a bounced VM"
if grep -q 'id="bounce"' "$WORK/none.html"; then fail "a bounce section without a bounced VM"; fi
mkdir "$WORK/md"
"$TB" report "${R[@]}" --format markdown -o "$WORK/md/page.md" >/dev/null || fail "markdown"
[ -s "$WORK/md/page-bounce.svg" ] || fail "markdown: no page-bounce.svg"
grep -Eq '^\| storage\.libaio\.lat-randread\.clat\.p50 \| µs \| 99\.9 \| 130 \| 160 \| 5[01] % \[[0-9]+, [0-9]+\] \|$' "$WORK/md/page.md" ||
  fail "markdown: the share row: $(grep clat.p50 "$WORK/md/page.md" | head -2)"
grep -q '^| kv.plain.set.latency.p50 | ms | .* | - (the TD is not slower than the VM: no extra cost to split) |$' \
  "$WORK/md/page.md" || fail "markdown: the undefined share: $(grep set.latency "$WORK/md/page.md" | head -1)"
pass "without a TD: what is missing; without a bounced VM: no section; markdown: the table and its SVG"
