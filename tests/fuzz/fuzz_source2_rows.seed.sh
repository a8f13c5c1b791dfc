#!/usr/bin/env bash
# Same seeds as fuzz_source2_entities (small synthetic and cut corpus demos).
exec bash "$(dirname "$0")/fuzz_source2_entities.seed.sh" "$@"
