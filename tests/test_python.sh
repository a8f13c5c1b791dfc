#!/bin/bash
# The Python package's tests (python/tests, pytest) on a plain build of the
# shared library (zdem_shared): the test build itself is ASan/UBSan-
# instrumented, and an ASan .so cannot be loaded into an uninstrumented
# /usr/bin/python3, so libzdem.so is built again without sanitizers into
# ZDEM_BUILD_DIR/pylib. The C code is covered by the sanitizers through the
# CLI tests (tests/test_source2_ticks.sh, test_ticks_q3_tw.sh) that run the
# same row extractors.
set -eu
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${ZDEM_BUILD_DIR:-$SRC/build}/pylib
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=/usr/bin/python3
# plain flags: the environment's sanitizer settings must not leak in
env -u CFLAGS -u LDFLAGS cmake -S "$SRC" -B "$OUT" -DCMAKE_BUILD_TYPE=Release -DZDEM_SANITIZE=OFF \
    -DZDEM_TESTS=OFF -DZDEM_SHARED=ON >/dev/null
cmake --build "$OUT" -j2 --target zdem_shared >/dev/null
cd "$SRC/python"
# PYTHONPATH: the Dask test's worker processes import zdem from this tree too
ZDEM_LIB="$OUT/libzdem.so" PYTHONPATH="$SRC/python${PYTHONPATH:+:$PYTHONPATH}" exec "$PY" -m pytest -q -p no:cacheprovider tests
