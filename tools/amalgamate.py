#!/usr/bin/env python3
"""Writes the amalgamation: zdem.h (the public API, every public header
inlined once) and zdem.c (every runtime and generated source, with the
private headers inlined), so that a device project needs nothing but a C
compiler: `cc -c zdem.c`.

    tools/amalgamate.py [--source ROOT] [--generated DIR] --out DIR

Sources keep their own text; each is preceded by a `/* ---- path */` line.
Macros a source file defines for itself are #undef'd after it, so that two
files may use the same local macro name. Two file-scope static names that
clash across files are an error here (rename one), because the compiler
would report them less clearly."""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')
DEFINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)')
STATIC = re.compile(r'^static\s+(?:inline\s+)?(?:const\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*[\(\[=;]', re.M)
LAYERS = ("source2", "quake3", "teeworlds")
UMBRELLA = "zdem.h"


def find(name, dirs):
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    sys.exit("amalgamate.py: header not found: %s" % name)


def inline(path, dirs, done, out, root):
    """Appends path's text to out with its "local" includes inlined, each
    header once (done holds the names already emitted)."""
    out.append("/* ---- %s */\n" % os.path.relpath(path, root))
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = INCLUDE.match(line)
            if m:
                name = m.group(1)
                if name not in done:
                    done.add(name)
                    inline(find(name, dirs), dirs, done, out, root)
                continue
            out.append(line)
    if not out[-1].endswith("\n"):
        out.append("\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=os.path.dirname(here))
    ap.add_argument("--generated")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    root = os.path.abspath(a.source)
    gen = os.path.abspath(a.generated or os.path.join(root, "generated"))
    rt = os.path.join(root, "runtime")
    dirs = [rt] + [os.path.join(rt, l) for l in LAYERS] + [gen]

    with open(os.path.join(rt, "zdem_version.h"), encoding="utf-8") as f:
        version = re.search(r'ZDEM_VERSION_STRING "([^"]+)"', f.read()).group(1)
    banner = ("/* zdem %s amalgamation, written by tools/amalgamate.py from the zdem\n"
              " * sources: do not edit. C11, no allocation, no stdio. */\n" % version)

    # zdem.h: the umbrella with every public header inlined once.
    hdone = {UMBRELLA}
    h = [banner]
    inline(os.path.join(rt, UMBRELLA), dirs, hdone, h, root)

    # zdem.c: everything else; headers zdem.h already holds are skipped.
    sources = sorted(os.path.join(rt, f) for f in os.listdir(rt) if f.endswith(".c"))
    for l in LAYERS:
        d = os.path.join(rt, l)
        sources += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".c"))
    sources += sorted(os.path.join(gen, f) for f in os.listdir(gen) if f.endswith(".c"))
    c = [banner, '#include "zdem.h"\n']
    cdone = set(hdone)
    statics = {}
    for src in sources:
        with open(src, encoding="utf-8") as f:
            text = f.read()
        for name in STATIC.findall(text):
            statics.setdefault(name, []).append(os.path.relpath(src, root))
        local_macros = [m.group(1) for m in map(DEFINE.match, text.splitlines()) if m]
        part = []
        inline(src, dirs, cdone, part, root)
        c += part
        for name in local_macros:
            c.append("#undef %s\n" % name)
    clash = {n: fs for n, fs in statics.items() if len(set(fs)) > 1}
    if clash:
        for n, fs in sorted(clash.items()):
            print("amalgamate.py: static %s in %s" % (n, ", ".join(sorted(set(fs)))), file=sys.stderr)
        sys.exit(1)

    os.makedirs(a.out, exist_ok=True)
    for name, lines in (("zdem.h", h), ("zdem.c", c)):
        tmp = os.path.join(a.out, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(lines)
        os.replace(tmp, os.path.join(a.out, name))


if __name__ == "__main__":
    main()
