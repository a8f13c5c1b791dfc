#!/usr/bin/env bash
# Seeds for the events-mode target: the same as the entities target's (the
# synthetic demos and cut corpus demos).
exec bash "$(dirname "$0")/fuzz_source2_entities.seed.sh" "$@"
