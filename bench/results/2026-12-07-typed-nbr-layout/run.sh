#!/usr/bin/env bash
# Typed feature layout: pages a typed epoch touches per type, identity, seed-groups and neighborhood.
# Run from the repository root. WORK: the work folder (default work-dirs/typed-nbr-layout); FANOUT:
# the command (default bin/fanout); JAVA_CP: the class path PagesTouched.java runs on.
# Each step's output goes to logs/<step>.log beside this script.
set -euo pipefail
W="${WORK:-work-dirs/typed-nbr-layout}"
F="${FANOUT:-bin/fanout}"
L="$(dirname "$0")/logs"
mkdir -p "$W" "$L"
run() { # run NAME ARGS...: one command, its output to logs/NAME.log
  local name="$1"
  shift
  echo "\$ fanout $*" > "$L/$name.log"
  /usr/bin/time -v $F "$@" >> "$L/$name.log" 2>&1
}
run generate generate --output "$W/gen" --classes 4 --seed 1 \
  --types 'paper:100000:64,author:60000:32,venue:500:16,term:2000:0' \
  --relations 'writes=author>paper:300000,cites=paper>paper:400000,venue>paper:100000,term>paper:200000'
for layout in identity seed-groups neighborhood; do
  run "prepare-$layout" prepare --graph-spec "$W/gen/graph.json" --add-reverse --partitions 4 \
    --feature-layout "$layout" --output "$W/store-$layout"
  run "inspect-$layout" inspect "$W/store-$layout"
done
# the shards do not depend on the feature layout (sample reads no feature rows): one set
run sample sample --graph "$W/store-identity" --output "$W/shards" --fanouts '*=10,5' \
  --batch-size 1024 --epochs 1 --seed 1
echo "\$ java PagesTouched.java $W/shards $W/store-identity $W/store-seed-groups $W/store-neighborhood" \
  > "$L/pages.log"
java -cp "$JAVA_CP" "$(dirname "$0")/PagesTouched.java" "$W/shards" "$W/store-identity" \
  "$W/store-seed-groups" "$W/store-neighborhood" >> "$L/pages.log" 2>&1
