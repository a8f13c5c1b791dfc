#!/usr/bin/env python3
"""Build-time generator entry point.

Each layer has modules gen/<layer>_gen.py and optionally gen/<layer>_*_gen.py,
each exposing:
  outputs() -> list of file names it writes into generated/ (fixed, so that
               the build system knows them before running the generator);
  generate(schema_dir) -> dict {file name: text}.
Output is deterministic: same schema, same bytes.
"""
import argparse
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS = ("source2", "quake3", "teeworlds")


def load(layer):
    """The layer's generator modules, in a fixed order."""
    sys.path.insert(0, HERE)
    names = sorted(f[:-3] for f in os.listdir(HERE)
                   if f.endswith("_gen.py") and f != "zdem_gen.py"
                   and (f == layer + "_gen.py" or f.startswith(layer + "_")))
    return [importlib.import_module(n) for n in names]


def main():
    ap = argparse.ArgumentParser(description="Generate zdem C decoders from schema/.")
    ap.add_argument("--layer", choices=LAYERS, action="append",
                    help="layer to generate (default: all)")
    ap.add_argument("--schema", default=os.path.join(HERE, "..", "schema"),
                    help="schema directory (default: ../schema)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "generated"),
                    help="output directory (default: ../generated)")
    ap.add_argument("--list", action="store_true",
                    help="print the output file names and exit")
    args = ap.parse_args()
    layers = args.layer or LAYERS
    for layer in layers:
        for mod in load(layer):
            if args.list:
                print("\n".join(mod.outputs()))
            else:
                write(layer, mod, args)


CXX_OPEN = '#ifdef __cplusplus\nextern "C" {\n#endif\n'
CXX_CLOSE = '#ifdef __cplusplus\n}\n#endif\n'


def cxx_guard(text):
    """A header's declarations in extern "C" (after its includes, so that
    system headers stay out of it), so C++ code can include and link it."""
    lines = text.splitlines(keepends=True)
    incs = [i for i, l in enumerate(lines) if l.startswith("#include")]
    last_inc = incs[-1] if incs else next(i for i, l in enumerate(lines) if l.startswith("#define"))
    end = max(i for i, l in enumerate(lines) if l.startswith("#endif"))
    return ("".join(lines[:last_inc + 1]) + "\n" + CXX_OPEN + "".join(lines[last_inc + 1:end])
            + CXX_CLOSE + "\n" + "".join(lines[end:]))


def write(layer, mod, args):
    files = mod.generate(os.path.abspath(args.schema))
    expected = set(mod.outputs())
    if set(files) != expected:
        sys.exit("zdem_gen: %s produced %s, declared %s"
                 % (layer, sorted(files), sorted(expected)))
    os.makedirs(args.out, exist_ok=True)
    for name in sorted(files):
        path = os.path.join(args.out, name)
        text = cxx_guard(files[name]) if name.endswith(".h") else files[name]
        data = text.encode("utf-8")
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    continue  # unchanged: keep the timestamp
        except FileNotFoundError:
            pass
        with open(path, "wb") as f:
            f.write(data)

if __name__ == "__main__":
    main()
