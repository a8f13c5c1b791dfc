#!/usr/bin/env python3
"""Runs the three programs of examples/ (built from the installed library or
from the amalgamation) on corpus demos and checks what they print against
independent references: UberDemoTools' obituaries (peers/*.q3-ref.json),
ddnet_demo_c99's kill count and chat (peers/*.tw-ref.json), demoparser2's
game event names (peers/*.cs2-ref.json) and, for the number of game events,
the zdem CLI.

    examples_check.py BINDIR CORPUS [ZDEM_CLI]"""
import glob
import json
import os
import subprocess
import sys

bindir, corpus = sys.argv[1], sys.argv[2]
cli = sys.argv[3] if len(sys.argv) > 3 else None
peers = os.path.join(corpus, "peers")
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(prog, path, damaged=False):
    """The program's lines; exit 0, or 2 on a file its reference calls
    damaged (cut, or the reference parser stopped early)."""
    p = subprocess.run([os.path.join(bindir, prog), path], capture_output=True, timeout=600)
    check(p.returncode in ((0, 2) if damaged else (0,)),
          "%s %s: exit %d %s" % (prog, path, p.returncode, p.stderr[:200]))
    return p.stdout.decode("utf-8", "replace").splitlines()


def ref(name, kind):
    p = os.path.join(peers, "%s.%s.json" % (name, kind))
    return json.load(open(p, encoding="utf-8")) if os.path.exists(p) else None


# Quake III: every obituary (server time, attacker, target) as UDT reports it.
for path in sorted(glob.glob(os.path.join(corpus, "q3", "*.dm_6[678]"))):
    r = ref(os.path.basename(path), "q3-ref")
    if not r or r.get("error"):
        continue
    damaged = bool(r.get("truncated") or r.get("parser_stopped_early"))
    got = [l.split()[:4] for l in run("quake3_events", path, damaged)
           if l.split()[1:2] == ["obituary"]]
    # UDT writes null for the world as attacker, zdem -1
    want = [[str(o["t"]), "obituary",
             str(-1 if o["attacker_client"] is None else o["attacker_client"]),
             str(o["target_client"])] for o in r["obituaries"]]
    check(got == want, "%s: obituaries %d, UDT %d" % (os.path.basename(path), len(got), len(want)))

# Teeworlds: kill messages and chat as ddnet_demo_c99 reports them.
for path in sorted(glob.glob(os.path.join(corpus, "teeworlds", "*.demo"))):
    r = ref(os.path.basename(path), "tw-ref")
    if not r:
        continue
    lines = run("teeworlds_events", path)
    kills = [l for l in lines if l.split()[1:2] == ["kill"]]
    chat = [l.split(" ", 3) for l in lines if l.split()[1:2] == ["chat"]]
    check(len(kills) == r["killmsg_count"], "%s: kills %d, ref %d" % (path, len(kills), r["killmsg_count"]))
    check([(int(c[0]), int(c[2]), c[3] if len(c) > 3 else "") for c in chat] ==
          [(c["tick"], c["client_id"], c["text"]) for c in r["chat"]], "%s: chat differs" % path)

# Source 2: the CS2 demos demoparser2 reads: its event names all appear; the
# count equals the CLI's game events.
for path in sorted(glob.glob(os.path.join(corpus, "source2", "cs2_*14011*.dem")) +
                   glob.glob(os.path.join(corpus, "source2", "cs2_*14155*.dem"))):
    r = ref(os.path.basename(path), "cs2-ref")
    lines = run("source2_events", path)
    names = {l.split()[1] for l in lines if len(l.split()) > 1}
    if r:
        check(set(r["game_events"]) <= names, "%s: demoparser2 events missing: %s" %
              (path, sorted(set(r["game_events"]) - names)))
    if cli:
        p = subprocess.run([cli, "events", "--json", path], capture_output=True, timeout=600)
        n = sum(1 for l in p.stdout.decode().splitlines() if '"type":"game_event"' in l)
        check(n == len(lines) and n > 0, "%s: %d events, CLI %d" % (path, len(lines), n))

print("examples_check: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or not passed else 0)
