"""Shared pieces of the Python-driven CLI tests: running zdem, counting
checks, scratch files. A test sets ZDEM, uses check/run/write and ends with
sys.exit(finish())."""
import os
import shutil
import subprocess
import tempfile

ZDEM = None
TMP = tempfile.mkdtemp(prefix="zdem-test-")
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)
    return cond


def run(args, timeout=300, raw=False):
    """(exit status, stdout, stderr) of zdem ARGS; stdout as bytes if raw."""
    p = subprocess.run([ZDEM] + args, capture_output=True, timeout=timeout)
    out = p.stdout if raw else p.stdout.decode("utf-8", "replace")
    return p.returncode, out, p.stderr.decode("utf-8", "replace")


def write(name, data):
    """A scratch file; returns its path."""
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def finish():
    """Prints the counts, removes the scratch files; the exit status."""
    shutil.rmtree(TMP, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
