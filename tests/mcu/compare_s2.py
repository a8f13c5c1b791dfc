#!/usr/bin/env python3
"""Compares the Source 2 events the events firmware printed under QEMU
(tests/mcu/firmware_s2.c, events mode, push input, 1 MiB of RAM) with the
host's full-memory `zdem events --json` output, line by line.

    compare_s2.py FIRMWARE_OUTPUT HOST_DIR DEMO...

HOST_DIR/<name>.events.json holds the host CLI's stdout for each demo.
Floats come from the firmware as bit patterns ({"f32": "3f800000"}); they
are formatted as the CLI does (%.9g for floats, %.17g for doubles, null
when not finite) before the comparison. Also checks each demo ended
without error or limit warning, and the stack and arena against the
linker's budget. Exit status 0 when everything matches.
"""
import json
import math
import os
import struct
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def cli_float(x, fmt):
    if math.isnan(x) or math.isinf(x):
        return None
    return json.loads(fmt % x)


def norm(v):
    if isinstance(v, dict) and len(v) == 1 and ("f32" in v or "f64" in v):
        if "f32" in v:
            return cli_float(struct.unpack(">f", bytes.fromhex(v["f32"]))[0], "%.9g")
        return cli_float(struct.unpack(">d", bytes.fromhex(v["f64"]))[0], "%.17g")
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v


def main():
    fw_out, host_dir = sys.argv[1:3]
    demos = [os.path.basename(d) for d in sys.argv[3:]]
    events, ends, memory, current = {}, {}, None, None
    with open(fw_out, encoding="utf-8") as f:
        for ln in f:
            ln = ln.strip()
            if not ln.startswith("{"):
                continue
            try:
                obj = json.loads(ln)
            except ValueError as e:
                fail("firmware printed invalid JSON (%s): %s" % (e, ln[:200]))
                continue
            if obj.get("mcu") == "memory":
                memory = obj
            elif obj.get("mcu_s2") == "begin":
                current = obj["file"]
                events[current] = []
            elif obj.get("mcu_s2") == "end":
                ends[obj["file"]] = obj
                current = None
            elif "mcu_format" in obj:
                continue
            elif current is not None:
                events[current].append(norm(obj))
    for name in demos:
        if name not in ends:
            fail("%s: no output from the firmware" % name)
            continue
        end = ends[name]
        if end.get("error") is not None or end.get("mcu_error"):
            fail("%s: firmware error %r" % (name, end.get("error") or end.get("mcu_error")))
        if end.get("warnings"):
            fail("%s: firmware warnings %r" % (name, end["warnings"]))
        with open(os.path.join(host_dir, name + ".events.json"), encoding="utf-8") as f:
            # the host's player columns (<role>_name ..., from entities) are
            # not the events mode's: the events themselves are compared
            # (tests/test_small_limits.sh checks those columns)
            host = [{k: v for k, v in json.loads(ln).items() if k in ("tick", "type", "name", "keys")}
                    for ln in f if ln.strip()]
        got = events.get(name, [])
        if not host:
            fail("%s: the host printed no events" % name)
        if len(got) != len(host):
            fail("%s: %d events on the firmware, %d on the host" % (name, len(got), len(host)))
        for i, (a, b) in enumerate(zip(got, host)):
            if a != b:
                fail("%s: event %d differs: firmware %s, host %s"
                     % (name, i, json.dumps(a)[:300], json.dumps(b)[:300]))
                break
        else:
            if len(got) == len(host):
                print("ok: %s: %d events equal to the host's `zdem events --json`; arena peak "
                      "%d bytes, largest payload %d, %d frames unread, %d-byte pieces"
                      % (name, len(got), end["mcu_arena_peak"], end["mcu_max_payload"],
                         end["mcu_frames_unread"], end["mcu_piece_bytes"]))
    if memory is None:
        fail("no memory report from the firmware")
    else:
        if memory["stack_used"] >= memory["stack_size"]:
            fail("stack overflow: used %d of %d" % (memory["stack_used"], memory["stack_size"]))
        if memory["arena_used"] > memory["arena_available"]:
            fail("arena too small")
        print("memory: RAM %d bytes: .data %d + .bss %d, arena peak %d of %d, stack high-water "
              "%d of %d; demos in flash %d"
              % (memory["ram"], memory["data"], memory["bss"], memory["arena_used"],
                 memory["arena_available"], memory["stack_used"], memory["stack_size"],
                 memory["demos_flash"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
