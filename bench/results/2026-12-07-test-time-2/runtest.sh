#!/bin/bash
# usage: runtest.sh ROOT MODULE CLASSES LABEL
root=$1; m=$2; c=$3; label=$4; extra="$5"
cd "$root"
mkdir -p /tmp/citime2/logs
log=/tmp/citime2/logs/$label-$m-$(date +%H%M%S).log
up="$(uptime)"
/usr/bin/time -f "%U %S %e" -o /tmp/citime2/time.$$ mvn -o -B -ntp -pl $m -am test -Dtest="$c" -Dsurefire.failIfNoSpecifiedTests=false "-Dtest.heap=-Xmx4g $extra" "-Dtest.timeout=60 m" > $log 2>&1
rc=$?
read u s e < <(tail -1 /tmp/citime2/time.$$)
tt=""
for cc in ${c//,/ }; do
  f=$(ls $m/target/surefire-reports/TEST-*.$cc.xml 2>/dev/null | head -1)
  t=$(grep -o '<testsuite [^>]*' $f | grep -o ' time="[^"]*"' | cut -d'"' -f2)
  n=$(grep -o '<testsuite [^>]*' $f | grep -o ' tests="[^"]*"' | cut -d'"' -f2)
  tt="$tt $cc=${t}s(tests=$n)"
done
echo "$(date +%T) $label $m rc=$rc cpu=$(python3 -c "print(round($u+$s,1))") wall=$e |$tt | $extra | before: $up | after: $(uptime)" | tee -a /tmp/citime2/results.txt
