#!/usr/bin/env bash
# hgb_acm, typed rgcn on the f32 store and on stores whose paper features are quantized.
# Run from the repository root. DATASET: the dataset folder (default ../shared/datasets/hgb_acm);
# WORK: the work folder (default work-dirs/typed-quantized); FANOUT: the command (default
# bin/fanout); ENCODINGS: the quantize --feature-encoding values; SEEDS: the training seeds.
# Each step's output goes to logs/<step>.log beside this script.
set -euo pipefail
D="${DATASET:-../shared/datasets/hgb_acm}"
W="${WORK:-work-dirs/typed-quantized}"
F="${FANOUT:-bin/fanout}"
ENCODINGS="${ENCODINGS:-paper=int8 paper=int4}"
SEEDS="${SEEDS:-1 2 3}"
L="$(dirname "$0")/logs"
mkdir -p "$W" "$L"
run() { # run NAME ARGS...: one command, its output to logs/NAME.log
  local name="$1"
  shift
  echo "\$ fanout $*" > "$L/$name.log"
  $F "$@" >> "$L/$name.log" 2>&1
}
run prepare prepare --graph-spec "$D" --output "$W/store"
stores=store
for enc in $ENCODINGS; do
  run "quantize-${enc//=/-}" quantize "$W/store" --output "$W/store-${enc//=/-}" \
    --feature-encoding "$enc"
  stores="$stores store-${enc//=/-}"
done
for s in $stores; do
  run "$s-sample" sample --graph "$W/$s" --output "$W/$s.shards" --fanouts '*=-1,-1' \
    --batch-size 256 --epochs 1 --seed 1
  for seed in $SEEDS; do
    run "$s-train-s$seed" train --graph "$W/$s" --shards "$W/$s.shards" \
      --model-dir "$W/$s.rgcn.s$seed" --model rgcn --hidden 64 --dropout 0.5 --lr 0.01 \
      --weight-decay 5e-4 --epochs 20 --seed "$seed" --log-every 0
    for pick in last best; do
      run "$s-evaluate-s$seed-$pick" evaluate --graph "$W/$s" --model-dir "$W/$s.rgcn.s$seed" \
        --checkpoint "$pick"
    done
  done
done
