#!/usr/bin/env bash
# The real bin/fanout pipeline on the bundled cora -- prepare, sample, train, evaluate -- on an
# embedded local[4] Spark, train on BACKEND. Spark's local scheduler offers no task
# resources (a stage asking spark.task.resource.gpu.amount never starts there), so the training
# task takes device 0; on a cluster, Spark's assignment names the device (docs/distributed.md).
# For a machine without Maven: FANOUT_PREBUILT names the jars and FANOUT_JAVA the runtime
# (bench/gpu/make-spark-payload.sh).
#   bench/gpu/spark-pipeline.sh WORK_DIR [BACKEND]       BACKEND: cuda (default), auto or cpu
# Prints each command's JSON line; the last is evaluate's, with test_accuracy.
set -euo pipefail
W=$1
BACKEND=${2:-cuda}
cd "$(dirname "$0")/../.."
mkdir -p "$W"
SPARK=(--master 'local[4]')
D=data/cora
run() {
  echo "== $(date +%T) $1" >&2
  bin/fanout "$@" "${SPARK[@]}" --progress none
}
run prepare --vertices "$D/vertices.parquet" --edges "$D/edges.parquet" --undirected --dedupe \
  --self-loops drop --output "$W/store"
run sample --graph "$W/store" --output "$W/train-shards" --split train --fanouts 25,10 \
  --batch-size 512 --epochs 10
run sample --graph "$W/store" --output "$W/val-shards" --split val --fanouts 25,10 \
  --batch-size 512
run train --graph "$W/store" --shards "$W/train-shards" --val-shards "$W/val-shards" \
  --model-dir "$W/model" --backend "$BACKEND"
run evaluate --graph "$W/store" --model-dir "$W/model"
