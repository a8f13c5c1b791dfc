#!/usr/bin/env bash
# Same seeds as fuzz_teeworlds_chunks (a whole demo file is the input of both).
exec bash "$(dirname "$0")/fuzz_teeworlds_chunks.seed.sh" "$@"
