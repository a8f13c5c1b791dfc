#!/usr/bin/env bash
# Events with the players' and the game's props, zdem vs
# @laihoe/demoparser2, in process: zdem.parse_event against parseEvent,
# the same calls (every event name listGameEvents reports, the same
# player= and other= props) on every CS2 corpus file demoparser2 reads,
# interleaved rounds, CPU time of the calls (module loads excluded).
# Numbers only, no assertions.   bench/bench_events.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${1:-7}
BUILD=${ZDEM_BENCH_BUILD:-$ROOT/build-bench}
CORPUS=${ZDEM_CORPUS:-$(cd "$ROOT/../shared/corpus" && pwd)}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DZDEM_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target zdem_shared >/dev/null
if [ ! -d bench/node_modules/@laihoe/demoparser2 ]; then
    (cd bench && npm install --no-save --no-audit --no-fund @laihoe/demoparser2@0.42.0 >/dev/null 2>&1)
fi
export NODE_PATH=$ROOT/bench/node_modules ZDEM_LIB=$BUILD/libzdem.so
exec /usr/bin/python3 bench/bench_events.py "$N" "$CORPUS"/source2/cs2_*.dem
