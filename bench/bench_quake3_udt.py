#!/usr/bin/env python3
"""Quake III batch, end to end, one process per file: `zdem events --json`
against UberDemoTools' `UDT_json -c -q -a=gmd` (game states, chat, deaths),
both writing their JSON to a pipe that is read and dropped. UberDemoTools
is not built here (bench/peers/ is git-ignored; build it from
mightycow/uberdemotools the way ../shared/corpus/peers/ says and point
ZDEM_UDT_JSON at the binary). Wall time (best of N rounds) and the
children's CPU time (user + system, best of N) are printed, with the
ratio UDT / zdem. Numbers only: nothing here asserts on time.
Usage: bench_quake3_udt.py ZDEM_BIN CORPUS_DIR [ROUNDS]"""
import os
import re
import resource
import subprocess
import sys
import time


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def batch(cmd, files):
    t0, c0 = time.perf_counter(), cpu()
    for f in files:
        subprocess.run(cmd + [f], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, cpu() - c0


def main():
    zdem, corpus = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    here = os.path.dirname(os.path.abspath(__file__))
    udt = os.environ.get("ZDEM_UDT_JSON", os.path.join(here, "peers", "UDT_json"))
    q3 = os.path.join(corpus, "q3")
    # every demo UberDemoTools reads (dm3 .. dm_91; not ioquake3's dm_71)
    files = sorted(os.path.join(q3, f) for f in os.listdir(q3)
                   if re.search(r"\.dm(3|_48|_6[678]|_7[3]|_9[01])$", f))
    mb = sum(os.path.getsize(f) for f in files) / 1e6
    if not os.access(udt, os.X_OK):
        print("quake3 batch vs UberDemoTools: skipped (no UDT_json at %s; set ZDEM_UDT_JSON)" % udt)
        return
    zc = [zdem, "events", "--json"]
    uc = [udt, "-c", "-q", "-a=gmd"]
    best = {"zdem": [1e9, 1e9], "udt": [1e9, 1e9]}
    for _ in range(rounds):
        for name, cmd in (("zdem", zc), ("udt", uc)):
            w, c = batch(cmd, files)
            best[name][0] = min(best[name][0], w)
            best[name][1] = min(best[name][1], c)
    print("quake3 batch: %d demos, %.1f MB, one process per file, best of %d rounds" % (len(files), mb, rounds))
    print("%-38s %8s %8s %8s" % ("", "wall s", "MB/s", "cpu s"))
    for name, cmd in (("zdem", zc), ("udt", uc)):
        w, c = best[name]
        print("%-38s %8.3f %8.1f %8.3f" % (" ".join([os.path.basename(cmd[0])] + cmd[1:]), w, mb / w, c))
    print("ratio UDT/zdem: wall %.2fx, cpu %.2fx (target >= 3x)"
          % (best["udt"][0] / best["zdem"][0], best["udt"][1] / best["zdem"][1]))


if __name__ == "__main__":
    main()
