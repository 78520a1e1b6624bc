#!/bin/sh
# Run after command.sh, from the repository root on the same machine.
R=bench/results/2026-12-07-out-of-core-layout-2
mkdir -p /tmp/fanout-ooc
uptime > $R/load-local99.txt
# B: communities of 32 vertices, 99% of in-neighbors inside them (run B of 2026-12-07-out-of-core-layout).
FANOUT_JAVA_OPTS="-Xmx2g" nice -n 10 bin/fanout bench-out-of-core --batches 50 \
  --locality 0.99 --community-size 32 --layouts neighborhood,seed-groups,first-use \
  --coalescing merged,near --work-dir /tmp/fanout-ooc > $R/run-local99.json 2> $R/run-local99.log
uptime >> $R/load-local99.txt
rmdir /tmp/fanout-ooc
