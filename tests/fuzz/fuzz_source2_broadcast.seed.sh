#!/usr/bin/env bash
# Seeds for the broadcast target (each <= 24 KiB), written at run time,
# never committed (the corpus is not ours):
#  - the synthetic demos of tests/s2craft.py seeds re-framed as a broadcast
#    (their frames become records: CDemoPacket data unwrapped, the pregame
#    frames the start fragment, the rest one delta fragment, DEM_Stop the
#    end record);
#  - the corpus broadcasts' sync.json with the first records of each
#    fragment, cut at record boundaries to 8 / 16 / 24 KiB (signon packets
#    and string tables, a full packet's start, delta packets).
# Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${ZDEM_PYTHON:-python3}
crafted=$(mktemp -d)
trap 'rm -rf "$crafted"' EXIT
"$py" "$here/../s2craft.py" seeds "$crafted" >/dev/null
"$py" - "$out" "$here/.." "$crafted" "$corpus"/source2-broadcast/*/ <<'PY'
import glob, json, os, struct, sys
out, tests, crafted, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, tests)
import s2craft
MARK, LIMIT = b"\n~~\n", 24576

def varint(v):
    b = bytearray()
    while True:
        if v < 0x80:
            b.append(v)
            return bytes(b)
        b.append(v & 0x7F | 0x80)
        v >>= 7

def record(cmd, tick, payload):
    return varint(cmd) + struct.pack("<IBI", tick & 0xFFFFFFFF, 0, len(payload)) + payload

n = 0
def emit(name, blob):
    global n
    if len(blob) <= LIMIT:
        open(os.path.join(out, name), "wb").write(blob)
        n += 1

for path in sorted(glob.glob(os.path.join(crafted, "*"))):
    try:
        frames = s2craft.read_frames(open(path, "rb").read())
    except Exception:
        continue
    start, delta = b"", b""
    for off, cmd, comp, tick, payload in frames:
        if cmd == 0:
            delta += b"\x00" * 6
            break
        if cmd in (7, 8) and not comp:
            payload = next((v for num, wt, v in s2craft.pb_decode(payload) if num == 3 and wt == 2), b"")
        rec = record(cmd | (0x40 if comp else 0), 0 if tick == 0xFFFFFFFF else tick, payload)
        if tick == 0xFFFFFFFF:
            start += rec
        else:
            delta += rec
    emit("crafted-" + os.path.basename(path),
         b'{"fragment":1,"signup_fragment":0}' + MARK + start + MARK + MARK + delta)

def records(data):
    out, p = [], 0
    while p < len(data):
        a, cmd, s = p, 0, 0
        while True:
            c = data[p]; p += 1; cmd |= (c & 0x7F) << s; s += 7
            if c < 0x80:
                break
        p += 5
        if cmd == 0:
            out.append(data[a:p])
            break
        size, = struct.unpack_from("<I", data, p)
        p += 4 + size
        out.append(data[a:p])
    return out

for d in dirs:
    d = d.rstrip("/")
    sync = open(os.path.join(d, "sync.json"), "rb").read()
    js = json.loads(sync)
    order = ["%d/start.bin" % js.get("signup_fragment", 0), "%d/full.bin" % js["fragment"]]
    order += sorted((os.path.relpath(p, d) for p in glob.glob(os.path.join(d, "*", "delta.bin"))),
                    key=lambda x: int(x.split("/")[0]))
    frags = [records(open(os.path.join(d, f), "rb").read()) for f in order if os.path.exists(os.path.join(d, f))]
    # the start fragment gets half (its string tables), the others the rest
    for limit in (8192, 16384, 24576):
        room = limit - len(sync) - len(MARK) * len(frags)
        shares = [room // 2] + [room // 2 // max(1, len(frags) - 1)] * (len(frags) - 1)
        blob = sync
        for recs, per in zip(frags, shares):
            cut = b""
            for r in recs:
                if len(cut) + len(r) <= per:
                    cut += r
            blob += MARK + cut
        emit("%s-cut%d" % (os.path.basename(d), limit), blob)
print("%d broadcast seeds" % n, file=sys.stderr)
PY
