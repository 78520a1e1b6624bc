#!/bin/bash
# Makes OLD/ (the jars of this tree with the 7 classes of the driver-side layout, as at commit
# a1f583c, compiled over them) and NEW/ (the jars of this tree), both for FANOUT_PREBUILT.
# usage (from the repository root, after `mvn -o -B -q package -DskipTests`): make-old-jars.sh OUT
set -euo pipefail
OUT=$1
BASE=a1f583c
rm -rf "$OUT/old" "$OUT/new" "$OUT/oldsrc" "$OUT/oldclasses"
mkdir -p "$OUT/new" "$OUT/old" "$OUT/oldsrc" "$OUT/oldclasses"
cp jobs/target/fanout-jobs.jar bench/target/fanout-bench.jar "$OUT/new/"
cp -r jobs/target/lib "$OUT/new/lib"
cp -r "$OUT/new/." "$OUT/old/"
for f in partitioner/src/main/java/io/fanout/graph/{FeatureRelayout,FeatureRowOrder,NeighborhoodOrder,SeedGroupOrder,SeedLayouts}.java \
  spark-ops/src/main/java/io/fanout/spark/prepare/{PrepareJob,QuantizeJob}.java; do
  mkdir -p "$OUT/oldsrc/$(dirname "$f")"
  git show "$BASE:$f" > "$OUT/oldsrc/$f"
done
CP="$(ls "$OUT"/new/lib/*.jar | tr '\n' ':')$OUT/new/fanout-jobs.jar"
javac -nowarn -proc:none --release 17 --add-modules jdk.incubator.vector -cp "$CP" -d "$OUT/oldclasses" \
  $(find "$OUT/oldsrc" -name '*.java') 2>&1 | grep -v "^Note:\|incubator" || true
PART=$(ls "$OUT"/old/lib/fanout-partitioner*.jar)
OPS=$(ls "$OUT"/old/lib/fanout-spark-ops*.jar)
(cd "$OUT/oldclasses" && jar uf "$PART" io/fanout/graph/*.class && jar uf "$OPS" io/fanout/spark/prepare/*.class)
ls -l "$PART" "$OPS"
