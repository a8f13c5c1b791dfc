#!/usr/bin/env bash
# Seeds for the Source 2 clip target: the Source 2 demo seeds (synthetic
# demos of tests/s2craft.py, corpus demos cut short; written at run time,
# never committed). Usage: OUTDIR CORPUS_DIR
exec bash "$(cd "$(dirname "$0")" && pwd)/fuzz_source2_entities.seed.sh" "$@"
