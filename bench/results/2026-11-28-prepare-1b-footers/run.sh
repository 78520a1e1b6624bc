#!/usr/bin/env bash
# The 1-billion-edge prepare with the edge checks passed from the Parquet footers (commit c1c09f1;
# the generated edges are a bare Parquet scan with long endpoints and no nulls): the same
# generated tables as 2026-11-27-prepare-1b (same generator, same seed), then that run's steps
# (run-prepare.sh: the dry-run plan, bench-prepare --input under /usr/bin/time -v, the shuffle
# and free-disk monitor). Run from the repository root:
#   bench/results/2026-11-28-prepare-1b-footers/run.sh W
set -u
bench/results/2026-11-27-prepare-1b-lookup/run.sh "$@"
