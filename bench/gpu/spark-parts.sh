#!/usr/bin/env bash
# One device call of the Spark run on the GPU machine (docs/gpu.md, "Spark on the GPU machine"):
# keeps the part this call carried (.gpu-run/spark-K, from bench/gpu/make-spark-payload.sh) under
# /tmp, which a warm machine keeps between calls; once all N parts are there, joins and unpacks
# them and runs bench/gpu/spark-pipeline.sh with the unpacked jars and runtime.
#   bench/gpu/spark-parts.sh K N [BACKEND]     call K of N (in any order), BACKEND as the pipeline's
# Logs go to $OUT (default /tmp/fanout-gpu-out).
set -euo pipefail
K=$1
N=$2
BACKEND=${3:-cuda}
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/fanout-gpu-out}
P=/tmp/fanout-spark-parts
R=/tmp/fanout-spark
mkdir -p "$P" "$OUT"
cp .gpu-run/spark-"$K"/* "$P/"
have=$(find "$P" -name 'fs.tar.xz.*' | wc -l)
echo "part $K kept: $have of $N parts under $P"
if [ "$have" -lt "$N" ]; then
  exit 0
fi
rm -rf "$R"
mkdir -p "$R"
cat "$P"/fs.tar.xz.* | xz -d -T0 | tar -C "$R" -xf -
FANOUT_PREBUILT=$R/fs FANOUT_JAVA=$R/fs/jrt/bin/java FANOUT_JAVA_OPTS=-Xmx24g \
  bash bench/gpu/spark-pipeline.sh /tmp/fanout-spark-work "$BACKEND" 2>&1 | tee "$OUT/spark-pipeline.log"
