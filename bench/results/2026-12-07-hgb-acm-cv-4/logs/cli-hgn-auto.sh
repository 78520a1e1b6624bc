#!/bin/bash
# the same hgn without non-target embeddings (only term, which has no features, embedded)
set -euo pipefail
cd $REPO
W=$WORK
for S in 1 2 3; do
  time bin/fanout train --graph $W/acm.store --shards $W/acm.shards --model-dir $W/hgn-auto.$S --model hgn \
    --hidden 8 --heads 8 --input-width 64 --dropout 0.5 --attn-dropout 0.5 \
    --lr 5e-3 --weight-decay 1e-4 --epochs 20 --seed $S
  bin/fanout evaluate --graph $W/acm.store --model-dir $W/hgn-auto.$S --checkpoint last
done
