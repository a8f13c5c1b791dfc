#!/usr/bin/python3
"""Writes the .dem that holds the same data as a Source 2 HTTP broadcast
directory, re-framed here from the format's description and independent of
zdem's C code, so that a test can read both and compare (the .dem reading
is the one checked against demoparser2 and the corpus).

    bc_to_dem.py BROADCAST_DIR OUT.dem

Fragments in the order a client reads them: sync.json's signup_fragment
start, its fragment's full, then the deltas from that fragment on, up to the
first one missing or the end record. A broadcast record is varuint command,
u32le tick, u8 0, u32le size, payload (command 0, without size: the end); a
.dem frame is varuint command, varuint tick, varuint size, payload, after the
16-byte header (PBDEMS2\\0 and two offsets, 0: not written). DEM_Packet and
DEM_SignonPacket payloads become CDemoPacket messages (field 3, data); the
start fragment's ticks become the pregame tick 0xFFFFFFFF; the end record a
DEM_Stop. Other payloads are copied as they are.
"""
import json
import os
import struct
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(b, p):
    v = s = 0
    while True:
        c = b[p]
        p += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, p


def fragment(d, n, kind):
    for name in ("%d/%s" % (n, kind), "%d/%s.bin" % (n, kind)):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return open(p, "rb").read()
    return None


def main():
    d, out = sys.argv[1], sys.argv[2]
    sync = json.load(open(os.path.join(d, "sync.json")))
    order = [(sync.get("signup_fragment", 0), "start"), (sync["fragment"], "full")]
    frames = bytearray()
    last_tick, ended, n = 0, False, sync["fragment"]
    while not ended:
        if order:
            num, kind = order.pop(0)
        else:
            num, kind = n, "delta"
            n += 1
        data = fragment(d, num, kind)
        if data is None:
            break
        p = 0
        while p < len(data):
            cmd, p = read_varint(data, p)
            tick, zero = struct.unpack_from("<IB", data, p)
            p += 5
            if cmd == 0:
                frames += varint(0) + varint(last_tick) + varint(0)  # DEM_Stop
                ended = True
                break
            size, = struct.unpack_from("<I", data, p)
            p += 4
            payload = data[p:p + size]
            p += size
            if kind == "start":
                tick = 0xFFFFFFFF
            else:
                last_tick = tick
            if cmd & ~0x40 in (7, 8):
                if cmd & 0x40:
                    sys.exit("bc_to_dem: a compressed packet record: not handled")
                payload = b"\x1a" + varint(len(payload)) + payload  # CDemoPacket.data
            frames += varint(cmd) + varint(tick) + varint(len(payload)) + payload
    with open(out, "wb") as f:
        f.write(b"PBDEMS2\0" + struct.pack("<ii", 0, 0) + frames)


main()
