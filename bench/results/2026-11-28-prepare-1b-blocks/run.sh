#!/usr/bin/env bash
# The 1-billion-edge prepare with the edge blocks (--id-lookup auto, which takes task here, now
# shuffling packed blocks): the same generated tables as 2026-11-27-prepare-1b (same generator,
# same seed), then that run's steps (run-prepare.sh: the dry-run plan, bench-prepare --input under
# /usr/bin/time -v, the shuffle and free-disk monitor). Run from the repository root:
#   bench/results/2026-11-28-prepare-1b-blocks/run.sh W
set -u
bench/results/2026-11-27-prepare-1b-lookup/run.sh "$@"
