#!/bin/sh
# Run from the repository root: the same graph and batches, merged reads only, with 1 and 8 I/O
# threads (the disk's own rates are measured with the same number of threads in each run).
for t in 1 8; do
  FANOUT_JAVA_OPTS="-Xmx2g" nice -n 10 bin/fanout bench-out-of-core --batches 50 \
    --layouts identity,first-use,first-use-prior --coalescing merged --io-threads $t \
    > bench/results/2026-11-28-out-of-core-reads/run-io-threads-$t.json \
    2> bench/results/2026-11-28-out-of-core-reads/run-io-threads-$t.log
done
