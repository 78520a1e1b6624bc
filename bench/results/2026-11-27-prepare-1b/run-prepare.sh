#!/usr/bin/env bash
# The 1-billion-edge prepare: the dry-run plan, then bench-prepare --input on the tables that
# `bin/fanout generate` wrote to W/input, with a 5-second monitor of Spark's shuffle folder (under
# /tmp, spark.local.dir's default) and of the free disk. Run from the repository root:
#   bench/results/2026-11-27-prepare-1b/run-prepare.sh W
set -u
W="${1:?usage: run-prepare.sh W (the folder holding W/input)}"
OUT="$W/work"
du -sb "$W/input/vertices.parquet" "$W/input/edges.parquet" > "$W/input-bytes.txt"
FANOUT_JAVA_OPTS=-Xmx4g bin/fanout prepare --conf spark.io.compression.codec=zstd \
  --vertices "$W/input/vertices.parquet" --edges "$W/input/edges.parquet" \
  --undirected true --dedupe true --self-loops drop --output "$OUT/store" --dry-run true \
  > "$W/dryrun.json" 2> "$W/dryrun.err"
( peak=0; minfree=999999999999999; while [ ! -f "$W/prepare.done" ]; do
    s=$(du -scb /tmp/blockmgr-* 2>/dev/null | tail -1 | cut -f1); s=${s:-0}
    f=$(df -B1 --output=avail "$W" | tail -1 | tr -d ' ')
    [ "$s" -gt "$peak" ] && peak=$s; [ "$f" -lt "$minfree" ] && minfree=$f
    echo "$(date +%T) shuffle=$s free=$f peak=$peak minfree=$minfree" > "$W/monitor.txt"
    sleep 5; done ) &
FANOUT_JAVA_OPTS=-Xmx12g /usr/bin/time -v bin/fanout bench-prepare \
  --conf spark.io.compression.codec=zstd --input "$W/input" --work-dir "$OUT" --keep true \
  > "$W/bench.json" 2> "$W/bench.err"
echo "rc=$?" >> "$W/bench.json"
touch "$W/prepare.done"
