#!/usr/bin/env bash
# Seeds for the Teeworlds demo targets: corpus demos rebuilt small (4 to 16
# KiB: parsing time grows with the input) so that chunks come early: the embedded map removed (or cut to 64
# bytes, CRC32/SHA-256 fixed up or left stale), the chunk stream cut at a
# chunk boundary from the start or from a keyframe in the middle, the
# header length zeroed or kept (then the stream is short of it: the
# truncation path). Written at run time, never committed (the corpus is not
# ours). Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" "$corpus"/teeworlds/*.demo <<'PY'
import hashlib, os, struct, sys, zlib
out, files = sys.argv[1], sys.argv[2:]
UUID = bytes.fromhex("6be6da4acebd380c9b5b1289c842d780")
n = 0
for path in files:
    data = open(path, "rb").read()
    if data[:7] != b"TWDEMO\0" or not 3 <= data[7] <= 6:
        continue
    ver = data[7]
    pos = 176 + (260 if ver >= 4 else 0)
    sha = ver >= 6 and data[pos:pos + 16] == UUID
    map_off = pos + (48 if sha else 0)
    map_size = struct.unpack_from(">i", data, 8 + 128)[0]
    data_off = map_off + map_size
    # chunk boundaries and keyframe tick markers (absolute ticks)
    chunks, keys, p = [], [], data_off
    while p < len(data):
        b = data[p]
        if b & 0x80:
            absolute = not (b & 0x20) if ver >= 5 else (b & 0x3F) == 0
            ln = 5 if absolute else 1
            if b & 0x40 and absolute:
                keys.append(len(chunks))
        else:
            s = b & 0x1F
            ln = 1 + s if s < 30 else (2 + data[p + 1] if s == 30 else 3 + (data[p + 1] | data[p + 2] << 8))
        if p + ln > len(data):
            break
        chunks.append(data[p:p + ln])
        p += ln

    def emit(tag, mp, first, limit, keep_length=False, fix_hashes=True):
        global n
        head = bytearray(data[:map_off])
        struct.pack_into(">i", head, 8 + 128, len(mp))
        if fix_hashes:
            struct.pack_into(">I", head, 8 + 132, zlib.crc32(mp) & 0xffffffff)
            if sha:
                head[map_off - 32:map_off] = hashlib.sha256(mp).digest()
        if not keep_length:
            struct.pack_into(">i", head, 8 + 144, 0)
        blob = bytes(head) + mp
        for c in chunks[first:]:
            if len(blob) + len(c) > limit:
                break
            blob += c
        name = "%s-%s" % (os.path.basename(path)[:40], tag)
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)
        n += 1

    emit("nomap-4k", b"", 0, 4096)
    emit("nomap-8k", b"", 0, 8192)
    emit("nomap-16k", b"", 0, 16384)
    emit("map64-stale-4k", data[map_off:map_off + 64], 0, 4096, fix_hashes=False)
    emit("nomap-length-8k", b"", 0, 8192, keep_length=True)
    if len(keys) > 1:
        emit("nomap-keyframe-8k", b"", keys[len(keys) // 2], 8192)
print("%d teeworlds seeds" % n, file=sys.stderr)
PY
