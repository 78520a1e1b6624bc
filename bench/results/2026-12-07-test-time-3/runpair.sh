#!/bin/bash
# usage: runpair.sh LABEL: the three changed classes in one mvn command, with Spark event logs
# (jobs per class, load-independent) and the command's cpu time; results in results.txt
B=bench/results/2026-12-07-test-time-3
label=$1; ev=/tmp/ci3/ev-$label; rm -rf $ev; mkdir -p $ev
up="$(uptime)"
/usr/bin/time -f "%U %S %e" -o /tmp/ci3/time.$label mvn -o -B -ntp -pl spark-ops -am test \
  -Dtest=InductiveScoringTest,GnnClassifierTest,InferenceApiTest -Dsurefire.failIfNoSpecifiedTests=false \
  "-Dtest.heap=-Xmx4g -Dspark.eventLog.enabled=true -Dspark.eventLog.dir=$ev" > $B/logs/pair-$label.log 2>&1
rc=$?
read u s e < <(tail -1 /tmp/ci3/time.$label)
mkdir -p $B/logs/reports-pair-$label
cp spark-ops/target/surefire-reports/TEST-*{InductiveScoringTest,GnnClassifierTest,InferenceApiTest}.xml $B/logs/reports-pair-$label/
tt=$(grep -h 'Tests run:.*in io' $B/logs/pair-$label.log | sed 's/.*Time elapsed: \([0-9.]*\) s -- in io.fanout.spark.\(ml.\)\?\(.*\)/\3=\1s/' | tr '\n' ' ')
echo "$(date -u +%T) $label rc=$rc cpu=$(python3 -c "print(round($u+$s,1))") wall=$e | $tt| before: $up | after: $(uptime)" | tee -a $B/results.txt
bash $B/jobcount.sh $ev | tee $B/logs/spark-jobs-$label.txt
