#!/bin/bash
# FANOUT_JAVA for run.sh: java with bin/fanout's log4j configuration swapped for
# log4j2-phases.properties (next to this script), so prepare's phase timings are printed.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
args=()
for a in "$@"; do
  case $a in
    -Dlog4j2.configurationFile=*) args+=("-Dlog4j2.configurationFile=$here/log4j2-phases.properties") ;;
    *) args+=("$a") ;;
  esac
done
exec java "${args[@]}"
