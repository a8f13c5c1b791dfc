"""zdem's side of bench_ticks.sh: zdem.parse_ticks(FILE, X Y Z health
team_num) for every player at every tick, as one Python call, best of N in
this process (imports excluded). Prints: best_ms rows rss_before_kb peak_kb."""
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import zdem  # noqa: E402


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


path, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
before = rss_kb()
best, rows = None, 0
for _ in range(n):
    t0 = time.perf_counter()
    df = zdem.parse_ticks(path, ["X", "Y", "Z", "health", "team_num"])
    dt = time.perf_counter() - t0
    rows = len(df)
    del df
    best = dt if best is None or dt < best else best
print("%.3f %d %d %d" % (best * 1000, rows, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
