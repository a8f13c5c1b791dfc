#!/bin/bash
# The Python package as a user installs it: a scratch venv on Debian's
# Python (--system-site-packages: cffi, numpy, pandas, pytest, dask come
# from Debian), `pip install --no-build-isolation --no-index ./python` with
# no network (setup.py builds libzdem and the CLI with cmake and ships them
# inside the package), then python/tests run against that installed
# package from a directory where `import zdem` cannot find python/zdem
# (test_package.py asserts where zdem came from). Also `cmake --install`
# with ZDEM_INSTALL_PYTHON=ON into a scratch prefix.
#
# The build is plain (no sanitizers): an ASan library cannot be loaded into
# an uninstrumented /usr/bin/python3. The C code is covered by the
# sanitizers through the CLI tests that run the same row extractors.
# ZDEM_PY_MEMORY_CALLS (default 1000) sets test_memory.py's repeat count.
set -eu
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${ZDEM_BUILD_DIR:-$SRC/build}/pytest-venv
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=/usr/bin/python3
unset ZDEM_LIB PYTHONPATH LD_PRELOAD CFLAGS LDFLAGS CXXFLAGS ASAN_OPTIONS UBSAN_OPTIONS || true

rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/run"
# A scratch copy of what the build reads (pip builds in place, so the
# checkout stays clean): the C sources, the generator's list, the package.
(cd "$SRC" && cp -r CMakeLists.txt runtime generated gen tools "$OUT/src/")
mkdir -p "$OUT/src/python"
(cd "$SRC/python" && cp -r pyproject.toml setup.py zdem "$OUT/src/python/")
rm -rf "$OUT/src/python/zdem/__pycache__" "$OUT/src/python/zdem/_bin" "$OUT/src/python/zdem/libzdem.so"

"$PY" -m venv --system-site-packages "$OUT/venv"
V="$OUT/venv/bin/python"
echo "test_python: pip install --no-build-isolation --no-index ./python (offline)"
(cd "$OUT/src" && ZDEM_CMAKE_BUILD_DIR="$OUT/cmake" CMAKE_BUILD_PARALLEL_LEVEL=2 \
    "$V" -m pip install -q --no-build-isolation --no-index --no-cache-dir ./python)

# cmake --install with the Python package: the same build, installed
echo "test_python: cmake --install with ZDEM_INSTALL_PYTHON=ON"
cmake -S "$OUT/src" -B "$OUT/cmake" -DZDEM_INSTALL_PYTHON=ON -DCMAKE_INSTALL_PREFIX="$OUT/prefix" >/dev/null
cmake --build "$OUT/cmake" -j2 >/dev/null
cmake --install "$OUT/cmake" >/dev/null
SITE=$(cd "$OUT/prefix" && ls -d lib/python3*/site-packages)
(cd "$OUT/run" && PYTHONPATH="$OUT/prefix/$SITE" "$PY" -c '
import os, sys, zdem
prefix = sys.argv[1]
assert os.path.realpath(zdem.__file__).startswith(os.path.realpath(prefix) + os.sep), zdem.__file__
assert os.path.isfile(os.path.join(os.path.dirname(zdem.__file__), "libzdem.so"))
print("test_python: cmake --install put zdem %s in %s" % (zdem.__version__, os.path.dirname(zdem.__file__)))
' "$OUT/prefix")
(cd "$OUT/run" && PYTHONPATH="$OUT/prefix/$SITE" "$PY" -m zdem --version)

# the tests, on the pip-installed package
cd "$OUT/run"
ZDEM_EXPECT_PREFIX="$OUT/venv" exec "$V" -m pytest -q -p no:cacheprovider "$SRC/python/tests"
