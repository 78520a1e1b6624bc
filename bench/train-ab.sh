#!/usr/bin/env bash
# Times `train` from two checkouts (each built, e.g. `git worktree add ../old REV` then `mvn -q
# package -DskipTests` there) on the same store and shards, alternating, and prints each run's
# epoch seconds and checkpoint hash: the same hash means the change kept the model's bits.
# Usage: bench/train-ab.sh OLD_ROOT NEW_ROOT STORE SHARDS VAL_SHARDS [EPOCHS=5] [ROUNDS=2] [SEED=1]
set -euo pipefail
[ $# -ge 5 ] || { sed -n 2,6p "$0" >&2; exit 2; }
old=$1 new=$2 store=$3 shards=$4 val=$5 epochs=${6:-5} rounds=${7:-2} seed=${8:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for round in $(seq 1 "$rounds"); do
  for side in old new; do
    root=$old
    [ "$side" = new ] && root=$new
    md="$out/$side-$round"
    start=$(date +%s)
    "$root/bin/fanout" train --graph "$store" --shards "$shards" --val-shards "$val" \
      --model-dir "$md" --epochs "$epochs" --seed "$seed" --log-every 0 --progress none >/dev/null 2>"$md.log" || { cat "$md.log" >&2; exit 1; }
    wall=$(($(date +%s) - start))
    secs=$(grep -o '"epoch_seconds":[0-9.]*' "$md/metrics.jsonl" | cut -d: -f2 | tr '\n' ' ')
    echo "$side round $round: wall ${wall} s, epoch seconds [ $secs], checkpoint sha256 $(sha256sum "$md/checkpoint.bin" | cut -c1-16)"
  done
done
