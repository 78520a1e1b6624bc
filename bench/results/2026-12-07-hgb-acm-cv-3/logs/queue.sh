#!/bin/bash
# The runs of this note in their order, one at a time, from the repository root (they ran as a
# few chained copies of this list, each waiting for the one before). WORK is the scratch folder of
# run.sh (class snapshot snap-c1, jars.list, Run.class, logs/); DATASET the hgb_acm folder.
export WORK=${WORK:?set WORK to the scratch folder} DATASET=${DATASET:-../shared/datasets/hgb_acm}
H="-Dprobe.model=hgn -Dprobe.layers=2 -Dprobe.heads=8 -Dprobe.hidden=8 -Dprobe.input_width=64 -Dprobe.wd=1e-4 -Dprobe.dropout=0.5 -Dprobe.attn_dropout=0.5 -Dprobe.seeds=1 -Dprobe.verbose=true"
R="-Dprobe.model=rgcn -Dprobe.seeds=1 -Dprobe.verbose=true"
# stopped by hand in fold 0's epoch 34 (logs/stopped-hgn-b256-e100-lr5e-3.log):
# $WORK/run.sh $WORK/snap-c1 hgn-b256-e100-lr5e-3 $H -Dprobe.lr=5e-3 -Dprobe.batch=256 -Dprobe.epochs=100
$WORK/run.sh $WORK/snap-c1 hgn-b256-e60-lr5e-3 $H -Dprobe.lr=5e-3 -Dprobe.batch=256 -Dprobe.epochs=60
$WORK/run.sh $WORK/snap-c1 rgcn-b256-e60 $R -Dprobe.batch=256 -Dprobe.epochs=60
$WORK/run.sh $WORK/snap-c1 hgn-b256-e60-lr5e-3-cosine $H -Dprobe.lr=5e-3 -Dprobe.batch=256 -Dprobe.epochs=60 -Dprobe.schedule=cosine
$WORK/run.sh $WORK/snap-c1 rgcn-b256-e60-cosine $R -Dprobe.batch=256 -Dprobe.epochs=60 -Dprobe.schedule=cosine
$WORK/run.sh $WORK/snap-c1 hgn-b64-e20-lr5e-3-cosine $H -Dprobe.lr=5e-3 -Dprobe.batch=64 -Dprobe.epochs=20 -Dprobe.schedule=cosine
$WORK/run.sh $WORK/snap-c1 rgcn-b64-e20-cosine $R -Dprobe.batch=64 -Dprobe.epochs=20 -Dprobe.schedule=cosine
$WORK/run.sh $WORK/snap-c1 hgn-b256-e30-lr5e-3-seeds456 $H -Dprobe.lr=5e-3 -Dprobe.batch=256 -Dprobe.epochs=30 -Dprobe.first_seed=4
$WORK/run.sh $WORK/snap-c1 rgcn-b256-e30-seeds456 $R -Dprobe.batch=256 -Dprobe.epochs=30 -Dprobe.first_seed=4
$WORK/run.sh $WORK/snap-c1 hgn-b64-e40-lr5e-3-cosine $H -Dprobe.lr=5e-3 -Dprobe.batch=64 -Dprobe.epochs=40 -Dprobe.schedule=cosine
$WORK/run.sh $WORK/snap-c1 rgcn-b64-e40-cosine $R -Dprobe.batch=64 -Dprobe.epochs=40 -Dprobe.schedule=cosine
