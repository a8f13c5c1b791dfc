"""Writes Teeworlds demo chunks for the limit tests (stdlib only): the
static Huffman code and variable-length ints as libtw2's docs describe them
(the code table is tw_snapshot_ref.py's, copied from libtw2
doc/huffman.md), chunk headers as doc/demo.md, messages as the game packs
them (msg id << 1 | system, then ints and NUL-ended strings, stored as
little-endian 32-bit words), full snapshots as DDNet's CSnapshot
([data size][items][offsets][key data...]). Separate from any other
Teeworlds crafter on purpose: only what tests/test_limits_go_on.sh needs."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tw_snapshot_ref  # noqa: E402  (the independent decoder's code table)

_CODES = {}
for _w in tw_snapshot_ref.HUFFMAN_CODES.split():
    _s, _c = _w.split(":")
    _CODES[256 if _s == "EOF" else int(_s, 16)] = _c


def huffman(data):
    """Bits LSB first in each byte, then the EOF symbol, zero padded."""
    bits = []
    for b in data:
        bits.extend(int(x) for x in _CODES[b])
    bits.extend(int(x) for x in _CODES[256])
    out = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        out[i >> 3] |= b << (i & 7)
    return bytes(out)


def pack_int(v):
    """doc/int.md: sign in bit 6 of the first byte (value complemented),
    6 bits, then 7-bit groups with a continuation bit."""
    sign = 0
    if v < 0:
        sign, v = 1, ~v
    out = bytearray([(sign << 6) | (v & 0x3F)])
    v >>= 6
    while v:
        out[-1] |= 0x80
        out.append(v & 0x7F)
        v >>= 7
    return bytes(out)


def chunk(kind, ints):
    """A data chunk (1 snapshot, 2 message, 3 delta) holding ints."""
    body = huffman(b"".join(pack_int(i) for i in ints))
    n = len(body)
    if n < 30:
        head = bytes([(kind << 5) | n])
    elif n < 256:
        head = bytes([(kind << 5) | 30, n])
    else:
        head = bytes([(kind << 5) | 31, n & 0xFF, n >> 8])
    return head + body


def message(msg_id, parts, system=False):
    """A message chunk: parts are ints and (bytes/str) strings."""
    b = bytearray(pack_int(msg_id << 1 | (1 if system else 0)))
    for p in parts:
        if isinstance(p, int):
            b += pack_int(p)
        else:
            b += (p.encode("utf-8") if isinstance(p, str) else p) + b"\0"
    b += bytes(-len(b) % 4)
    return chunk(2, list(struct.unpack("<%di" % (len(b) // 4), bytes(b))))


SV_CHAT = 3  # 0.6 NETMSGTYPE_SV_CHAT: team, client id, text


def chat(client_id, text, team=0):
    return message(SV_CHAT, [team, client_id, text])


def full_snapshot(items):
    """items: [(type, id, [ints])] -> a snapshot chunk."""
    offs, data, off = [], [], 0
    for t, i, d in items:
        offs.append(off)
        data += [(t << 16) | i] + list(d)
        off += 4 * (1 + len(d))
    return chunk(1, [off, len(items)] + offs + data)


def append_chunks(demo, chunks):
    """The demo with chunks after its last one (same tick)."""
    return demo + b"".join(chunks)
