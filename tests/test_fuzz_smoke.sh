#!/usr/bin/env bash
# Short, repeatable libFuzzer run of every tests/fuzz/fuzz_*.c target: a
# fixed seed and a fixed number of inputs (ZDEM_FUZZ_RUNS, default 2000), so
# the test gives the same answer on every machine; open-ended fuzzing is
# `tests/fuzz/run.sh SECONDS`. Skipped without clang, since the fuzz build
# needs clang's libFuzzer and sanitizer runtimes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
    echo "SKIP test_fuzz_smoke: clang not found"
    exit 0
fi
export ZDEM_FUZZ_RUNS=${ZDEM_FUZZ_RUNS:-2000}
exec bash "$here/fuzz/run.sh" 0
