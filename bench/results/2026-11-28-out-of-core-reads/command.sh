#!/bin/sh
# Run from the repository root. The feature files (4.6 GB each, one per layout) go to a temporary
# folder on the machine's one disk and are removed at the end.
FANOUT_JAVA_OPTS="-Xmx2g" nice -n 10 bin/fanout bench-out-of-core --batches 50 \
  > bench/results/2026-11-28-out-of-core-reads/run.json \
  2> bench/results/2026-11-28-out-of-core-reads/run.log
