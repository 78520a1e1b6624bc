#!/usr/bin/env bash
# The pq scale run of docs/features.md: a pq store whose feature file is about twice the memory
# the training process may use. Step 1 writes the store and shards into W/work outside any limit
# (generating 11 M rows of 1024 columns and training the codebooks with Spark's KMeans needs more
# than the limit); step 2 trains one epoch from them inside a 640 MiB memory cgroup, every feature
# row read from the device with O_DIRECT through a belady cache of 5% of the feature bytes.
# Run from the repository root: bench/results/2026-11-27-features-pq-scale/run.sh W
set -u
W="${1:?usage: run.sh W (a folder with about 3 GB free)}"
K="$W/work" # the kept store and shards
mkdir -p "$W"
GRAPH=(--num-vertices 11000000 --num-edges 55000000 --feature-dim 1024 --hidden 64 --fanouts 10,5
  --batch-size 256 --batches 600 --encoding pq --work-dir "$K")
FANOUT_JAVA_OPTS=-Xmx6g nice -n 10 /usr/bin/time -v bin/fanout bench-features "${GRAPH[@]}" \
  --write-only true > "$W/write.json" 2> "$W/write.err"
rc=$?
echo "rc=$rc" >> "$W/write.json"
[ "$rc" = 0 ] || exit "$rc"
du -sb "$K/store" "$K/shards" > "$W/work-bytes.txt"
# Drop the page cache (root), so the CSR and shard pages step 1 left cached (charged to the
# cgroup that wrote them) are read again and charged to the limited one. Feature rows are read
# with O_DIRECT, which never serves them from the page cache.
sync && echo 3 > /proc/sys/vm/drop_caches || echo "run.sh: could not drop the page cache" >&2
uptime > "$W/train-uptime.txt"
FANOUT_JAVA_OPTS=-Xmx500m nice -n 10 bench/features-at-scale.sh 640M "${GRAPH[@]}" --keep true \
  --direct-io true --cache-fractions 0.05 --runs none,belady,lru --warmup-epoch false \
  > "$W/train.json" 2> "$W/train.err"
echo "rc=$?" >> "$W/train.json"
uptime >> "$W/train-uptime.txt"
