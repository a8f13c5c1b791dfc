"""python -m zdem COMMAND ... : the zdem command-line tool (info, dump,
events, entities, ticks, map), the binary shipped inside the package."""
import os
import shutil
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "zdem")
    if not os.access(exe, os.X_OK):  # a source checkout: the CLI of a build
        exe = os.environ.get("ZDEM_BIN") or shutil.which("zdem")
    if not exe:
        sys.exit("zdem: the command-line tool is not part of this installation "
                 "(pip install ./python ships it; or set ZDEM_BIN)")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, ["zdem"] + sys.argv[1:])


if __name__ == "__main__":
    main()
