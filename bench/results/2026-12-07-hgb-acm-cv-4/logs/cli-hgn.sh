#!/bin/bash
# hgb_acm through the command line: rgcn (the quickstart's settings for 20 epochs) and hgn with
# non-target embeddings, seeds 1-3; val scores of the last epoch
set -euo pipefail
cd $REPO
D=$SHARED/datasets/hgb_acm
W=$WORK
rm -rf $W; mkdir -p $W
time bin/fanout prepare --graph-spec $D --output $W/acm.store
time bin/fanout sample --graph $W/acm.store --output $W/acm.shards --fanouts '*=-1,-1' --batch-size 256 --epochs 1 --seed 1
for S in 1 2 3; do
  time bin/fanout train --graph $W/acm.store --shards $W/acm.shards --model-dir $W/hgn.$S --model hgn \
    --hidden 8 --heads 8 --input-width 64 --learned-embeddings non-target --dropout 0.5 --attn-dropout 0.5 \
    --lr 5e-3 --weight-decay 1e-4 --epochs 20 --seed $S
  bin/fanout evaluate --graph $W/acm.store --model-dir $W/hgn.$S --checkpoint last
done
for S in 1 2 3; do
  time bin/fanout train --graph $W/acm.store --shards $W/acm.shards --model-dir $W/rgcn.$S --model rgcn \
    --hidden 64 --dropout 0.5 --lr 0.01 --weight-decay 5e-4 --epochs 20 --seed $S
  bin/fanout evaluate --graph $W/acm.store --model-dir $W/rgcn.$S --checkpoint last
done
