"""pytest set-up: the corpus, the references, and where the package under
test comes from. tests/test_python.sh runs these tests against the package
installed in a scratch venv (from a directory where `import zdem` cannot
find python/zdem); to run them on the source tree, put python/ on
PYTHONPATH and point ZDEM_LIB at a plain build's libzdem.so."""
import os
import re

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CORPUS = os.environ.get("ZDEM_CORPUS") or os.path.join(os.path.dirname(ROOT), "shared", "corpus")


@pytest.fixture(scope="session")
def corpus():
    if not os.path.isdir(CORPUS):
        pytest.fail("corpus not found at %s (set ZDEM_CORPUS)" % CORPUS)
    return CORPUS


def expected_table(heading):
    """Rows (dicts by column, keyed by file) of the first table after
    heading in the corpus's EXPECTED.md."""
    md = open(os.path.join(CORPUS, "EXPECTED.md"), encoding="utf-8").read()
    lines = md[md.index(heading):].splitlines()[1:]
    rows, header = {}, None
    for ln in lines:
        if not ln.startswith("|"):
            if header:
                break
            continue
        inner = ln.strip()[1:-1] if ln.strip().endswith("|") else ln.strip()[1:]
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]
        if header is None:
            header = cells
        elif not set(ln.replace("|", "").strip()) <= set("-: "):
            rows[cells[0]] = dict(zip(header, cells))
    return rows


def read(fn, *args, **kw):
    """fn's DataFrame, or for a damaged file the rows read before the fault."""
    import zdem
    try:
        return fn(*args, **kw)
    except zdem.DemoError as e:
        return e.data


def cli_path():
    """The zdem command the package runs for `python -m zdem` (its own copy;
    ZDEM_BIN on a source tree)."""
    import zdem
    exe = os.path.join(os.path.dirname(zdem.__file__), "_bin", "zdem")
    return exe if os.access(exe, os.X_OK) else os.environ["ZDEM_BIN"]
