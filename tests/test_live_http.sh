#!/bin/bash
# `zdem events URL` against a broadcast served live from 127.0.0.1 by a
# server the test starts itself (tests/live_http_check.py: 404s before a
# fragment is published, a stalled answer, two dropped connections, then an
# endless fragment): the same lines as the directory reading, and streamed:
# each delta fragment is withheld until the lines of the fragments before
# it are on zdem's stdout (an order, not a clock; only a hang bound).
# Skipped, saying so, when this zdem was built without libcurl.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
BC=${ZDEM_CORPUS:?}/source2-broadcast/deadlock-demofile-net
if [ ! -d "$BC" ]; then
    echo "SKIP test_live_http: $BC not in the corpus"
    exit 0
fi
if "${ZDEM_BIN:?}" events --idle-timeout 1 http://127.0.0.1:1/ 2>&1 | grep -q "URLs need libcurl"; then
    echo "SKIP test_live_http: this zdem was built without libcurl (apt-get install libcurl4-openssl-dev)"
    exit 0
fi
exec "$PY" "$(dirname "$0")/live_http_check.py" "$ZDEM_BIN" "$BC"
