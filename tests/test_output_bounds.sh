#!/bin/sh
# Output bounds (issue 26): `dump` stops after --max-output bytes and `ticks`
# after --max-rows rows, by default a multiple of the input's size, with a
# warning naming the option and exit status 0. Crafted inputs whose output
# has no natural bound (tests/s2craft.py: frames of nothing that inflate
# into millions of one-line inner messages; empty frames that repeat 1024
# entities' rows every 4 bytes; a Teeworlds snapshot of 600 characters
# followed by empty deltas, tests/tw_limitcraft.py), and corpus demos with
# explicit bounds: the rows and lines printed are exactly those before the
# bound, each checked against what the generator wrote.
set -eu
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRC/tests/cli_test_prelude.sh" bounds
exec "$PY" - "$SRC/tests" <<'PYEOF'
import json, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import s2craft, tw_limitcraft

import zdem_cli_test as T
from zdem_cli_test import check, write

T.ZDEM, CORPUS = os.environ["ZDEM"], os.environ["CORPUS"]


def run(args):
    return T.run(args, raw=True)



# ---- Source 2 ticks: 1024 entities, 16000 empty frames ---------------------
path = write("s2-empty-frames.dem", s2craft.GENERATORS["ticks-empty-frames"].build(16000))
size = os.path.getsize(path)
bound = 3 * size + 65536
rc, out, err = run(["ticks", path, "--class", "CThing", "--props", "m_iHealth"])
rows = [json.loads(l) for l in out.splitlines()]
check(rc == 0, "s2 ticks: exit 0 at the bound (rc %d: %s)" % (rc, err.strip()))
check(len(rows) == bound, "s2 ticks: %d rows, the default bound is %d" % (len(rows), bound))
check("output limit" in err and "--max-rows" in err, "s2 ticks: the warning names --max-rows (%s)" % err.strip())
# every row as the generator wrote it: entity i has health i, 1024 a tick
check(all(r["m_iHealth"] == r["entity"] for r in rows), "s2 ticks: m_iHealth == entity index")
check(len(set(r["tick"] for r in rows[:4096])) == 4, "s2 ticks: 1024 rows a tick")
rc, out, err = run(["ticks", path, "--class", "CThing", "--props", "m_iHealth", "--max-rows", "1000",
                    "--format", "csv"])
lines = out.decode().splitlines()
check(rc == 0 and len(lines) == 1001 and lines[0] == "tick,entity,m_iHealth",
      "s2 ticks --max-rows 1000 --format csv: a header and 1000 rows (rc %d, %d lines)" % (rc, len(lines)))

# ---- Source 2 dump: two 2 MiB frames of nothing --------------------------
path = write("s2-zero-frames.dem", s2craft.GENERATORS["dump-zero-frames"].build(2, mib=2))
size = os.path.getsize(path)
bound = 8 * size + 65536
rc, out, err = run(["dump", "--json", path])
lines = out.decode().splitlines()
check(rc == 0, "s2 dump: exit 0 at the bound (rc %d: %s)" % (rc, err.strip()))
check(bound <= len(out) <= bound + 200, "s2 dump: %d bytes, the default bound is %d" % (len(out), bound))
inner = [json.loads(l) for l in lines if '"kind":"inner"' in l]
zero = [m for m in inner if m["tick"] >= 1]  # the frames of nothing (the set-up is at tick -1)
check(len(zero) > 10000 and all(m["id"] == 0 and m["size"] == 0 for m in zero),
      "s2 dump: the inner messages of the frames of nothing are all empty (id 0, size 0)")
check("--max-output" in err, "s2 dump: the warning names --max-output (%s)" % err.strip())
rc, out, err = run(["dump", path, "--max-output", "5000"])
check(rc == 0 and 5000 <= len(out) <= 5200, "s2 dump --max-output 5000: %d bytes (rc %d)" % (len(out), rc))

# ---- Teeworlds: 600 characters, then 3000 empty deltas -------------------
demo = os.path.join(CORPUS, "teeworlds", "ddnet_demo-edit-test2-pepeg-v5.demo")
chars = [(9, i, [0, i] + [0] * 20) for i in range(600)]  # obj_character: 22 ints (tick, x, ...), x = id
path = write("tw-empty-deltas.demo", tw_limitcraft.append_chunks(
    open(demo, "rb").read(), [tw_limitcraft.full_snapshot(chars)] + [tw_limitcraft.chunk(3, [0, 0, 0])] * 3000))
rc, out, err = run(["ticks", path, "--props", "x", "--max-rows", "5000"])
rows = [json.loads(l) for l in out.splitlines()]
check(rc == 0 and len(rows) == 5000, "tw ticks --max-rows 5000: %d rows (rc %d: %s)" % (len(rows), rc, err.strip()))
check("--max-rows" in err, "tw ticks: the warning names --max-rows")
rc, out, err = run(["ticks", path, "--props", "x", "--max-rows", "100000000"])
rows = [json.loads(l) for l in out.splitlines()]
crafted = [r for r in rows if r["x"] == r["entity"] and r["entity"] < 600]
check(rc == 0 and len(crafted) >= 600 * 3000, "tw ticks unbounded: 600 characters x 3001 snapshots "
      "(%d such rows)" % len(crafted))
size = os.path.getsize(path)
rc, out, err = run(["dump", "--json", path, "--max-output", "3000"])
check(rc == 0 and 3000 <= len(out) <= 3300 and "--max-output" in err,
      "tw dump --max-output 3000: %d bytes (rc %d)" % (len(out), rc))

# ---- Quake III: a corpus demo with explicit bounds -----------------------
demo = os.path.join(CORPUS, "q3", "q3-cpma_udt-duel.dm_68")
rc, out, err = run(["ticks", demo, "--class", "entity", "--props", "eType", "--max-rows", "100"])
check(rc == 0 and len(out.splitlines()) == 100 and "--max-rows" in err,
      "q3 ticks --max-rows 100 (rc %d, %d rows)" % (rc, len(out.splitlines())))
rc, full, _ = run(["dump", "--json", demo])
rc, out, err = run(["dump", "--json", demo, "--max-output", "10000"])
check(rc == 0 and 10000 <= len(out) <= 10400 and full.startswith(out) and "--max-output" in err,
      "q3 dump --max-output 10000: the first %d bytes of the full dump (rc %d)" % (len(out), rc))

# ---- usage ---------------------------------------------------------------
rc, _, err = run(["dump", demo, "--max-rows", "5"])
check(rc == 1 and "--max-rows is for ticks" in err, "--max-rows with dump is a usage error (rc %d)" % rc)
rc, _, err = run(["ticks", demo, "--props", "x", "--max-output", "5"])
check(rc == 1 and "--max-output is for dump" in err, "--max-output with ticks is a usage error (rc %d)" % rc)
rc, _, err = run(["info", demo, "--max-work", "0"])
check(rc == 1, "--max-work 0 is a usage error (rc %d)" % rc)

sys.exit(T.finish())
PYEOF
