#!/bin/bash
# usage: runtest.sh MODULE CLASS LABEL [extra jvm flags...]
cd "$(git rev-parse --show-toplevel)"
m=$1; c=$2; label=$3; shift 3
extra="$*"
start=$(date +%s.%N)
/usr/bin/time -f "%U %S %e" -o /tmp/citime/time.$$ mvn -o -q -B -ntp -pl $m -am test -Dtest="$c" -Dsurefire.failIfNoSpecifiedTests=false "-Dtest.heap=-Xmx4g $extra" "-Dtest.timeout=60 m" > /tmp/citime/log.$$ 2>&1
rc=$?
read u s e < <(tail -1 /tmp/citime/time.$$)
tt=""
for cc in ${c//,/ }; do
  f=$(ls $m/target/surefire-reports/TEST-*.$cc.xml 2>/dev/null | head -1)
  t=$(grep -o '<testsuite [^>]*' $f | grep -o ' time="[^"]*"' | cut -d'"' -f2)
  tt="$tt $cc=$t"
done
load=$(cut -d' ' -f1 /proc/loadavg)
echo "$(date +%T) $label rc=$rc cpu=$(python3 -c "print(round($u+$s,1))" 2>/dev/null) wall=$e load=$load $tt | $extra" | tee -a /tmp/citime/results.txt
[ $rc != 0 ] && tail -30 /tmp/citime/log.$$
rm -f /tmp/citime/time.$$
