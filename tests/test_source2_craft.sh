#!/bin/bash
# Synthetic demos whose every value is known because we wrote them
# (tests/s2craft.py): the normal demo at three seeds and the fuzzing seeds
# must decode to exactly what was written (info, events, entities, seeks;
# the checker also passes every protobuf message through protoc and every
# Snappy stream through libsnappy), every hostile generator must end in
# exit 0 or 2, and the two generators that record their truth -- field
# paths beyond any packed 64-bit key, property names with NUL and odd
# bytes -- must come out property for property.
set -u
here=$(cd "$(dirname "$0")" && pwd)
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
Z=${ZDEM_BIN:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
rc=0
"$PY" "$here/s2craft_check.py" --zdem "$Z" --seeds 1,2,3 --smoke || rc=1
for g in deep-fieldpaths odd-names; do
    "$PY" "$here/s2craft.py" "$g" "$work/$g.dem" --expect "$work/$g.json" >/dev/null || { echo "FAIL: $g"; rc=1; continue; }
    "$Z" entities --json "$work/$g.dem" > "$work/$g.out" 2>"$work/$g.err"
    st=$?
    "$PY" - "$work/$g.json" "$work/$g.out" "$st" "$g" <<'EOF' || rc=1
import json, sys
exp = json.load(open(sys.argv[1]))["entities"]
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
pairs = [json.loads(l, object_pairs_hook=lambda p: p) for l in lines]
got = {dict(p)["index"]: dict(p) for p in pairs}
bad = []
if sys.argv[3] != "0":
    bad.append("exit %s" % sys.argv[3])
for e in exp:
    g = got.get(e["index"])
    if g is None:
        bad.append("entity %d missing" % e["index"])
        continue
    keys = [k for k, _ in g["props"]]
    if len(keys) != len(set(keys)):
        bad.append("entity %d: duplicate property names" % e["index"])
    props = dict(g["props"])
    if props != e["props"]:
        diff = [k for k in set(props) | set(e["props"]) if props.get(k) != e["props"].get(k)]
        bad.append("entity %d: %d properties differ, e.g. %r" % (e["index"], len(diff), diff[:3]))
print("%s: %d entities, %s" % (sys.argv[4], len(exp), "; ".join(bad) if bad else "exactly as written"))
sys.exit(1 if bad else 0)
EOF
done
[ $rc -eq 0 ] && echo "ok" || echo "FAILED"
exit $rc
