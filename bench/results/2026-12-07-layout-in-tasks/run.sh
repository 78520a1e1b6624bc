#!/bin/bash
# prepare --feature-layout seed-groups with the driver-side layout (OLD jars, make-old-jars.sh) and
# with the layout in one Spark task per partition (NEW jars), same input, same machine, one after
# the other; then prepare without a layout (the other steps' cost). Each run: wall time, max RSS
# (/usr/bin/time -v), the JVM's GC log (heap before/after each collection), its stderr with a
# timestamp per line (the progress lines name the step running, and prepare's phase lines, through
# java-phases.sh, how long each step took). Then the two laid-out stores' feature files are
# compared byte for byte. IDENTITY=0 leaves out the run without a layout; JFR=1 records each run
# with Java Flight Recorder (allocation samples by thread: alloc-by-thread.py).
# usage (from the repository root): DATASET=folder-with-vertices/edges.parquet JARS=out-of-make-old-jars
#   OUT=log-folder run.sh
set -uo pipefail
: "${DATASET:?}" "${JARS:?}" "${OUT:?}"
PARTS=${PARTS:-6}
HEAP=${HEAP:--Xmx6g}
mkdir -p "$OUT"
run() { # label jars layout
  local label=$1 jars=$2 layout=$3
  rm -rf "$OUT/store-$label"
  echo "== $label: $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/summary.txt"
  FANOUT_JAVA="$(dirname "$0")/java-phases.sh" FANOUT_PREBUILT="$JARS/$jars" \
    FANOUT_JAVA_OPTS="$HEAP -Xlog:gc:file=$OUT/gc-$label.log:time,uptime ${JFR:+-XX:StartFlightRecording=filename=$OUT/$label.jfr,settings=profile}" \
    /usr/bin/time -v -o "$OUT/time-$label.txt" \
    bin/fanout prepare --vertices "$DATASET/vertices.parquet" --edges "$DATASET/edges.parquet" \
      --partitions "$PARTS" --feature-layout "$layout" --output "$OUT/store-$label" \
    2> >(while IFS= read -r l; do echo "$(date -u +%T.%3N) $l"; done > "$OUT/stderr-$label.log") \
    > "$OUT/stdout-$label.json"
  echo "rc=$? $(grep -E 'Elapsed|Maximum resident' "$OUT/time-$label.txt" | tr -s ' \t' ' ' | tr '\n' ';')" >> "$OUT/summary.txt"
  python3 "$(dirname "$0")/layout-window.py" "$OUT" "$label" >> "$OUT/summary.txt"
}
run old old seed-groups
run new new seed-groups
if [ "${IDENTITY:-1}" = 1 ]; then
  run identity new identity
fi
a=$(dirname "$(find "$OUT/store-old" -name layout.perm)")
b=$(dirname "$(find "$OUT/store-new" -name layout.perm)")
for f in $(ls "$b"); do
  if cmp -s "$a/$f" "$b/$f"; then r="same bytes"; else r="DIFFERENT"; fi
  echo "$r: features/$f ($(stat -c %s "$b/$f") bytes)" >> "$OUT/summary.txt"
done
