#!/usr/bin/env bash
# Typed training (CPU backend) with hot reuse (--reuse-hot) through the typed feature cache at a
# budget of 10% of the store's feature bytes, against the same cache without reuse and against
# reuse over the memory-mapped store (no --feature-cache): the rows the caches read, and whether
# the checkpoints of reuse through a cache equal reuse over the mapped store. The graph, shards and
# training settings are those of ../2026-12-07-typed-cache. Run from the repository root:
#   WORK=/tmp/typed-cache-reuse bench/results/2026-12-07-typed-cache-reuse/run.sh
set -euo pipefail
WORK="${WORK:-/tmp/typed-cache-reuse}"
FRACTION="${FRACTION:-0.3}"
mkdir -p "$WORK"
if [ ! -d "$WORK/store" ]; then
  bin/fanout generate --output "$WORK/gen" --classes 4 --seed 1 \
      --types 'paper:40000:128,author:40000:128,venue:500:32' \
      --relations 'writes=author>paper:200000,cites=paper>paper:200000,venue>paper:40000'
  bin/fanout prepare --graph-spec "$WORK/gen/graph.json" --add-reverse --output "$WORK/store"
  bin/fanout sample --graph "$WORK/store" --output "$WORK/shards" --split train \
      --fanouts '*=10,5' --batch-size 256 --epochs 1 --seed 3
fi
ALL=$(python3 -c "
import json,sys
m=json.load(open('$WORK/store/manifest.json'))
print(sum(t['vertices']*t['feature_dim']*4 for t in m['types'] if t.get('feature_dim',0)>0))")
TENTH=$((ALL / 10))
echo "feature bytes $ALL, 10% = $TENTH"
run() {
  local name="$1"; shift
  rm -rf "$WORK/model-$name"
  echo "== $name $*"
  bin/fanout train --graph "$WORK/store" --shards "$WORK/shards" --model-dir "$WORK/model-$name" \
      --model rgcn --hidden 64 --epochs 3 --backend cpu --loader-threads "${LT:-1}" --prefetch "${PF:-2}" \
      --progress log "$@"
}
REUSE=(--reuse-hot "$FRACTION" --staleness auto)
run mapped-reuse "${REUSE[@]}"
run belady-10 --feature-cache belady --feature-cache-bytes "$TENTH"
run belady-10-reuse --feature-cache belady --feature-cache-bytes "$TENTH" "${REUSE[@]}"
run lru-10 --feature-cache lru --feature-cache-bytes "$TENTH"
LT=2 PF=4 run lru-10-reuse --feature-cache lru --feature-cache-bytes "$TENTH" "${REUSE[@]}"
for m in belady-10-reuse lru-10-reuse; do
  cmp "$WORK/model-mapped-reuse/checkpoint.bin" "$WORK/model-$m/checkpoint.bin" \
      && echo "checkpoint.bin of $m = mapped-reuse"
done
