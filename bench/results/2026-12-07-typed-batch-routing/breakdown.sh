#!/bin/bash
# per-stage shuffle write of one typed partitioned sample run, from Spark's event log
set -e
cd $WORK
for bp in false true; do
  rm -rf /tmp/routing-events/$bp; mkdir -p /tmp/routing-events/$bp
  nice -n 10 bin/fanout sample --conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file:///tmp/routing-events/$bp \
    --graph /tmp/routing-bench/shuffle/multilevel-4 --output /tmp/routing-bench/breakdown-$bp --overwrite true \
    --mode partitioned --split all --batch-size 64 --fanouts 10,5 --epochs 2 --seed 7 --batch-by-partition $bp
done
