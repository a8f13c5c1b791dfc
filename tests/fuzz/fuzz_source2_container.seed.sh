#!/usr/bin/env bash
# Same seeds as fuzz_source2_entities (a whole demo file is the input of both).
exec bash "$(dirname "$0")/fuzz_source2_entities.seed.sh" "$@"
