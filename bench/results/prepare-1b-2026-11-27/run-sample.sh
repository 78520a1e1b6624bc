#!/usr/bin/env bash
# One epoch of sampling from the 1-billion-edge store.
set -u
B=/work/scale/big
cd /work/run-b
FANOUT_JAVA_OPTS=-Xmx8g /usr/bin/time -v bin/fanout sample --graph $B/work/store \
  --output $B/shards --split train --fanouts 10,5 --batch-size 1024 --seed 0 \
  > $B/sample.json 2> $B/sample.err
echo "rc=$?" >> $B/sample.json
du -sb $B/shards > $B/shards-bytes.txt
touch $B/sample.done
