#!/usr/bin/env bash
# Same seeds as fuzz_quake3_msg (a whole demo file is the input of both).
exec bash "$(dirname "$0")/fuzz_quake3_msg.seed.sh" "$@"
