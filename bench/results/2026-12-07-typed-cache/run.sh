#!/usr/bin/env bash
# Typed training (CPU backend) with the feature rows read through the typed feature cache at a
# budget of 10% of the store's feature bytes, against all rows in memory: the memory-mapped store
# (no --feature-cache) and a belady cache of every row. Run from the repository root:
#   WORK=/tmp/typed-cache ROUNDS=2 bench/results/2026-12-07-typed-cache/run.sh
# The runs of a round alternate so that the load of a shared machine falls on all of them alike.
set -euo pipefail
WORK="${WORK:-/tmp/typed-cache}"
ROUNDS="${ROUNDS:-2}"
mkdir -p "$WORK"
if [ ! -d "$WORK/store" ]; then
  bin/fanout generate --output "$WORK/gen" --classes 4 --seed 1 \
      --types 'paper:40000:128,author:40000:128,venue:500:32' \
      --relations 'writes=author>paper:200000,cites=paper>paper:200000,venue>paper:40000'
  bin/fanout prepare --graph-spec "$WORK/gen/graph.json" --add-reverse --output "$WORK/store"
  bin/fanout sample --graph "$WORK/store" --output "$WORK/shards" --split train \
      --fanouts '*=10,5' --batch-size 256 --epochs 1 --seed 3
fi
# every type's encoded feature bytes (f32 here): vertices x feature_dim x 4
ALL=$(python3 -c "
import json,sys
m=json.load(open('$WORK/store/manifest.json'))
print(sum(t['vertices']*t['feature_dim']*4 for t in m['types'] if t.get('feature_dim',0)>0))")
TENTH=$((ALL / 10))
echo "feature bytes $ALL, 10% = $TENTH"
run() {
  local name="$1"; shift
  rm -rf "$WORK/model-$name"
  echo "== round $r $name $*"
  bin/fanout train --graph "$WORK/store" --shards "$WORK/shards" --model-dir "$WORK/model-$name" \
      --model rgcn --hidden 64 --epochs 3 --backend cpu --loader-threads 1 --prefetch 2 \
      --progress log "$@"
}
for r in $(seq 1 "$ROUNDS"); do
  run mapped
  run belady-all --feature-cache belady --feature-cache-bytes "$ALL"
  run belady-10 --feature-cache belady --feature-cache-bytes "$TENTH"
  run lru-10 --feature-cache lru --feature-cache-bytes "$TENTH"
  run belady-10-direct --feature-cache belady --feature-cache-bytes "$TENTH" \
      --feature-cache-io direct
  for m in belady-all belady-10 lru-10 belady-10-direct; do
    cmp "$WORK/model-mapped/checkpoint.bin" "$WORK/model-$m/checkpoint.bin" \
        && echo "checkpoint.bin of $m = mapped"
  done
done
