#!/bin/bash
# usage: WORK=dir [DATASET=dir] run.sh SNAP NAME -Dprobe.x=y ...
# Runs TypedAccuracyProbe (3-fold cross-validation, fold seed 0) from the class snapshot SNAP (a copy
# of gpu-trainer's classes and test-classes, sampler's classes, partitioner's classes and
# test-classes, taken from a build of the branch), niced, with the jars of $WORK/jars.list (the
# test class path, one jar a line) and Run.class (Run.java, compiled into $WORK); the output goes to
# $WORK/logs/NAME.log. Run from the repository root: DATASET defaults to ../shared/datasets/hgb_acm.
snap=$1; name=$2; shift 2
: "${WORK:?set WORK to the scratch folder}"
S=$snap
CP=$S/gpu-trainer/test-classes:$S/gpu-trainer/classes:$S/sampler/classes:$S/partitioner/classes:$S/partitioner/test-classes:$(paste -sd: "$WORK/jars.list")
start=$(date +%s)
echo "snapshot $(basename "$snap") args $*" > "$WORK/logs/$name.log"
nice -n 15 java -Xmx2g --add-modules=jdk.incubator.vector -cp "$CP:$WORK" \
  -Dfanout.typedprobe="${DATASET:-../shared/datasets/hgb_acm}" -Dprobe.folds=3 -Dprobe.fold_seed=0 "$@" Run >> "$WORK/logs/$name.log" 2>&1
echo "name $name rc $? wall $(( $(date +%s) - start ))s" >> "$WORK/logs/$name.log"
