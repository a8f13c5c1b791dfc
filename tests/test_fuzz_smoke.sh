#!/usr/bin/env bash
# Short libFuzzer run of every tests/fuzz/fuzz_*.c target (10 s each by
# default, ZDEM_FUZZ_SECONDS to change). Skipped without clang, since the
# fuzz build needs clang's libFuzzer and sanitizer runtimes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
    echo "SKIP test_fuzz_smoke: clang not found"
    exit 0
fi
exec bash "$here/fuzz/run.sh" "${ZDEM_FUZZ_SECONDS:-10}"
