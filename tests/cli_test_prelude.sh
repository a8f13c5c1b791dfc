# Sourced by the shell tests that run the zdem CLI: finds the CLI, the
# corpus and Python (exits: FAIL without the CLI, SKIP without the corpus),
# and makes a scratch directory WORK removed on exit. Expects SRC set and
# the scratch directory's name in $1.
CORPUS=${ZDEM_CORPUS:-$SRC/../shared/corpus}
ZDEM=${ZDEM_BIN:-}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
if [ -z "$ZDEM" ] || [ ! -x "$ZDEM" ]; then
    echo "FAIL: ZDEM_BIN (the zdem CLI) is not set"
    exit 1
fi
if [ ! -f "$CORPUS/EXPECTED.md" ]; then
    echo "SKIP: corpus not found at $CORPUS"
    exit 0
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zdem-$1.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export ZDEM WORK CORPUS
