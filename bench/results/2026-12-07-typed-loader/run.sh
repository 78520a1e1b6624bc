#!/usr/bin/env bash
# Typed training epoch time with --loader-threads 1 vs 2 (CPU backend) on a generated typed graph.
# Run from the repository root: WORK=/tmp/typed-loader bench/results/2026-12-07-typed-loader/run.sh
# (VAL=sampled ROUNDS=2 gave run1-sampled-validation.log; the default, val shards, run2-val-shards.log)
# The runs alternate (1, 2, 1, 2, ...) so that the load of a shared machine falls on both alike.
set -euo pipefail
WORK="${WORK:-/tmp/typed-loader}"
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
# VAL=shards: validation reads val shards through the same loader (else it samples the val split
# on the training thread, which the loader threads do not speed up)
VAL_OPTS=()
if [ "${VAL:-shards}" = shards ]; then
  if [ ! -d "$WORK/val-shards" ]; then
    bin/fanout sample --graph "$WORK/store" --output "$WORK/val-shards" --split val \
        --fanouts '*=10,5' --batch-size 256 --epochs 1 --seed 3
  fi
  VAL_OPTS=(--val-shards "$WORK/val-shards")
fi
for r in $(seq 1 "$ROUNDS"); do
  for t in 1 2; do
    rm -rf "$WORK/model-t$t"
    echo "round $r loader-threads $t"
    bin/fanout train --graph "$WORK/store" --shards "$WORK/shards" --model-dir "$WORK/model-t$t" \
        --model rgcn --hidden 64 --epochs 3 --backend cpu --loader-threads "$t" --prefetch 2 \
        --progress none "${VAL_OPTS[@]}"
  done
done
