#!/usr/bin/env python3
"""The Python half of tests/test_python_linear.sh: the Python API's calls on
crafted hostile files, with the instructions libzdem executes in each call
counted by callgrind.

  py_linear.py calls JOBS CGLIB    (under valgrind --tool=callgrind
                                    --instr-atstart=no): runs every job,
                                    one callgrind dump per call
  py_linear.py check JOBS CGOUT    reads the dumps (CGOUT.1, CGOUT.2, ...),
                                    compares and prints the verdict

JOBS: one call a line, tab-separated: role (empty: the fixed cost of a
call; corpus: a real demo, whose worst figure per input byte and
returned row is the reference; craft: a hostile file held to 10x that), api (header, events, ticks,
ticks-class, tw-header, tw-players, tw-chat, tw-kills, tw-ticks), seed
(the hash seed parse_events and parse_ticks hand the library: a number, or
"random" for the package's own random seed; parse_header always uses the
built-in seed), path.

Only instructions inside libzdem.so count, and those of the C library
functions it calls (memcpy, strcmp, ...): the interpreter, cffi and pandas
work of the table's flush callback is not the library's. Counts are taken
by object, not by function name (an entry point reached through libffi is
not always named by callgrind). CGLIB: a tiny library whose functions are
callgrind client requests (start instrumenting; zero; dump with a label).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def struct_error():
    return struct.error

# the ticks queries: demoparser2's player names, and a class's property
# (the most numerous class of the CS2 corpus files, as test_source2_linear)
PLAYER_PROPS = ["X", "Y", "Z", "health"]
CLASS_QUERY = {"CPhysicsPropMultiplayer": ["m_iHealth"], "CThing": ["m_iHealth"]}
TW_PROPS = ["x", "y", "vel_x", "health"]
# the crafted class of s2craft.py ticks-empty-frames
CRAFT_CLASS = "CThing"


def read_jobs(path):
    jobs = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                role, api, seed, p = line.split("\t")
                jobs.append((role, api, seed, p))
    return jobs


# parse_ticks and zdem.tw.ticks have no row bound unless asked (max_rows=):
# the calls ask for the CLI's default one (tools/cli.h: 3 rows a byte for
# Source 2, 16 for Teeworlds, and 65,536), as a user reading untrusted
# files should; without it empty frames that repeat every entity's row
# make tens of millions of rows, the caller's memory, not the library's
# work (the library stops as soon as the table's callback says so)
def max_rows(path, per_byte):
    return per_byte * os.path.getsize(path) + 65536


def one_call(zdem, api, path):
    """One public call that makes exactly one library run."""
    import zdem.tw as tw
    if api == "header":
        return zdem.parse_header(path)
    if api == "events":
        return zdem.parse_events(path)
    if api == "ticks":
        return zdem.parse_ticks(path, PLAYER_PROPS, max_rows=max_rows(path, 3))
    if api == "ticks-class":
        cls = CRAFT_CLASS if "ticks-empty-frames" in path else "CPhysicsPropMultiplayer"
        return zdem.parse_ticks(path, CLASS_QUERY[cls], classes=cls, max_rows=max_rows(path, 3))
    if api == "tw-header":
        return tw.header(path)
    if api == "tw-players":
        return tw.players(path)
    if api == "tw-chat":
        return tw.chat(path)
    if api == "tw-kills":
        return tw.kills(path)
    if api == "tw-ticks":
        return tw.ticks(path, TW_PROPS, max_rows=max_rows(path, 16))
    raise SystemExit("unknown api %r" % api)


def calls(jobs_path, cglib):
    import cffi
    import pandas  # noqa: F401  (imported before instrumenting starts)
    import zdem
    import zdem.tw  # noqa: F401
    ffi = cffi.FFI()
    ffi.cdef("void cg_start(void); void cg_zero(void); void cg_dump(const char *);")
    cg = ffi.dlopen(cglib)
    random_seed = zdem._seed
    cg.cg_start()
    for i, (role, api, seed, path) in enumerate(read_jobs(jobs_path)):
        zdem._seed = random_seed if not seed.isdigit() else (lambda s=int(seed): s)
        cg.cg_zero()
        try:
            df = one_call(zdem, api, path)
            out = "rows %d" % len(df)
        except (zdem.DemoError, ValueError) as e:
            # a damaged or refused file is an answer too (RowLimitError is
            # a DemoError); anything else (MemoryError, OSError) is not
            out = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:120])
        cg.cg_dump(("job %d" % i).encode())
        print("%d\t%s" % (i, out), flush=True)


def libzdem_instructions(path):
    """Ir executed in libzdem.so (self), plus the inclusive cost of its
    calls into libc/libm, in one callgrind dump (--dump-instr=no
    --compress-strings=no --compress-pos=no)."""
    ob = cob = None
    label = None
    total = 0
    after_call = False
    with open(path) as f:
        for line in f:
            c = line[0]
            if c.isdigit():
                in_lib = ob is not None and ob.endswith("/libzdem.so")
                if after_call:
                    after_call = False
                    callee = cob if cob is not None else ob
                    cob = None  # given again for each call to another object
                    if in_lib and ("/libc.so" in callee or "/libm.so" in callee):
                        total += int(line.split()[1])
                elif in_lib:
                    total += int(line.split()[1])
                continue
            if line.startswith("ob="):
                ob = line[3:].strip()
            elif line.startswith("cob="):
                cob = line[4:].strip()
            elif line.startswith("calls="):
                after_call = True
            elif line.startswith("cfn=") or line.startswith("cfi=") or line.startswith("cfl="):
                pass
            elif line.startswith("desc: Trigger:"):
                label = line.split("Trigger:", 1)[1].strip()
    return label, total


def check(jobs_path, results_path, cgout):
    jobs = read_jobs(jobs_path)
    outcome = {}
    with open(results_path) as f:
        for line in f:
            i, out = line.rstrip("\n").split("\t", 1)
            outcome[int(i)] = out
    counts = {}
    d = os.path.dirname(cgout) or "."
    base = os.path.basename(cgout)
    for name in os.listdir(d):
        if name.startswith(base + "."):
            label, n = libzdem_instructions(os.path.join(d, name))
            if label and "job " in label:
                counts[int(label.rsplit("job ", 1)[1].split()[0])] = n
    fail = 0
    missing = [i for i in range(len(jobs)) if i not in counts or i not in outcome]
    for i in missing:
        print("FAIL: job %d (%s) has no callgrind dump or no outcome" % (i, "\t".join(jobs[i])))
    fail += len(missing)

    def family(api):  # ticks rows of players and of a class: one reference
        return "ticks" if api == "ticks-class" else api

    chunk_count = {}

    def chunks_of(path):
        # a Teeworlds demo's chunks, tick markers included (the reference
        # reader, tests/tw_snapshot_ref.py): each costs the reader its
        # framing whatever its size, so that a file of 2-byte chunks is
        # held to the corpus's cost per byte and chunk, not per byte alone
        # (a faster corpus, whose chunks are large, must not tighten the
        # bound of a file that is nothing but framing)
        if not path.endswith(".demo"):
            return 0
        if path not in chunk_count:
            import tw_snapshot_ref
            n = 0
            try:
                for idx, _tick, _kind, _payload in tw_snapshot_ref.read_demo_chunks(path):
                    n = idx + 1
            except (ValueError, IndexError, struct_error()):
                pass
            chunk_count[path] = n
        return chunk_count[path]

    def rows_of(out):
        # rows a call returned: work the caller asked for (up to max_rows),
        # counted with the input bytes, so that a file of many cheap rows
        # is held to the corpus's cost per byte and row, not per byte alone
        if out.startswith("rows "):
            return int(out.split()[1])
        if "max_rows=" in out:
            return int(out.split("max_rows=", 1)[1].split()[0])
        return 0

    base = {}
    for i, (role, api, seed, path) in enumerate(jobs):
        if role == "empty" and i in counts:
            base[api] = counts[i]
    worst = {}
    for i, (role, api, seed, path) in enumerate(jobs):
        if role != "corpus" or i not in counts:
            continue
        n = os.path.getsize(path) + rows_of(outcome.get(i, "")) + chunks_of(path)
        p = max(0, counts[i] - base[api]) // n
        if p > worst.get(family(api), (-1,))[0]:
            worst[family(api)] = (p, os.path.basename(path) + (" [class]" if api == "ticks-class" else ""))
    for f in sorted(worst):
        print("corpus worst for %-11s %6d instructions/(byte + row + chunk) (%s)" % (f + ":", worst[f][0], worst[f][1]))
    # zdem.tw.header walks the chunks (for the tick span) and decodes
    # nothing: about one instruction a byte on the corpus's big chunks,
    # and a per-chunk cost on a file of 2-byte chunks; it is a part of
    # what every other zdem.tw call does on the same chunks, so it is held
    # to the smallest of their bounds
    # zdem.parse_header reads the frames before the first packet: on the
    # corpus a small part of a file, on a file of nothing else all of it,
    # the work of a full read; so it is held to the full read's bound
    if "header" in worst and "events" in worst and worst["events"][0] > worst["header"][0]:
        worst["header"] = worst["events"]
        print("header held to the full read's bound: %d (%s)" % worst["header"])
    if "tw-header" in worst:
        others = [worst[f] for f in worst if f.startswith("tw-") and f != "tw-header"]
        if others:
            worst["tw-header"] = min(others)
            print("tw-header held to the smallest other zdem.tw bound: %d (%s)" % worst["tw-header"])
    print("%-34s %-11s %-6s %9s %12s %8s %8s  %s" % ("file", "api", "seed", "bytes", "instructions",
                                                   "per-unit", "limit", "outcome"))
    npass = 0
    for i, (role, api, seed, path) in enumerate(jobs):
        if role != "craft" or i not in counts:
            continue
        n = os.path.getsize(path)
        dd = max(0, counts[i] - base[api])
        # a tiny input's per-byte figure is noise on the fixed cost: it
        # must stay within the limit applied to a 64 KiB input
        p = dd // max(n + rows_of(outcome.get(i, "")) + chunks_of(path), 65536)
        lim = 10 * worst[family(api)][0]
        out = outcome.get(i, "?")
        print("%-34s %-11s %-6s %9d %12d %8d %8d  %s" % (os.path.basename(path)[:34], api, seed, n,
                                                        counts[i], p, lim, out))
        if p > lim:
            print("FAIL: %s %s (seed %s): %d instructions/(byte + row + chunk) > 10 x corpus worst %d"
                  % (os.path.basename(path), api, seed, p, worst[family(api)][0]))
            fail += 1
        elif not (out.startswith("rows ") or out.startswith("DemoError") or out.startswith("RowLimitError")
                  or out.startswith("ValueError")):
            print("FAIL: %s %s (seed %s): %s" % (os.path.basename(path), api, seed, out))
            fail += 1
        else:
            npass += 1
    print("%d passed, %d failed" % (npass, fail))
    return 1 if fail else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "calls":
        calls(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        sys.exit(__doc__)
