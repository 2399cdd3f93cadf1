#!/usr/bin/env python3
"""Lists the functions a public header exports that only tests call.

Usage: scripts/test-only-exports.py [--all] [ROOT]

A module's public header (src/<module>/*.h other than internal.h) is what other
modules use; an entry point only tests or fuzz targets call belongs in the module's
internal.h. For every function declared in a public header of src/ (src/cli/ is the
binary, not the library, and is left out) this finds its definition and every file of
src/, tests/ and fuzz/ that names it (comments and strings removed; the declaring
header itself does not count), and sorts it into:
  test-only       no file of src/ but its own .c names it: tests or fuzz targets alone
                  call it (these go to internal.h)
  module+tests    outside its module only tests or fuzz targets name it, but another
                  file of its own module uses it too
  unused          nothing names it at all
Prints a count per class and, with --all, every name with its header. Reads only.
"""

import os
import re
import sys

COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
DECL_RE = re.compile(r"\b(tb_\w+)\s*\(")
WORD_RE = re.compile(r"[A-Za-z_]\w*")


def strip(text):
    return COMMENT_RE.sub(lambda m: " " if m.group(0)[0] in "/" else '""', text)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def sources(root, tops):
    for top in tops:
        for cur, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in ("build", ".git", "corpus")]
            for n in names:
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(cur, n), root)


def module_of(rel):
    parts = rel.split("/")
    return parts[1] if parts[0] == "src" and len(parts) > 2 else None


def declared(text):
    """Function names a header declares (prototypes ending in ';', not macros, not
    static inline bodies, not function-pointer members)."""
    names = []
    for stmt in re.split(r";", strip_preproc(strip(text))):
        stmt = stmt.strip()
        if "{" in stmt or stmt.startswith("typedef"):
            stmt = stmt.split("{")[-1].split("}")[-1].strip()
            if not stmt or stmt.startswith("typedef"):
                continue
        m = DECL_RE.search(stmt)
        if m and "(*" not in stmt[: m.start()] and not re.search(r"\bstatic\b", stmt):
            names.append(m.group(1))
    return names


def strip_preproc(text):
    out, cont = [], False
    for line in text.split("\n"):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def main(argv):
    show = "--all" in argv
    args = [a for a in argv[1:] if a != "--all"]
    root = os.path.abspath(args[0]) if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = list(sources(root, ("src", "tests", "fuzz")))
    words = {}
    texts = {}
    for f in files:
        texts[f] = strip(read(os.path.join(root, f)))
        words[f] = set(WORD_RE.findall(texts[f]))
    headers = [f for f in files if f.startswith("src/") and f.endswith(".h") and module_of(f)
               and module_of(f) != "cli" and os.path.basename(f) != "internal.h"]
    defs_of = {}
    def_re = re.compile(r"^[A-Za-z_][\w \t*]*?\b(tb_\w+)\s*\([^;{]*\)\s*\{", re.M)
    for f in files:
        if f.startswith("src/") and f.endswith(".c"):
            for m in def_re.finditer(texts[f]):
                defs_of.setdefault(m.group(1), f)
    classes = {"test-only": [], "module+tests": [], "unused": []}
    total = 0
    for h in sorted(headers):
        mod = module_of(h)
        for name in declared(read(os.path.join(root, h))):
            total += 1
            own = defs_of.get(name)
            users = [f for f in files if name in words[f] and f != own and f != h]
            src_users = [f for f in users if f.startswith("src/")]
            other_mod = [f for f in src_users if module_of(f) != mod]
            test_users = [f for f in users if not f.startswith("src/")]
            if not users:
                cls = "unused"
            elif not src_users:
                cls = "test-only"
            elif not other_mod:
                cls = "module+tests" if test_users else None
            else:
                cls = None
            if cls:
                classes[cls].append((h, name, own, sorted(src_users), sorted(test_users)))
    print("functions declared in public headers of src/ (not src/cli): %d" % total)
    for cls, rows in classes.items():
        print("%-13s %d" % (cls, len(rows)))
        if show:
            for h, name, own, src_users, test_users in rows:
                print("  %s %s (defined in %s; src: %s; tests: %s)" % (
                    h, name, own, " ".join(src_users) or "-", " ".join(os.path.basename(t) for t in test_users) or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
