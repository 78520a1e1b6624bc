#!/usr/bin/env bash
# The 1-billion-edge prepare again, with the csr tasks looking endpoints up (--id-lookup auto, which
# takes task here): the same generated tables as 2026-11-27-prepare-1b (same generator, same seed),
# then that run's steps (run-prepare.sh: the dry-run plan, bench-prepare --input under
# /usr/bin/time -v, the shuffle and free-disk monitor). Run from the repository root:
#   bench/results/2026-11-27-prepare-1b-lookup/run.sh W
set -u
W="${1:?usage: run.sh W (an empty folder on a disk with about 70 GB free)}"
FANOUT_JAVA_OPTS=-Xmx8g /usr/bin/time -v bin/fanout generate --output "$W/input" \
  --num-vertices 100000000 --num-edges 1000000000 --feature-dim 16 --tasks 40 \
  > "$W/generate.json" 2> "$W/generate.err"
bench/results/2026-11-27-prepare-1b/run-prepare.sh "$W"
