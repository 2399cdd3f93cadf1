#!/usr/bin/env python3
"""Checks that docs/ARCHITECTURE.md names only things that exist in the tree.

Usage: scripts/check-architecture.py [DOC [ROOT]]
  DOC   the document (default: ROOT/docs/ARCHITECTURE.md)
  ROOT  the source tree (default: the directory above this script)

What it checks, each name once, in the order the document names them:
  - paths under src/, tests/, fuzz/, bench/, scripts/, contrib/, data/, testdata/, docs/
    (`src/cli/attest.c`, `tests/e2e/http.sh`, `src/attest/`): the file or directory
    exists (a path with a `<placeholder>` or a `*` glob is matched as a pattern);
  - a module's file named from its module, as the data-flow diagram and the prose do
    (`cli/attest`, `attest/tdx/collateral|pccs`, `sys/env's`, `load/script.c`): the
    first word a directory under src/, the rest a file there (any extension) or a
    directory; `bench/` may also be the top-level benchmark scripts folder;
  - a bare file name in backquotes (`plan.c`, `test_fleet.c`): some file of that name
    exists under the checked folders;
  - identifiers `tb_*` and `cli_*` (functions, types, macros' lower-case kin): the word
    occurs in src/, tests/ or fuzz/; `tb_report_*` means some word with that prefix; a
    name with an upper-case placeholder (`tb_X_free`) is skipped.
Prints one line per missing name, `DOC:LINE: missing <kind>: <name>`, and exits 1 when
there is one, 0 when everything named exists. Reads only; needs nothing but python3.
"""

import os
import re
import sys

TREE_DIRS = ("src", "tests", "fuzz", "bench", "scripts", "contrib", "data", "testdata", "docs")
CODE_DIRS = ("src", "tests", "fuzz")
SKIP_PARTS = {"build", ".git"}

# A path starts at a word boundary that is not inside another path (`/proc/x`,
# `~/.cache/x`, `DIR/vm/` are not the tree's).
PATH_RE = re.compile(r"(?<![\w./~$<-])([A-Za-z][\w.+-]*(?:/[\w.<>*+|-]+)+/?)")
IDENT_RE = re.compile(r"(?<![\w.])((?:tb|cli)_[A-Za-z0-9_]*\*?)")
BARE_FILE_RE = re.compile(r"`([\w.+-]+\.(?:c|h|sh|py|cmake|yml|lua|js|html))`")


def walk(root, dirs):
    """Every file and directory under ROOT/dirs, as paths relative to ROOT."""
    files, folders = set(), set()
    for top in dirs:
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        folders.add(top)
        for cur, subdirs, names in os.walk(base):
            subdirs[:] = [d for d in subdirs if d not in SKIP_PARTS]
            rel = os.path.relpath(cur, root)
            folders.add(rel)
            for n in names:
                files.add(os.path.join(rel, n))
    return files, folders


def words_in(root, dirs):
    words = set()
    word = re.compile(r"[A-Za-z_]\w*")
    for top in dirs:
        for cur, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs[:] = [d for d in subdirs if d not in SKIP_PARTS]
            for n in names:
                try:
                    with open(os.path.join(cur, n), encoding="utf-8", errors="replace") as f:
                        words.update(word.findall(f.read()))
                except OSError:
                    pass
    return words


def pattern_matches(pattern, entries):
    """`tests/e2e/<name>.sh`, `src/<module>/*.c`: some entry matches."""
    rx = ""
    for part in re.split(r"(<[^>/]*>|\*)", pattern):
        if part == "*" or (part.startswith("<") and part.endswith(">")):
            rx += r"[^/]+"
        else:
            rx += re.escape(part)
    rx = re.compile(rx + r"$")
    return any(rx.match(e) for e in entries)


class Tree:
    def __init__(self, root):
        self.files, self.folders = walk(root, TREE_DIRS)
        self.entries = self.files | self.folders
        self.basenames = {os.path.basename(f) for f in self.files}
        self.modules = {f.split("/")[1] for f in self.folders if f.startswith("src/") and f.count("/") == 1}
        self.stems = {os.path.splitext(f)[0] for f in self.files}
        self.words = words_in(root, CODE_DIRS)

    def has_path(self, path):
        p = path.rstrip("/")
        if "<" in p or "*" in p:
            return pattern_matches(p, self.entries)
        return p in self.entries

    def has_module_file(self, path):
        """`cli/attest`, `attest/snp_*`, `load/script.c`, `bench/memory.sh`."""
        p = path.rstrip("/")
        for cand in ("src/" + p, p):
            if "<" in cand or "*" in cand:
                if pattern_matches(cand, self.entries) or pattern_matches(cand + ".*", self.entries):
                    return True
            elif cand in self.entries or cand in self.stems:
                return True
        return False

    def has_ident(self, ident):
        if ident.endswith("*"):
            prefix = ident[:-1]
            return any(w.startswith(prefix) and w != prefix for w in self.words)
        return ident in self.words


def expand(token):
    """`attest/tdx/collateral|pccs` -> each; `net/sock|tls` -> net/sock, net/tls."""
    head, _, last = token.rpartition("/")
    if "|" not in last or "|" in head:
        return [token]
    return [head + "/" + alt for alt in last.split("|") if alt]


def clean(token):
    token = re.sub(r"'s$", "", token)
    return token.rstrip(".,;:)")


def check(doc, root):
    tree = Tree(root)
    missing = []
    seen = set()

    def miss(lineno, kind, name):
        if (kind, name) not in seen:
            seen.add((kind, name))
            missing.append("%s:%d: missing %s: %s" % (doc, lineno, kind, name))

    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, line in enumerate(lines, 1):
        for m in PATH_RE.finditer(line):
            for token in expand(clean(m.group(1))):
                first = token.split("/")[0]
                if first in TREE_DIRS and first != "bench":
                    if not tree.has_path(token):
                        miss(lineno, "file" if not token.endswith("/") else "directory", token)
                elif (first in tree.modules or first == "bench") and re.match(r"[a-z0-9_.*<>-]+(/|$)", token.split("/", 1)[1]):
                    if not tree.has_module_file(token):
                        miss(lineno, "module file", token)
        for m in BARE_FILE_RE.finditer(line):
            name = m.group(1)
            if name not in tree.basenames:
                miss(lineno, "file", name)
        for m in IDENT_RE.finditer(line):
            ident = m.group(1)
            if ident.rstrip("*").endswith("_") and not ident.endswith("*"):
                continue  # a prefix in prose: "tb_"
            if re.search(r"_[A-Z](_|$)", ident):
                continue  # tb_X_free: a placeholder
            if not tree.has_ident(ident):
                miss(lineno, "identifier", ident)
    return missing


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(argv[2]) if len(argv) > 2 else os.path.dirname(here)
    doc = argv[1] if len(argv) > 1 else os.path.join(root, "docs", "ARCHITECTURE.md")
    if len(argv) > 3:
        sys.stderr.write("usage: check-architecture.py [DOC [ROOT]]\n")
        return 2
    try:
        missing = check(doc, root)
    except OSError as e:
        sys.stderr.write("check-architecture: %s: %s\n" % (doc, e.strerror))
        return 2
    for line in missing:
        print(line)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
