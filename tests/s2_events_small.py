#!/usr/bin/env python3
"""The player columns of `zdem events --json` (<role>_name, <role>_steamid,
<role>_team_num, after "keys") in the events mode (--small: no entities,
so only what the userinfo table says) against the full run:

  s2_events_small.py FULL SMALL   every line the same event; each player
                                  column the small run fills equal to the
                                  full run's; no team (it needs entities)
  s2_events_small.py --strip FILE rewrites FILE without the player columns
                                  (for a byte comparison of the events)
"""
import json
import sys

BASE = ("tick", "type", "name", "keys")


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    if sys.argv[1] == "--strip":
        path = sys.argv[2]
        out = [json.dumps({k: d[k] for k in BASE if k in d}, ensure_ascii=False, separators=(",", ":"))
               for d in lines(path)]
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in out))
        return 0
    full, small = lines(sys.argv[1]), lines(sys.argv[2])
    bad = 0
    if len(full) != len(small):
        print("events: %d in the full run, %d in the events mode" % (len(full), len(small)))
        return 1
    named = 0
    for i, (f, s) in enumerate(zip(full, small)):
        for k, v in s.items():
            if k in BASE:
                continue
            if k.endswith("_team_num") and v is not None:
                print("event %d: %s = %r in the events mode (no entities, no team)" % (i, k, v))
                bad += 1
            elif v is not None and f.get(k) != v:
                print("event %d: %s = %r in the events mode, %r in the full run" % (i, k, v, f.get(k)))
                bad += 1
            named += v is not None
    print("events mode: %d events, %d player values equal to the full run's" % (len(small), named))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
