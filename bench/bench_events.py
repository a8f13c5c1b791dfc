"""bench_events.sh's driver: zdem.parse_event (in this process) against
demoparser2's parseEvent (in a Node worker, bench_events_dp2.js), the same
calls -- every event name listGameEvents reports, with the same player= and
other= props -- on every CS2 corpus file demoparser2 reads, in interleaved
rounds (a zdem call, then the same demoparser2 call), CPU time of each call
(process_time here, process.cpuUsage there; module loads excluded).
Prints per file and in all: CPU ms of each side (median over rounds of the
round's sum) and the ratio; rows must agree.

  bench_events.py ROUNDS FILE..."""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import zdem  # noqa: E402

PLAYER = ["X", "Y", "Z", "health", "team_num", "active_weapon_name", "kills_total", "inventory",
          "has_helmet", "balance"]
OTHER = ["total_rounds_played", "is_freeze_period", "team_rounds_total", "team_name"]


def main():
    rounds, files = int(sys.argv[1]), sys.argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    node = subprocess.Popen(["node", os.path.join(here, "bench_events_dp2.js")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    assert node.stdout.readline().strip() == "ready"

    def dp2(path, name):
        node.stdin.write(json.dumps([path, name, PLAYER, OTHER]) + "\n")
        node.stdin.flush()
        out = node.stdout.readline().split()
        if out[0] == "error":
            return None
        return int(out[0]) / 1000.0, int(out[2])

    work = []
    for path in files:
        names = zdem.list_game_events(path)
        if dp2(path, names[0]) is None:
            print("%s: demoparser2 cannot read it: skipped" % os.path.basename(path))
            continue
        work.append((path, names))
    per = {p: {"z": [], "d": []} for p, _ in work}
    for _ in range(rounds):
        for path, names in work:
            zt = dt = 0.0
            for name in names:
                c0 = time.process_time()
                df = zdem.parse_event(path, name, player=PLAYER, other=OTHER)
                zt += (time.process_time() - c0) * 1000.0
                d = dp2(path, name)
                dt += d[0]
                assert len(df) == d[1], (path, name, len(df), d[1])
                del df
            per[path]["z"].append(zt)
            per[path]["d"].append(dt)
    node.stdin.close()
    node.wait()
    print("%-44s | %6s | %9s | %9s | %7s" % ("file", "events", "zdem CPU", "dp2 CPU", "ratio"))
    tz = td = 0.0
    for path, names in work:
        z, d = statistics.median(per[path]["z"]), statistics.median(per[path]["d"])
        tz += z
        td += d
        print("%-44s | %6d | %7.1fms | %7.1fms | %6.1fx" % (os.path.basename(path), len(names), z, d, d / z))
    print("%-44s | %6s | %7.1fms | %7.1fms | %6.1fx" % ("all (sum of the medians)", "", tz, td, td / tz))
    print("(CPU time of the calls, median over %d interleaved rounds; each call parses the whole file "
          "for one event name with player=%s other=%s)" % (rounds, ",".join(PLAYER), ",".join(OTHER)))


if __name__ == "__main__":
    main()
