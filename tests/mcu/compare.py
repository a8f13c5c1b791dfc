#!/usr/bin/env python3
"""Compares the facts the zdem firmware printed under QEMU with the host.

    compare.py FIRMWARE_OUTPUT CORPUS EXPECTED_MD DEMO... [--host HOST_JSON_DIR]
               [--facts FACTS_DIR]

For each demo: every key the firmware printed must equal the host's
`zdem info --json` value (HOST_JSON_DIR/<name>.json, written by
tests/test_mcu_qemu.sh), and the core facts must also equal the corpus
collector's values in EXPECTED.md (B2 Teeworlds, B3 Quake III), which do not
come from our code. When the host CLI does not (yet) print the core keys of
a format, only the EXPECTED.md check is made and a note says so. A crafted
demo (not in EXPECTED.md) is held to its writer's facts instead:
FACTS_DIR/<name>.json, the "info" of tests/tw07craft.py --facts.
Exit status 0 when everything matches.
"""
import json
import os
import re
import sys

Q3_CORE = ["protocol", "messages", "first_sequence", "gamestates", "snapshots",
           "first_server_time", "last_server_time", "map_name", "client_num"]
ZDEM_TW_CORE = ["version", "map_name", "map_size", "map_crc_ok", "first_tick", "last_tick",
           "tick_markers", "keyframes", "chunks"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def table_rows(md, heading):
    """Rows (dicts by header) of the first markdown table after heading."""
    i = md.find(heading)
    if i < 0:
        return {}
    lines = md[i:].splitlines()
    rows, header = {}, None
    for ln in lines[1:]:
        if not ln.startswith("|"):
            if header:
                break
            continue
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if set(ln.replace("|", "").strip()) <= set("-: "):
            continue
        rows[cells[0]] = dict(zip(header, cells))
    return rows


def expected_q3(row):
    out = {}
    m = re.match(r"(\d+) (whole )?msgs", row.get("framing", ""))
    if m:
        out["messages"] = int(m.group(1))
    if row.get("seq0", "").lstrip("-").isdigit():
        out["first_sequence"] = int(row["seq0"])
    if row.get("map"):
        out["map_name"] = row["map"]
    return out


def expected_tw(row):
    out = {"version": int(row["ver"]), "map_name": row["map"],
           "map_size": int(row["map_size"]), "map_crc": int(row["map_crc"], 16),
           "length": int(row["length_s"]), "data_offset": None}
    a, b = row["ticks"].split("..")
    out["first_tick"], out["last_tick"] = int(a), int(b)
    out["tick_markers"] = int(row["markers"])
    out["keyframes"] = int(row["kf"])
    rest = row["delta / checks"]
    out["chunks"] = {"snapshot": int(row["snap"]), "message": int(row["msg"]),
                     "delta": int(re.search(r"delta=(\d+)", rest).group(1))}
    out["map_crc_ok"] = "crc_ok=True" in rest
    del out["data_offset"]
    return out


def main():
    args = sys.argv[1:]
    host_dir = facts_dir = None
    if "--host" in args:
        k = args.index("--host")
        host_dir = args[k + 1]
        del args[k:k + 2]
    if "--facts" in args:
        k = args.index("--facts")
        facts_dir = args[k + 1]
        del args[k:k + 2]
    fw_out, corpus, expected_md = args[:3]
    demos = args[3:]

    fw = {}
    memory = None
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
                continue
            fw.setdefault(obj.pop("file"), {}).update(obj)

    md = open(expected_md, encoding="utf-8").read()
    b2 = table_rows(md, "### B2.")
    b3 = table_rows(md, "### B3.")

    for path in demos:
        name = os.path.basename(path)
        got = fw.get(name)
        if got is None:
            fail("%s: no output from the firmware" % name)
            continue
        for k in [k for k in got if k.startswith("mcu_")]:
            if k in ("mcu_state_bytes", "mcu_stack_bytes", "mcu_format"):
                continue  # information, not facts
            if k == "mcu_limit_hits":
                if got[k] != 0:
                    fail("%s: %d snapshots over the small limits" % (name, got[k]))
                continue
            if k == "mcu_push":
                if got[k].get("equal") is not True:
                    fail("%s: push (streaming) pass differs from the whole-file pass: %r"
                         % (name, got[k]))
                continue
            fail("%s: firmware reports %s=%r" % (name, k, got[k]))
        nfail = len(failures)
        fmt = got.get("format")
        source = "EXPECTED.md"
        if got.get("error") is not None:
            fail("%s: firmware error %r" % (name, got.get("error")))

        if "mcu_push" not in got:
            fail("%s: no push (streaming) pass reported" % name)

        # 1. EXPECTED.md (independent of our code)
        if fmt == "quake3":
            exp = expected_q3(b3.get(name, {}))
            core = Q3_CORE
        else:
            exp = expected_tw(b2[name]) if name in b2 else {}
            if not exp and facts_dir and os.path.exists(os.path.join(facts_dir, name + ".json")):
                with open(os.path.join(facts_dir, name + ".json"), encoding="utf-8") as f:
                    exp = json.load(f)["info"]  # the writer's own account
                source = "the writer's facts"
            core = ZDEM_TW_CORE
        if not exp:
            fail("%s: not in EXPECTED.md B2/B3" % name)
        for k, v in exp.items():
            if got.get(k) != v:
                fail("%s: %s: firmware %r, EXPECTED.md %r" % (name, k, got.get(k), v))
        n_exp = len(exp)

        # 2. the host CLI
        host = None
        if host_dir:
            hp = os.path.join(host_dir, name + ".json")
            try:
                with open(hp, encoding="utf-8") as f:
                    txt = f.read().strip()
                host = json.loads(txt.splitlines()[0]) if txt else None
            except (OSError, ValueError, IndexError):
                host = None
        if host is None or any(k not in host for k in core):
            print("NOTE: %s: host `zdem info --json` lacks the %s keys; compared with "
                  "EXPECTED.md only (%d facts)" % (name, fmt, n_exp))
            continue
        same, missing = 0, []
        for k, v in got.items():
            if k.startswith("mcu_"):
                continue
            if k not in host:
                missing.append(k)
                continue
            if host[k] != v:
                a, b = json.dumps(v)[:200], json.dumps(host[k])[:200]
                fail("%s: %s: firmware %s, host %s" % (name, k, a, b))
            else:
                same += 1
        not_on_fw = sorted(k for k in host if k not in got)
        if len(failures) > nfail:
            continue
        print("ok: %s (%s): %d keys equal to the host, %d facts equal to %s%s%s%s" % (
            name, fmt, same, n_exp, source,
            "; push pass in %d-byte pieces equal" % got["mcu_push"]["piece_bytes"]
            if "mcu_push" in got else "",
            "; firmware-only keys: " + ",".join(missing) if missing else "",
            "; host-only keys: " + ",".join(not_on_fw) if not_on_fw else ""))

    if memory is None:
        fail("no memory report from the firmware")
    else:
        if memory["stack_used"] >= memory["stack_size"]:
            fail("stack overflow: used %d of %d" % (memory["stack_used"], memory["stack_size"]))
        if memory["arena_used"] > memory["arena_available"]:
            fail("arena too small")
        print("memory: .data %d + .bss %d bytes static, decoder state %d bytes "
              "(q3 parser %d, tw reader %d + %d), stack high-water %d of %d bytes, demos in flash %d"
              % (memory["data"], memory["bss"], memory["arena_used"], memory["q3_parser_size"],
                 memory["zdem_tw_reader_size"], memory["zdem_tw_small_mem"], memory["stack_used"], memory["stack_size"],
                 memory["demos_flash"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
