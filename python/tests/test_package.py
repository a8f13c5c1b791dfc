"""The package as installed: where it comes from, its version (the one
runtime/zdem_version.h states), `python -m zdem`, and what dir() shows."""
import json
import os
import re
import subprocess
import sys
import types

import pytest

import zdem
import zdem.q3
import zdem.tw
from conftest import ROOT


def header_version():
    text = open(os.path.join(ROOT, "runtime", "zdem_version.h")).read()
    return re.search(r'#define ZDEM_VERSION_STRING "([^"]+)"', text).group(1)


def test_installed_package_is_under_test():
    # tests/test_python.sh sets ZDEM_EXPECT_PREFIX to the scratch venv the
    # package was pip-installed into: the tests must not run on python/zdem
    prefix = os.environ.get("ZDEM_EXPECT_PREFIX")
    if not prefix:
        pytest.skip("not run by tests/test_python.sh (ZDEM_EXPECT_PREFIX unset)")
    here = os.path.realpath(zdem.__file__)
    assert here.startswith(os.path.realpath(prefix) + os.sep), here
    assert not here.startswith(os.path.realpath(os.path.join(ROOT, "python")) + os.sep)
    pkg = os.path.dirname(here)
    assert os.path.isfile(os.path.join(pkg, "libzdem.so"))  # shipped inside
    assert os.access(os.path.join(pkg, "_bin", "zdem"), os.X_OK)
    assert "ZDEM_LIB" not in os.environ


def test_version_is_the_headers():
    assert zdem.__version__ == header_version()
    p = subprocess.run([sys.executable, "-m", "zdem", "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and header_version() in p.stdout


def test_python_m_zdem_runs_the_cli(corpus):
    path = os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14011-cs-italy.dem")
    p = subprocess.run([sys.executable, "-m", "zdem", "info", "--json", path], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["map_name"] == "cs_italy" and info["playback_ticks"] == 391  # EXPECTED.md B1
    p = subprocess.run([sys.executable, "-m", "zdem", "nosuchcommand"], capture_output=True, text=True)
    assert p.returncode == 1 and "usage" in (p.stdout + p.stderr)


PRIVATE = {"ffi", "lib", "np", "pd", "os", "re", "Table", "Mapped", "Run", "arena", "strings",
           "finish", "int32_array", "S2_STATE_BYTES", "VERSION", "warnings"}


@pytest.mark.parametrize("mod", [zdem, zdem.q3, zdem.tw])
def test_dir_shows_public_names_only(mod):
    names = dir(mod)
    assert not set(names) & PRIVATE, set(names) & PRIVATE
    assert not [n for n in names if n.startswith("_") and n != "__version__"]
    for n in names:  # functions, submodules, exceptions, the version
        v = getattr(mod, n)
        assert callable(v) or isinstance(v, (types.ModuleType, str)), n
    if mod is zdem:
        assert {"parse_header", "parse_events", "parse_ticks", "parse_players", "DemoError",
                "RowLimitError", "q3", "tw", "__version__"} <= set(names)
    else:
        assert {"header", "players", "chat", "ticks"} <= set(names)
