"""bench_source2_cpu.sh's driver: zdem's full Source 2 parse in the library
(entities and events: bench_source2_entities --serve) against demoparser2's
parseTicks (bench_source2_cpu_dp2.js), each a long-lived worker, in
interleaved rounds (a zdem parse, then the demoparser2 parse of the same
file), CPU time of each parse (module loads and file reads excluded).
Prints per file and in all: the median CPU ms of each side over the rounds
and the ratio.   bench_source2_cpu.py ROUNDS ZDEM_WORKER FILE..."""
import os
import statistics
import subprocess
import sys


def worker(cmd):
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def ask(p, path):
    p.stdin.write(path + "\n")
    p.stdin.flush()
    out = p.stdout.readline().split()
    if not out or out[0] == "error":
        return None
    return int(out[0]) / 1000.0, int(out[1])


def main():
    rounds, zbin, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    z = worker([zbin, "--serve"])
    d = worker(["node", os.path.join(here, "bench_source2_cpu_dp2.js")])
    assert d.stdout.readline().strip() == "ready"
    work = []
    for path in files:
        r = ask(d, path)
        if r is None or r[1] == 0:
            print("%s: demoparser2 cannot read it (%s): skipped" % (os.path.basename(path),
                                                                    "error" if r is None else "no rows"))
            continue
        ask(z, path)  # warm: both sides have read the file once
        work.append(path)
    per = {p: {"z": [], "d": []} for p in work}
    for _ in range(rounds):
        for path in work:
            per[path]["z"].append(ask(z, path)[0])
            per[path]["d"].append(ask(d, path)[0])
    z.stdin.close()
    d.stdin.close()
    z.wait()
    d.wait()
    print("%-44s | %9s | %9s | %7s" % ("file", "zdem CPU", "dp2 CPU", "ratio"))
    tz = td = 0.0
    for path in work:
        zm, dm = statistics.median(per[path]["z"]), statistics.median(per[path]["d"])
        tz += zm
        td += dm
        print("%-44s | %7.2fms | %7.2fms | %6.1fx" % (os.path.basename(path), zm, dm, dm / zm))
    print("%-44s | %7.2fms | %7.2fms | %6.1fx" % ("all (sum of the medians)", tz, td, td / tz))
    print("(CPU time of one parse, median over %d interleaved rounds; zdem: the library's full parse, "
          "entities and events; demoparser2: parseTicks X Y Z health team_num)" % rounds)


if __name__ == "__main__":
    main()
