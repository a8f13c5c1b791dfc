#!/usr/bin/env python3
"""Checks that s2craft's "normal" demo is a valid demo and that zdem decodes
it exactly as written: `zdem info --json`, `zdem events --json`,
`zdem entities --json` (end of file and seeks with --tick) against the
generator's own record of what it wrote, with nothing on stderr.

Independent of zdem's decoders, every protobuf message the generator wrote
is decoded by `protoc --decode` against schema/source2/*.proto (field
numbers and wire types), and every Snappy stream is validated by libsnappy
(ctypes) when they are installed; both are skipped with a note otherwise.

  s2craft_check.py [--zdem build/zdem] [--seeds 1,2,3] [--ticks 400] [--keep DIR]
  s2craft_check.py --smoke [--zdem ...]    # also run every generator once
Exit status 0 when everything matches, 1 otherwise.
"""
import argparse
import ctypes
import ctypes.util
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s2craft  # noqa: E402

PROTO_FILES = {}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same(a, b):
    """JSON values equal; floats compared as float32 (zdem prints %.9g)."""
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return f32(a) == f32(b)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(same(a[k], b[k]) for k in a)
    return a == b and isinstance(a, bool) == isinstance(b, bool)


class Checker(object):
    def __init__(self, zdem, verbose=False):
        self.zdem = zdem
        self.fails = []
        self.notes = []
        self.verbose = verbose

    def fail(self, msg):
        if len(self.fails) < 200:
            self.fails.append(msg)

    def run(self, args):
        p = subprocess.run([self.zdem] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")

    def cli_json_lines(self, what, args):
        rc, out, err = self.run(args)
        if rc != 0:
            self.fail("%s: exit status %d (%s)" % (what, rc, err.strip()))
        if err.strip():
            self.fail("%s: stderr not empty: %s" % (what, err.strip()[:300]))
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    # ---- comparisons ------------------------------------------------------

    def check_info(self, path, exp):
        got = self.cli_json_lines("info", ["info", "--json", path])
        if len(got) != 1:
            self.fail("info: %d JSON lines" % len(got))
            return
        got = got[0]
        for k, v in exp.items():
            if k not in got:
                self.fail("info: no %s" % k)
            elif not same(v, got[k]):
                self.fail("info: %s = %r, wrote %r" % (k, got[k], v))

    def check_events(self, path, exp):
        got = self.cli_json_lines("events", ["events", "--json", path])
        if len(got) != len(exp):
            self.fail("events: %d events, wrote %d" % (len(got), len(exp)))
        for i, (e, g) in enumerate(zip(exp, got)):
            if not same(e, g):
                self.fail("events[%d]: got %s, wrote %s" % (i, json.dumps(g), json.dumps(e)))

    def check_entities(self, what, args, exp):
        got = self.cli_json_lines(what, args)
        ge = {g["index"]: g for g in got}
        ee = {e["index"]: e for e in exp}
        for idx in sorted(set(ge) | set(ee)):
            if idx not in ge:
                self.fail("%s: entity %d (%s) missing" % (what, idx, ee[idx]["class"]))
                continue
            if idx not in ee:
                self.fail("%s: entity %d (%s) not written" % (what, idx, ge[idx]["class"]))
                continue
            e, g = ee[idx], ge[idx]
            for k in ("tick", "class", "class_id", "serial", "active"):
                if e[k] != g.get(k):
                    self.fail("%s: entity %d %s = %r, wrote %r" % (what, idx, k, g.get(k), e[k]))
            ep, gp = e["props"], g["props"]
            for k in sorted(set(ep) | set(gp)):
                if k not in gp:
                    self.fail("%s: entity %d %s missing (wrote %r)" % (what, idx, k, ep[k]))
                elif k not in ep:
                    self.fail("%s: entity %d %s = %r not written" % (what, idx, k, gp[k]))
                elif not same(ep[k], gp[k]):
                    self.fail("%s: entity %d %s = %r, wrote %r" % (what, idx, k, gp[k], ep[k]))

    # ---- independent checks ----------------------------------------------

    def check_protobuf(self, trace):
        """Each message type (first two occurrences) through protoc --decode;
        every field name we set must show up in its text output."""
        protoc = shutil.which("protoc")
        if not protoc:
            self.notes.append("protoc not found: protobuf encoding not cross-checked")
            return 0
        where = {}
        sdir = s2craft.SCHEMA_DIR
        for fn in sorted(os.listdir(sdir)):
            if fn.endswith(".proto"):
                with open(os.path.join(sdir, fn), encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("message "):
                            where[line.split()[1]] = fn
        seen = {}
        n = 0
        for msg, data in trace:
            top = msg.split(".")[0]
            if top not in where or seen.get(msg, 0) >= 2:
                continue
            seen[msg] = seen.get(msg, 0) + 1
            p = subprocess.run([protoc, "--proto_path=" + sdir, "--decode=" + msg, where[top]],
                               input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            n += 1
            if p.returncode != 0:
                self.fail("protoc --decode=%s: %s" % (msg, p.stderr.decode().strip()))
                continue
            text = p.stdout.decode("utf-8", "replace")
            spec = {f.num: f.name for f in s2craft.PROTO.msgs[msg].values()}
            for num, _, _ in s2craft.pb_decode(data):
                if spec.get(num) and (spec[num] + ":") not in text and (spec[num] + " {") not in text:
                    self.fail("protoc --decode=%s: field %s not shown" % (msg, spec[num]))
            if re.search(r"(?m)^\s*\d+:", text):
                self.fail("protoc --decode=%s: unknown fields: %s" % (msg, text[:200]))
        return n

    def check_snappy(self, buf, trace):
        """Every compressed frame and compressed string-table blob through
        libsnappy (or the Python reference decoder)."""
        name = ctypes.util.find_library("snappy")
        lib = None
        if name:
            try:
                lib = ctypes.CDLL(name)
            except OSError:
                lib = None
        if lib is None:
            self.notes.append("libsnappy not found: Snappy checked with s2craft's own decoder")
        blobs = [p for _, _, c, _, p in s2craft.read_frames(buf) if c]
        for msg, data in trace:
            if msg == "CSVCMsg_CreateStringTable":
                f = s2craft._fields_of(msg, data)
                if f.get("data_compressed", [0])[0]:
                    b = f["string_data"][0]
                    if b[:4] == b"LZSS":
                        # Valve LZSS: the independent reference decodes it
                        # to exactly the size its header claims
                        import lzss_ref
                        if len(lzss_ref.decompress(b)) != struct.unpack_from("<I", b, 4)[0]:
                            self.fail("lzss_ref: stream does not decode to its size")
                        continue
                    blobs.append(b)
        for b in blobs:
            if lib is not None:
                n = ctypes.c_size_t(0)
                if lib.snappy_uncompressed_length(b, ctypes.c_size_t(len(b)), ctypes.byref(n)) != 0:
                    self.fail("libsnappy: bad length preamble")
                    continue
                out = ctypes.create_string_buffer(max(n.value, 1))
                ol = ctypes.c_size_t(n.value)
                if lib.snappy_uncompress(b, ctypes.c_size_t(len(b)), out, ctypes.byref(ol)) != 0:
                    self.fail("libsnappy: stream does not decompress")
                    continue
                if out.raw[:ol.value] != s2craft.snappy_decompress(b):
                    self.fail("libsnappy and s2craft disagree on a stream")
            else:
                s2craft.snappy_decompress(b)
        return len(blobs)

    def check_framing(self, buf):
        frames = s2craft.read_frames(buf)
        fi, sg = struct.unpack_from("<ii", buf, 8)
        by_off = {off: cmd for off, cmd, _, _, _ in frames}
        if by_off.get(fi) != s2craft.IDS["DEM_FileInfo"]:
            self.fail("header: fileinfo offset %d is not a DEM_FileInfo frame" % fi)
        if by_off.get(sg) != s2craft.IDS["DEM_SpawnGroups"]:
            self.fail("header: spawngroups offset %d is not a DEM_SpawnGroups frame" % sg)
        if frames[-1][0] + 3 > len(buf):
            self.fail("framing: trailing bytes")
        for off, cmd, comp, tick, payload in frames:
            data = s2craft.snappy_decompress(payload) if comp else payload
            if cmd in (7, 8):
                pkt = s2craft._fields_of("CDemoPacket", data).get("data", [b""])[0]
                br = s2craft.BitReader(pkt)
                while br.left() >= 8:
                    br.ubitvar()
                    n = br.varuint()
                    if n * 8 > br.left():
                        self.fail("frame at %d: inner message runs past the packet" % off)
                        break
                    br.pos += n * 8
                if br.left() >= 8 or br.left() < 0:
                    self.fail("frame at %d: packet padding" % off)
        return len(frames)


def check_normal(ck, seed, ticks, keep):
    s2craft.TRACE = []
    data, exp = s2craft.build_normal(ticks=ticks, seed=seed)
    trace = s2craft.TRACE
    s2craft.TRACE = None
    d = keep or tempfile.mkdtemp(prefix="s2craft")
    path = os.path.join(d, "normal-%d.dem" % seed)
    with open(path, "wb") as f:
        f.write(data)
    with open(path[:-4] + ".expect.json", "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)
    nframes = ck.check_framing(data)
    nsn = ck.check_snappy(data, trace)
    npb = ck.check_protobuf(trace)
    ck.check_info(path, exp["info"])
    ck.check_events(path, exp["events"])
    ck.check_entities("entities", ["entities", "--json", path], exp["entities"])
    for t, snap in sorted(exp["entities_at"].items(), key=lambda x: int(x[0])):
        ck.check_entities("entities --tick %s" % t, ["entities", "--json", "--tick", str(t), path],
                          snap)
    nprops = sum(len(e["props"]) for e in exp["entities"])
    print("seed %d: %s, %d bytes, %d frames, %d Snappy streams, %d protobuf messages "
          "through protoc, %d events, %d entities / %d properties at the end, %d seeks"
          % (seed, path, len(data), nframes, nsn, npb, len(exp["events"]), len(exp["entities"]),
             nprops, len(exp["entities_at"])))
    if not keep:
        shutil.rmtree(d)


def smoke(ck, keep):
    """Every generator at a small size: the CLI must exit 0 or 2 (never
    crash or hang)."""
    d = keep or tempfile.mkdtemp(prefix="s2craft-smoke")
    for name, gen in sorted(s2craft.GENERATORS.items()):
        path = os.path.join(d, name + ".dem")
        with open(path, "wb") as f:
            f.write(gen.build(gen.small))
        for cmd in (["info", "--json"], ["events", "--json"], ["entities", "--json"]):
            try:
                p = subprocess.run([ck.zdem] + cmd + [path], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=120)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            if rc not in (0, 2):
                ck.fail("smoke %s %s: exit %s" % (name, cmd[0], rc))
        print("smoke %-24s %7d bytes ok" % (name, os.path.getsize(path)))
    sd = os.path.join(d, "seeds")
    exp = {}
    names = s2craft.write_seeds(sd, exp)
    nfail = len(ck.fails)
    for fn in names:
        path = os.path.join(sd, fn)
        for cmd in ("info", "events", "entities"):
            p = subprocess.run([ck.zdem, cmd, "--json", path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            if p.returncode != 0 or p.stderr.strip():
                ck.fail("seed %s %s: exit %d %s" % (fn, cmd, p.returncode,
                                                    p.stderr.decode().strip()))
        if fn in exp:
            ck.check_entities("seed " + fn, ["entities", "--json", path], exp[fn])
        if fn + ":events" in exp:
            ck.check_events(path, exp[fn + ":events"])
        if fn + ":info" in exp:
            ck.check_info(path, exp[fn + ":info"])
    print("seeds: %d files (%s), %d expected outputs, %d mismatches"
          % (len(names), ", ".join("%s %d" % (n, os.path.getsize(os.path.join(sd, n)))
                                   for n in names), len(exp), len(ck.fails) - nfail))
    if not keep:
        shutil.rmtree(d)


def _run_measured(cmd, timeout, vlimit_kb=None):
    """(exit status or "timeout", seconds, max RSS KB, stderr) of cmd; with
    vlimit_kb, under that address-space limit."""
    import resource
    import time

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (vlimit_kb * 1024, vlimit_kb * 1024))
    t = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=limit if vlimit_kb else None)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "timeout", time.time() - t, 0, ""
    secs = time.time() - t
    rc = p.returncode
    # per-child max RSS: rerun under /usr/bin/time when it exists
    rss = 0
    if not vlimit_kb and os.path.exists("/usr/bin/time"):
        q = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
        try:
            rss = int(q.stderr.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            rss = 0
    return rc, secs, rss, err.decode("utf-8", "replace")


def _instructions(zdem, args, timeout):
    """Instructions (callgrind "I refs") of zdem args, or None on timeout."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", zdem] + args
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    for line in p.stderr.decode("utf-8", "replace").splitlines():
        if "refs:" in line:
            return int(line.split()[-1].replace(",", ""))
    return None


def measure(zdem, outdir, scales, callgrind, timeout, only=None, corpus=None):
    """Times (and counts instructions of) `zdem info --json`, `events
    --json` and `entities --json` on every generator at several sizes, and
    on the corpus for comparison; prints Markdown tables."""
    cmds = [("info", ["info", "--json"]), ("events", ["events", "--json"]),
            ("entities", ["entities", "--json"])]
    rows = []
    if corpus and os.path.isdir(corpus):
        worst = {}
        for fn in sorted(os.listdir(corpus)):
            path = os.path.join(corpus, fn)
            if not fn.endswith(".dem"):
                continue
            size = os.path.getsize(path)
            for cname, args in cmds:
                ins = _instructions(zdem, args + [path], timeout) if callgrind else None
                if ins is not None:
                    ipb = ins / float(size)
                    if ipb > worst.get(cname, (0, ""))[0]:
                        worst[cname] = (ipb, fn)
        print("| corpus worst | command | instructions / byte |")
        print("|---|---|---:|")
        for cname, (ipb, fn) in sorted(worst.items()):
            print("| %s | %s | %.0f |" % (fn, cname, ipb))
        print()
    print("| generator | n | bytes | command | exit | exit, 1 GiB AS | seconds | max RSS MB |"
          " instructions | instr / byte |")
    print("|---|---:|---:|---|---|---|---:|---:|---:|---:|")
    for name, g in sorted(s2craft.GENERATORS.items()):
        if only and name not in only:
            continue
        for sc in scales:
            n = max(1, int(round(g.default * sc)))
            path = os.path.join(outdir, "%s-%d.dem" % (name, n))
            with open(path, "wb") as f:
                f.write(g.build(n))
            size = os.path.getsize(path)
            for cname, args in cmds:
                rc, secs, rss, err = _run_measured([zdem] + args + [path], timeout)
                rc1 = _run_measured([zdem] + args + [path], timeout, 1 << 20)[0]
                ins = _instructions(zdem, args + [path], timeout) if callgrind else None
                row = "| %s | %d | %d | %s | %s | %s | %.2f | %.0f | %s | %s |" % (
                    name, n, size, cname, rc, rc1, secs, rss / 1024.0,
                    "%d" % ins if ins is not None else ("-" if not callgrind else "> %ds" % timeout),
                    "%.0f" % (ins / float(size)) if ins is not None else "-")
                print(row)
                sys.stdout.flush()
                rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--zdem", default=os.path.join(s2craft.ROOT, "build", "zdem"))
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--ticks", type=int, default=400)
    ap.add_argument("--keep", help="write the demos and expectations here")
    ap.add_argument("--smoke", action="store_true", help="also run every generator once")
    ap.add_argument("--measure", action="store_true",
                    help="time every generator at --scales (no normal-demo checks)")
    ap.add_argument("--scales", default="0.25,0.5,1")
    ap.add_argument("--callgrind", action="store_true", help="with --measure: count instructions")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--only", help="with --measure: comma-separated generator names")
    ap.add_argument("--corpus", help="with --measure --callgrind: corpus directory to compare")
    a = ap.parse_args()
    if a.measure:
        d = a.keep or tempfile.mkdtemp(prefix="s2craft-measure")
        os.makedirs(d, exist_ok=True)
        measure(a.zdem, d, [float(x) for x in a.scales.split(",")], a.callgrind, a.timeout,
                a.only.split(",") if a.only else None, a.corpus)
        if not a.keep:
            shutil.rmtree(d)
        return 0
    if not os.path.exists(a.zdem):
        print("no zdem at %s (--zdem)" % a.zdem)
        return 1
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    ck = Checker(a.zdem)
    for seed in [int(x) for x in a.seeds.split(",") if x]:
        check_normal(ck, seed, a.ticks, a.keep)
    if a.smoke:
        smoke(ck, a.keep)
    for n in ck.notes:
        print("note:", n)
    for f in ck.fails:
        print("FAIL:", f)
    print("%s: %d mismatches" % ("ok" if not ck.fails else "FAILED", len(ck.fails)))
    return 1 if ck.fails else 0


if __name__ == "__main__":
    sys.exit(main())
