#!/usr/bin/env python3
"""tw_churn_craft: Teeworlds demos whose deltas churn the snapshot every
way the format allows, valid or not, for comparing two builds of zdem
byte for byte (tests/tw_corpus_outputs.sh on both, then diff -r):

  - items removed, removed twice, absent keys removed, many at once
    (-o mass=); removed and added
    back in the same delta (with a diff against the old item), then named
    again; kept items named twice or three times; new items named twice;
  - characters (the pre-agreed type 9, so that `zdem ticks` has rows),
    player and client info items, and extension types of 0 to 600 ints,
    so that the data area fills with the holes of removed items, and
    deltas over the 64 KiB / 1024-item bounds (dropped, later deltas
    skipped until a full snapshot);
  - with -o bad=1, now and then a delta that changes an item's size (a
    fault: zdem stops there).

The generator keeps a model of the game's rule (kept items in order, then
the delta's new ones) only to pick keys that exist; the two builds'
outputs are the check.

  tw_churn_craft.py OUT [--seed S] [--deltas D] [--items N] [-o bad=1] [-o big=SHARE]
                    [-o mass=SHARE]   (deltas that remove 32 to 79 items)
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import twcraft  # noqa: E402
import tw_snapshot_ref as ref  # noqa: E402

CHAR, PINFO, CINFO = 9, 10, 11


BIG = [0.05]  # share of extension items of 200 to 600 ints (-o big=)


def size_of(t, rng):
    s = ref.STATIC_SIZES.get(t)
    if s is not None:
        return s
    r = rng.random()
    return rng.randrange(200, 600) if r < BIG[0] else rng.randrange(0, 4) if r < 0.5 else rng.randrange(4, 60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deltas", type=int, default=3000)
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("-o", action="append", default=[])
    a = ap.parse_args()
    opts = dict(kv.split("=", 1) for kv in a.o)
    bad = int(opts.get("bad", "0"))
    BIG[0] = float(opts.get("big", "0.05"))
    mass = float(opts.get("mass", "0"))  # share of deltas removing 32 to 79 items
    rng = random.Random(a.seed)
    types = [CHAR, PINFO, CINFO, 0x100, 0x101, 0x2345, 0x7000]

    def new_key():
        t = rng.choice(types)
        i = rng.randrange(0, 64) if t in (CHAR, PINFO, CINFO) else rng.randrange(0, 4000)
        return (t << 16) | i

    d = twcraft.Demo()
    tick = 100
    # model: ordered list of [key, data]
    snap = []

    def full():
        nonlocal snap
        keys, items = set(), []
        for _ in range(a.items):
            k = new_key()
            if k in keys:
                continue
            keys.add(k)
            items.append([k, [rng.randrange(-1000, 1000) for _ in range(size_of(k >> 16, rng))]])
        snap = items
        d.full_snapshot([(k, v) for k, v in items])

    d.tick_marker(tick, keyframe=True)
    full()
    for n in range(a.deltas):
        tick += 1
        key_frame = rng.random() < 0.01
        d.tick_marker(tick, keyframe=key_frame)
        if key_frame:
            full()
            continue
        present = [k for k, _ in snap]
        size = {k: len(v) for k, v in snap}
        removed = []
        if present and mass and rng.random() < mass:
            removed = rng.sample(present, min(len(present), rng.randrange(32, 80)))
            removed.insert(rng.randrange(len(removed)), rng.choice(removed))  # twice
            removed.append(new_key())  # absent, most likely
        elif present and rng.random() < 0.7:
            removed = rng.sample(present, min(len(present), rng.randrange(1, 6)))
            if rng.random() < 0.2:
                removed.append(removed[0])  # twice
            if rng.random() < 0.2:
                removed.append(new_key())  # absent, most likely
        items = []
        for k in removed:
            if k in size and rng.random() < 0.5:
                items.append((k, size[k]))  # added back (diff against the old item)
        for _ in range(rng.randrange(0, 8)):
            if present and rng.random() < 0.6:
                k = rng.choice(present)
                items.append((k, size[k]))  # changed (kept or removed)
            else:
                k = new_key()
                items.append((k, size.get(k, size_of(k >> 16, rng))))
        if items and rng.random() < 0.15:
            items.append(rng.choice(items))  # named twice
        if items and rng.random() < 0.05:
            items += [items[-1]] * 2  # three times
        if bad and items and rng.random() < 0.01:
            k, s = items[0]
            if (k >> 16) not in ref.STATIC_SIZES:
                items[0] = (k, s + 1)  # size changed: a fault
        ints = [len(removed), len(items), 0] + removed
        for k, s in items:
            t = k >> 16
            ints += [t, k & 0xFFFF]
            if ref.STATIC_SIZES.get(t) is None:
                ints.append(s)
            ints += [rng.randrange(-3, 4) for _ in range(s)]
        d.ints_chunk(3, ints)
        # the model: kept items in order, then each delta item (as the game)
        gone = set(removed)
        nxt = [[k, list(v)] for k, v in snap if k not in gone]
        at = {k: i for i, (k, _) in enumerate(nxt)}
        old = dict((k, v) for k, v in snap)
        for k, s in items:
            if k not in at:
                at[k] = len(nxt)
                nxt.append([k, [0] * s])
        if len(nxt) <= 1024 and sum(1 + len(v) for _, v in nxt) * 4 + 8 * len(nxt) < 60000:
            snap = nxt
        # (over the bounds: zdem drops it and skips deltas to the next full
        # snapshot; the model keeps the old keys, which is near enough)
        del old
    open(a.out, "wb").write(d.finish())


if __name__ == "__main__":
    main()
