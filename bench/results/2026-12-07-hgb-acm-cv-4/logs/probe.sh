#!/bin/bash
# usage: probe.sh NAME settings...
name=$1; shift
cd $REPO
{ echo "# $name: $*"; date -u; } > $RUNS/$name.log
/usr/bin/time -f "wall %e s" nice -n 5 mvn -o -B -ntp -pl gpu-trainer test -Dtest=TypedAccuracyProbe -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfanout.typedprobe=$SHARED/datasets/hgb_acm -Dprobe.folds=3 -Dprobe.fold_seed=0 -Dprobe.seeds=1 -Dprobe.verbose=true "$@" >> $RUNS/$name.log 2>&1
cat $REPO/gpu-trainer/target/surefire-reports/io.fanout.train.typed.TypedAccuracyProbe-output.txt >> $RUNS/$name.log
