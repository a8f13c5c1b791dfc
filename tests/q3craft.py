"""Writes Quake III demo messages for the tests: MSG_WriteBits semantics
(n % 8 raw bits LSB first, then n / 8 bytes of the static Huffman code,
single bits raw) with the code listed in schema/quake3/huffman_codes.txt.
Used to put crafted damaged messages into copies of corpus demos. Reads
the byte-coded start of a gamestate (its configstrings) with the same
code, to damage one command byte of a real gamestate in place."""
import os
import struct

_CODES = None


def _codes():
    global _CODES
    if _CODES is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema", "quake3",
                            "huffman_codes.txt")
        _CODES = {}
        for line in open(path):
            parts = line.split()
            if len(parts) == 3 and not line.startswith("#"):
                _CODES[int(parts[1])] = parts[2]  # bits in stream order
        assert len(_CODES) == 256
    return _CODES


class Writer:
    def __init__(self):
        self.bits = []

    def raw(self, value, n):
        for i in range(n):
            self.bits.append((value >> i) & 1)
        return self

    def bits_(self, value, n):
        """MSG_WriteBits(value, n), n in 1..32 (value taken unsigned)."""
        value &= (1 << n) - 1
        if n == 1:
            return self.raw(value, 1)
        r = n & 7
        self.raw(value, r)
        value >>= r
        for _ in range(n >> 3):
            self.bits.extend(int(b) for b in _codes()[value & 255])
            value >>= 8
        return self

    def byte(self, v):
        return self.bits_(v, 8)

    def long(self, v):
        return self.bits_(v, 32)

    def string(self, s):
        for c in s.encode("latin-1"):
            self.byte(c)
        return self.byte(0)

    def payload(self):
        out = bytearray((len(self.bits) + 7) // 8)
        for i, b in enumerate(self.bits):
            out[i >> 3] |= b << (i & 7)
        return bytes(out)


SVC_GAMESTATE, SVC_CONFIGSTRING, SVC_BASELINE, SVC_SERVERCOMMAND, SVC_SNAPSHOT, SVC_EOF = 2, 3, 4, 5, 7, 8


class Reader:
    """MSG_ReadBits for whole bytes (n a multiple of 8: Huffman bytes)."""
    def __init__(self, payload):
        self.bits = [(payload[i >> 3] >> (i & 7)) & 1 for i in range(len(payload) * 8)]
        self.pos = 0
        self.decode = {code: sym for sym, code in _codes().items()}

    def byte(self):
        code = ""
        while code not in self.decode:
            if self.pos >= len(self.bits) or len(code) > 32:
                raise ValueError("no Huffman code at bit %d" % self.pos)
            code += str(self.bits[self.pos])
            self.pos += 1
        return self.decode[code]

    def bytes_(self, n):
        return sum(self.byte() << (8 * i) for i in range(n))


def gamestate_configstrings(payload):
    """The commands of a gamestate message up to its first baseline, as
    MSG_ReadBigString gives the strings ('%' and bytes over 127 read as
    '.'): [(kind, start bit, end bit of the command byte, index, text)],
    kind "configstring", then one "baseline" (index and text None)."""
    r = Reader(payload)
    r.bytes_(4)  # reliable acknowledge
    cmd = r.byte()
    if cmd != SVC_GAMESTATE:
        raise ValueError("message starts with command %d, not a gamestate" % cmd)
    r.bytes_(4)  # server command sequence
    out = []
    while True:
        start = r.pos
        cmd = r.byte()
        end = r.pos
        if cmd == SVC_BASELINE:
            out.append(("baseline", start, end, None, None))
            return out
        if cmd != SVC_CONFIGSTRING:
            raise ValueError("gamestate command %d before any baseline" % cmd)
        index = r.bytes_(2)
        text = bytearray()
        while True:
            c = r.byte()
            if c == 0:
                break
            text.append(ord(".") if c == ord("%") or c > 127 else c)
        out.append(("configstring", start, end, index, bytes(text)))


def replace_bits(payload, start, end, byte):
    """payload with the Huffman code in bits [start, end) replaced by
    byte's code (the rest of the bits kept as they were)."""
    bits = [(payload[i >> 3] >> (i & 7)) & 1 for i in range(len(payload) * 8)]
    w = Writer()
    w.bits = bits[:start]
    w.byte(byte)
    w.bits.extend(bits[end:])
    return w.payload()


def messages(data):
    """(offset, sequence, payload) of every message before the end marker."""
    out, pos = [], 0
    while pos + 8 <= len(data):
        seq, n = struct.unpack_from("<ii", data, pos)
        if seq == -1 or n == -1 or n < 0 or pos + 8 + n > len(data):
            break
        out.append((pos, seq, data[pos + 8:pos + 8 + n]))
        pos += 8 + n
    return out


def replace_message(data, index, payload):
    """A copy of the demo with message `index`'s payload replaced (its
    sequence kept); returns (new file, offset of that message)."""
    off, seq, old = messages(data)[index]
    new = data[:off] + struct.pack("<ii", seq, len(payload)) + payload + data[off + 8 + len(old):]
    return new, off


# Damaged messages of the kinds issue 12 lists; each is valid Huffman code
# up to the fault, then a few bytes of padding.
def unknown_command():
    return Writer().long(0).byte(200).long(0).payload()


def areamask_too_long(server_time):
    w = Writer().long(0).byte(SVC_SNAPSHOT).long(server_time).byte(0).byte(0).byte(40)
    return w.long(0).payload()


def entity_field_count(server_time, fields=250):
    w = Writer().long(0).byte(SVC_SNAPSHOT).long(server_time).byte(0).byte(0).byte(0)
    w.byte(0).raw(0, 1)                              # playerstate: nothing changed
    w.bits_(1, 10).raw(0, 1).raw(1, 1).byte(fields)  # entity 1, changed, field count
    return w.long(0).payload()


def gamestate_unknown_command():
    return Writer().long(0).byte(SVC_GAMESTATE).long(0).byte(77).long(0).payload()


def command_messages(commands, first_cmd_seq, max_payload=15000):
    """Payloads of messages carrying the server commands (svc_serverCommand
    each, numbered from first_cmd_seq), as many per message as fit."""
    out, w, seq = [], Writer().long(0), first_cmd_seq
    for text in commands:
        c = Writer().byte(SVC_SERVERCOMMAND).long(seq).string(text)
        if (len(w.bits) + len(c.bits)) // 8 + 4 > max_payload:
            out.append(w.byte(SVC_EOF).payload())
            w = Writer().long(0)
        w.bits.extend(c.bits)
        seq += 1
    out.append(w.byte(SVC_EOF).payload())
    return out


def append_messages(data, payloads):
    """The demo with messages added after its last one (sequences go on
    from it), then the end marker."""
    msgs = messages(data)
    off, seq, pl = msgs[-1]
    out = bytearray(data[:off + 8 + len(pl)])
    for p in payloads:
        seq += 1
        out += struct.pack("<ii", seq, len(p)) + p
    return bytes(out) + b"\xff" * 8
