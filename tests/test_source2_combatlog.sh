#!/usr/bin/env bash
# The Dota 2 combat log, every field and type, through a synthetic demo
# whose messages python3-protobuf built (tests/s2_combatlog_check.py): no
# corpus demo has combat-log entries.
set -euo pipefail
ROOT=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
exec "$PY" "$ROOT/tests/s2_combatlog_check.py" "${ZDEM_BIN:?}"
