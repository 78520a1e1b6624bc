#!/bin/bash
# usage: [DATASET=dir] run.sh SNAP NAME -Dprobe.x=y ...  : the probe from the class snapshot SNAP, 5-fold CV, output to logs/NAME.log
snap=$1; name=$2; shift 2
S=/tmp/hgncv/$snap
CP=$S/gpu-trainer/test-classes:$S/gpu-trainer/classes:$S/sampler/classes:$S/partitioner/classes:$S/partitioner/test-classes:$(paste -sd: /tmp/hgncv/jars.list)
start=$(date +%s)
echo "snapshot $snap args $*" > /tmp/hgncv/logs/$name.log
java -Xmx2g --add-modules=jdk.incubator.vector -cp $CP:/tmp/hgncv \
  -Dfanout.typedprobe="${DATASET:-../shared/datasets/hgb_acm}" -Dprobe.folds=3 -Dprobe.fold_seed=0 "$@" Run >> /tmp/hgncv/logs/$name.log 2>&1
echo "name $name rc $? wall $(( $(date +%s) - start ))s" >> /tmp/hgncv/logs/$name.log
