#!/usr/bin/env python3
"""Sums a GNU ld map file by origin: bytes of flash (code, constants, .data
image) and static RAM (.data, .bss) that the linked image takes from
libzdem.a, from libc/libgcc, and from everything else.

    mapsize.py FILE.map  ->  prints: lib_flash lib_ram libc_flash libc_ram other_flash other_ram
"""
import re
import sys

FLASH_OUT = {".text", ".ARM.exidx", ".data"}
RAM_OUT = {".data", ".bss"}


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    i = text.find("Linker script and memory map")
    lines = text[i:].splitlines() if i >= 0 else []
    out_sec = None
    pending = None  # input section name waiting for its address line
    sums = {k: [0, 0] for k in ("lib", "libc", "other")}
    rx_out = re.compile(r"^(\.[A-Za-z0-9_.]+|/DISCARD/)\s")
    rx_in = re.compile(r"^ (\S+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$")
    rx_cont = re.compile(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$")
    for ln in lines:
        m = rx_out.match(ln)
        if m:
            out_sec = m.group(1)
            pending = None
            continue
        size = origin = None
        m = rx_in.match(ln)
        if m and not m.group(1).startswith("*"):
            size, origin = int(m.group(2), 16), m.group(3)
        elif pending:
            m = rx_cont.match(ln)
            if m:
                size, origin = int(m.group(1), 16), m.group(2)
            pending = None
        elif re.match(r"^ \.[A-Za-z0-9_.$]+$", ln):
            pending = ln.strip()
            continue
        if size is None:
            continue
        if "libzdem.a(" in origin:
            key = "lib"
        elif re.search(r"lib(c|c_nano|gcc|g|g_nano|m)\.a\(", origin):
            key = "libc"
        else:
            key = "other"
        if out_sec in FLASH_OUT:
            sums[key][0] += size
        if out_sec in RAM_OUT:
            sums[key][1] += size
    print(" ".join(str(v) for k in ("lib", "libc", "other") for v in sums[k]))


if __name__ == "__main__":
    main()
