#!/usr/bin/env bash
# e2e: a results store someone else made (`--db` on a file a peer sent) -- built here
# with python3's sqlite3 from a good store: `runs` replaced by a view with an endless
# recursive CTE (`results list` and `compare` hung on it), a trigger that deletes
# the other runs' samples on the next import, an index teebench did not create.
# Each is refused at once with one line naming the object, and the file is left as
# it was (no sample deleted); the good store it came from still works.
source "$(dirname "$0")/lib.sh"

SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
D=$SRC/tests/data/import
GOOD=$WORK/good.db
"$TB" results --db "$GOOD" import --label host "$D/syscall.json" >/dev/null
"$TB" results --db "$GOOD" import --label td "$D/http.json" >/dev/null
"$TB" compare --db "$GOOD" host td >/dev/null || fail "compare on the good store"

# hostile NAME SQL: a copy of the good store changed by another SQLite client
hostile() {
  cp "$GOOD" "$WORK/$1.db"
  python3 - "$WORK/$1.db" "$2" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript(sys.argv[2])
c.commit()
c.close()
EOF
}
samples() {
  python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from samples").fetchone()[0])' "$1"
}
# refused DB WANT CMD...: teebench CMD on DB fails within 5 s with one line holding
# WANT, and DB is byte for byte what it was
refused() {
  local db=$1 want=$2 sum t0 t1; shift 2
  sum=$(sha256sum <"$db")
  t0=$(date +%s%N)
  expect_fail 1 timeout 20 "$TB" "$1" --db "$db" "${@:2}"
  t1=$(date +%s%N)
  [ $(((t1 - t0) / 1000000)) -lt 5000 ] || fail "$*: took $(((t1 - t0) / 1000000)) ms to refuse"
  grep -qF "$want" "$WORK/err" || fail "$*: $(cat "$WORK/err")"
  [ "$(sha256sum <"$db")" = "$sum" ] || fail "$*: the store was changed"
}

hostile view "ALTER TABLE runs RENAME TO runs_real;
CREATE VIEW runs AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)
  SELECT runs_real.* FROM runs_real, r;"
refused "$WORK/view.db" 'not a teebench results store: it has a view "runs" that teebench did not create' results list
refused "$WORK/view.db" 'it has a view "runs"' compare host td
refused "$WORK/view.db" 'it has a view "runs"' results show host
pass "runs replaced by an endless view: results list, compare, show refuse at once"

hostile trigger "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN
  DELETE FROM samples WHERE metric_id NOT IN (SELECT id FROM metrics WHERE run_id = NEW.id); END;"
before=$(samples "$WORK/trigger.db")
refused "$WORK/trigger.db" 'it has a trigger "wipe" that teebench did not create' results import "$D/probe.json"
[ "$(samples "$WORK/trigger.db")" -eq "$before" ] || fail "samples deleted"
refused "$WORK/trigger.db" 'it has a trigger "wipe"' results list
pass "a trigger that deletes other runs' samples: the import refused, nothing deleted"

hostile index "CREATE INDEX extra ON samples(value);"
refused "$WORK/index.db" 'it has an index "extra" that teebench did not create' results list
hostile column "ALTER TABLE metrics ADD COLUMN x DEFAULT 1;"
refused "$WORK/column.db" 'its table "metrics" is not the one schema version 1 defines' compare host td
pass "an index or a column teebench did not create: refused"

# the good store works on: list, compare, import
"$TB" results --db "$GOOD" list | grep -q ' host ' || fail "list on the good store"
"$TB" compare --db "$GOOD" host td >/dev/null || fail "compare on the good store"
"$TB" results --db "$GOOD" import "$D/probe.json" | grep -q '^imported ' || fail "import into the good store"
[ "$(samples "$GOOD")" -gt "$before" ] || fail "the good store's samples"
pass "the good store: list, compare, import"
