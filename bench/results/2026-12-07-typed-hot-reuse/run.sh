#!/usr/bin/env bash
# Typed training time with and without --reuse-hot (CPU backend) on a generated typed graph.
# Run from the repository root: WORK=/tmp/typed-hot-reuse bench/results/2026-12-07-typed-hot-reuse/run.sh
# (run1.log, run2.log: the defaults with ROUNDS=2 and 3; run3.log: FRACTIONS="0 0.8" STALENESS=93 ROUNDS=3)
# The runs alternate (off, 0.3, 0.8, off, ...) so that the load of a shared machine falls on all alike.
set -euo pipefail
WORK="${WORK:-/tmp/typed-hot-reuse}"
ROUNDS="${ROUNDS:-2}"
EPOCHS="${EPOCHS:-2}"
FRACTIONS="${FRACTIONS:-0 0.3 0.8}"
STALENESS="${STALENESS:-auto}"
mkdir -p "$WORK"
if [ ! -d "$WORK/store" ]; then
  bin/fanout generate --output "$WORK/gen" --classes 4 --seed 1 \
      --types 'paper:40000:128,author:40000:128,venue:500:32' \
      --relations 'writes=author>paper:200000,cites=paper>paper:200000,venue>paper:40000'
  bin/fanout prepare --graph-spec "$WORK/gen/graph.json" --add-reverse --output "$WORK/store"
  bin/fanout sample --graph "$WORK/store" --output "$WORK/shards" --split train \
      --fanouts '*=10,5' --batch-size 256 --epochs 1 --seed 3
fi
for r in $(seq 1 "$ROUNDS"); do
  for f in $FRACTIONS; do
    rm -rf "$WORK/model-$f"
    echo "round $r reuse-hot $f"
    bin/fanout train --graph "$WORK/store" --shards "$WORK/shards" --model-dir "$WORK/model-$f" \
        --model rgcn --hidden 64 --epochs "$EPOCHS" --backend cpu --loader-threads 1 --prefetch 2 \
        --reuse-hot "$f" --staleness "$STALENESS" --progress none
  done
done
