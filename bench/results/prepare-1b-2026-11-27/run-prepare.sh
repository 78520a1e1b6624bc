#!/usr/bin/env bash
# The 1-billion-edge prepare: dry-run plan, then bench-prepare --input on the generated tables.
set -u
B=/work/scale/big
cd /work/run-b
du -sb $B/input/vertices.parquet $B/input/edges.parquet > $B/input-bytes.txt
df -B1 /work > $B/df-before.txt
FANOUT_JAVA_OPTS=-Xmx4g bin/fanout prepare --conf spark.io.compression.codec=zstd \
  --vertices $B/input/vertices.parquet --edges $B/input/edges.parquet \
  --undirected true --dedupe true --self-loops drop --output $B/work/store --dry-run true \
  > $B/dryrun.json 2> $B/dryrun.err
# peak bytes under Spark's local dir (shuffle, spills) and least free disk, every 5 s
( peak=0; minfree=999999999999999; while [ ! -f $B/prepare.done ]; do
    s=$(du -sb /tmp/blockmgr-* 2>/dev/null | awk '{t+=$1} END {print t+0}')
    f=$(df -B1 --output=avail /work | tail -1)
    [ "$s" -gt "$peak" ] && peak=$s; [ "$f" -lt "$minfree" ] && minfree=$f
    echo "$(date +%T) shuffle=$s free=$f peak=$peak minfree=$minfree" > $B/monitor.txt
    sleep 5; done ) &
FANOUT_JAVA_OPTS=-Xmx12g /usr/bin/time -v bin/fanout bench-prepare \
  --conf spark.io.compression.codec=zstd --input $B/input --workdir $B/work --keep true \
  > $B/bench.json 2> $B/bench.err
echo "rc=$?" >> $B/bench.json
touch $B/prepare.done
