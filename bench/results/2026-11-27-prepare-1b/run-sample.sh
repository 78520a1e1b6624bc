#!/usr/bin/env bash
# One epoch of sampling from the store run-prepare.sh left in OUT = W/work. Run from the
# repository root: bench/results/2026-11-27-prepare-1b/run-sample.sh W
set -u
W="${1:?usage: run-sample.sh W (the folder run-prepare.sh used)}"
OUT="$W/work"
FANOUT_JAVA_OPTS=-Xmx8g /usr/bin/time -v bin/fanout sample --graph "$OUT/store" \
  --output "$W/shards" --split train --fanouts 10,5 --batch-size 1024 --seed 0 \
  > "$W/sample.json" 2> "$W/sample.err"
echo "rc=$?" >> "$W/sample.json"
du -sb "$W/shards" > "$W/shards-bytes.txt"
