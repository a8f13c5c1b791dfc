#!/usr/bin/env bash
# Source 2 full parse with entities, zdem vs @laihoe/demoparser2, in process:
# zdem's library parse (entities and events) against parseTicks, on every
# Source 2 corpus file demoparser2 reads, interleaved rounds, CPU time of
# each parse (module loads and file reads excluded), median per file.
# Numbers only, no assertions.   bench/bench_source2_cpu.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${1:-15}
BUILD=${ZDEM_BENCH_BUILD:-$ROOT/build-bench}
CORPUS=${ZDEM_CORPUS:-$(cd "$ROOT/../shared/corpus" && pwd)}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DZDEM_TESTS=OFF -DZDEM_BENCH=ON >/dev/null
cmake --build "$BUILD" -j2 --target bench_source2_entities >/dev/null
# the tests' copy (tests/deps.sh) when there is one, else bench's own
if [ -d tests/node_modules/@laihoe/demoparser2 ]; then
    export NODE_PATH=$ROOT/tests/node_modules
else
    if [ ! -d bench/node_modules/@laihoe/demoparser2 ]; then
        (cd bench && npm install --no-save --no-audit --no-fund @laihoe/demoparser2@0.42.0 >/dev/null 2>&1)
    fi
    export NODE_PATH=$ROOT/bench/node_modules
fi
exec /usr/bin/python3 bench/bench_source2_cpu.py "$N" "$BUILD/bench/bench_source2_entities" "$CORPUS"/source2/*.dem
