#!/bin/sh
# Run from the repository root on the 2-core 24 GiB machine. Each run writes one 4.6 GB feature
# file per layout to /tmp/fanout-ooc (the machine's one disk) and removes it at the end.
R=bench/results/2026-12-07-out-of-core-layout-2
mkdir -p /tmp/fanout-ooc
uptime > $R/load.txt
# A: communities of 32 vertices, 90% of in-neighbors inside them (run A of 2026-12-07-out-of-core-layout).
FANOUT_JAVA_OPTS="-Xmx2g" nice -n 10 bin/fanout bench-out-of-core --batches 50 \
  --locality 0.9 --community-size 32 --layouts identity,neighborhood,seed-groups,first-use \
  --coalescing merged,near --work-dir /tmp/fanout-ooc > $R/run-local90.json 2> $R/run-local90.log
uptime >> $R/load.txt
# C: the graph of the 2026-11-28 run (no communities) (run C of 2026-12-07-out-of-core-layout).
FANOUT_JAVA_OPTS="-Xmx2g" nice -n 10 bin/fanout bench-out-of-core --batches 50 \
  --layouts identity,neighborhood,seed-groups,first-use --coalescing merged,near \
  --work-dir /tmp/fanout-ooc > $R/run-flat.json 2> $R/run-flat.log
uptime >> $R/load.txt
rmdir /tmp/fanout-ooc
