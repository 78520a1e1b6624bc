#!/usr/bin/env bash
# The GPU checks of docs/gpu.md, for a machine with an NVIDIA GPU but no JDK, Maven or network.
# Unpacks .gpu-run/payload.tar.xz (bench/gpu/make-payload.sh) and runs, each under its own time
# limit and into its own log under $OUT: the environment probe, the @Tag("gpu") tests, the
# Spark-free training benchmark on CUDA and on the CPU backend, and PyTorch's FP32 matrix product
# at 2048^3 as the cuBLAS reference.
#   bench/gpu/run-checks.sh quick   tests + a 500k-vertex CUDA benchmark (about 4 minutes)
#   bench/gpu/run-checks.sh profile the zero-copy products-size CUDA run only: device time per
#                                   kernel, then a JFR recording of the host
#   bench/gpu/run-checks.sh device  tests + the products-size CUDA run with the rows resident in
#                                   device memory: device time per kernel
#   bench/gpu/run-checks.sh zero-copy tests + the zero-copy products-size CUDA run (f32, and the
#                                   decode-gather of f16, int8 and int4 rows)
#   bench/gpu/run-checks.sh cache   tests + the zero-copy products-size CUDA run from pinned memory,
#                                   then through a belady feature cache of 5% and 20% (pinned pages)
#   bench/gpu/run-checks.sh cache-ab tests + the 5% cache run with .gpu-run/classes-before (an
#                                   earlier build's gpu-trainer classes, with the payload's bench
#                                   classes) and the payload's, twice
#   bench/gpu/run-checks.sh reuse   tests + hot-embedding reuse at products size on CUDA (0.1 / 4
#                                   and 0.05 / 8), refreshes overlapped on the CPU and inline;
#                                   REUSE_SETTINGS="0.2/8 0.1/8" REUSE_REFRESH=inline pick others,
#                                   REUSE_ACCESS="zero-copy gather" the feature access (gather),
#                                   REUSE_BATCHES=60 the steps an epoch less one (20),
#                                   REUSE_LIMIT=300 the seconds each run may take (200),
#                                   REUSE_BACKWARD="none deferred" the reuse backwards (none),
#                                   REUSE_ROWS="outputs inputs" what the cache holds (outputs)
#   bench/gpu/run-checks.sh peer    tests + Fanout (gather, zero-copy, device) against PyTorch
#                                   (resident, pinned, pipelined) on the same exported
#                                   products-size batches, alternating rounds (docs/gpu.md)
#   bench/gpu/run-checks.sh out-of-core the feature cache's O_DIRECT reads on this machine's disk
#                                   against the disk's own random and sequential rates (no GPU:
#                                   a 4.6 GB feature file per row layout under /tmp, -Xmx2g;
#                                   OOC_LIMIT=300 the seconds it may take)
#   bench/gpu/run-checks.sh papers100m one epoch at papers100M size on CUDA, rows resident in device
#                                   memory (111 M vertices, 1.6 B edges, 128 features written as
#                                   f16 rows to /tmp, uploaded, removed; SALIENT's model: SAGE, 3
#                                   layers, hidden 256, fanouts 15,10,5, batch 1024; 1179 timed
#                                   steps + 1 warm-up = 1,208,320 seeds); no tests first;
#                                   P100M_LIMIT=540 the seconds it may take
#   bench/gpu/run-checks.sh full    tests + the products-size benchmark on CUDA (gather, then
#                                   zero-copy feature access) and on the CPU backend
# Several modes run in one call (bench/gpu/run-checks.sh reuse cache-ab), the tests once.
set -u
MODES=("${@:-quick}")
MODE=${MODES[0]}
OUT=${OUT:-/tmp/fanout-gpu-out}
mkdir -p "$OUT"
W=/tmp/fanout-gpu
mkdir -p "$W"
tar -C "$W" -xJf .gpu-run/payload.tar.xz
FO=$W/fo
JAVA=$FO/jrt/bin/java
export LD_LIBRARY_PATH=$FO/blas:${LD_LIBRARY_PATH:-}
export OPENBLAS_NUM_THREADS=1
CP="$FO/classes:$FO/bench-classes:$FO/test-classes:$FO/lib/*"
JOPTS=(--add-modules=jdk.incubator.vector -XX:+UseParallelGC)
SUMMARY=$OUT/summary.txt

step() { # NAME SECONDS COMMAND...
  local name=$1 secs=$2
  shift 2
  echo "== $(date +%T) $name (limit ${secs}s)" | tee -a "$SUMMARY"
  timeout "$secs" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $(date +%T) $name rc=$rc" | tee -a "$SUMMARY"
  grep -E '^\{|passed,|accuracy|registered|dense products|FAIL|Exception|Error' "$OUT/$name.log" \
    | head -20 | tee -a "$SUMMARY"
}

{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nproc; free -g | head -2
  ldconfig -p | grep -E 'libcublas|libnvrtc|libcuda\.' || echo "no libcublas/libnvrtc in ldconfig"
  command -v java && java -version 2>&1 | head -1
  "$JAVA" -version 2>&1 | head -1
} > "$OUT/env.log" 2>&1
cat "$OUT/env.log" >> "$SUMMARY"

if [ "$MODE" != profile ] && [ "$MODE" != out-of-core ] && [ "$MODE" != papers100m ]; then
step gpu-tests 150 "$JAVA" "${JOPTS[@]}" -Xmx8g -cp "$CP" \
  -Dfanout.testdata.snapshots="$FO/snap" io.fanout.tensor.cuda.GpuTestMain

step torch-sgemm 60 python3 -c '
import torch, time
torch.backends.cuda.matmul.allow_tf32 = False
for n in (2048, 4096):
    a = torch.rand(n, n, device="cuda"); b = torch.rand(n, n, device="cuda")
    for _ in range(3): a @ b
    torch.cuda.synchronize(); best = 0
    for _ in range(10):
        t = time.perf_counter(); a @ b; torch.cuda.synchronize()
        best = max(best, 2 * n**3 / (time.perf_counter() - t) / 1e9)
    print("{\"torch_fp32_sgemm_%d_gflops\": %.1f, \"torch\": \"%s\"}" % (n, best, torch.__version__))
'
fi

for MODE in "${MODES[@]}"; do
  if [ "$MODE" = profile ]; then
    # Device time per kernel, then a JFR of the host, of the zero-copy products-size run.
    step bench-cuda-kernels 120 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" -Dfanout.cuda.kernel-times=true \
      io.fanout.bench.train.TrainBenchmarkMain --backend cuda --batches 40 --warmup 5 --loader-threads 14 \
      --prefetch 4 --feature-access zero-copy
    step bench-cuda-zc 120 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" \
      -XX:StartFlightRecording=filename="$OUT/zc.jfr",settings=profile \
      io.fanout.bench.train.TrainBenchmarkMain --backend cuda --batches 60 --warmup 5 --loader-threads 14 \
      --prefetch 4 --feature-access zero-copy
  elif [ "$MODE" = device ]; then
    # Rows resident in device memory: device time per kernel over 40 steps (the epoch is in peer)
    step bench-cuda-device-kernels 120 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" \
      -Dfanout.cuda.kernel-times=true io.fanout.bench.train.TrainBenchmarkMain --backend cuda \
      --batches 40 --warmup 5 --loader-threads 14 --prefetch 4 --feature-access device
  elif [ "$MODE" = zero-copy ]; then
    step bench-cuda-zc 200 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain \
      --backend cuda --batches 40 --warmup 5 --loader-threads 14 --prefetch 4 --feature-access zero-copy
  elif [ "$MODE" = cache ]; then
    # Zero-copy from rows all in pinned memory, then from a feature file through a belady cache of
    # 5% and 20% of the feature bytes whose pinned pages the kernel reads: same graph, same batches.
    step bench-cuda-zc 200 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain \
      --backend cuda --batches 40 --warmup 5 --loader-threads 14 --prefetch 4 --feature-access zero-copy
    # 4 I/O threads as train uses, then 12 (the machine's cores beside the loader's)
    for F in 0.05 0.2; do
      for T in 4 12; do
        step "bench-cuda-cache-$F-io$T" 200 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" \
          io.fanout.bench.train.TrainBenchmarkMain --backend cuda --batches 40 --warmup 5 \
          --loader-threads 14 --prefetch 4 --feature-access zero-copy --feature-cache-fraction "$F" \
          --feature-cache-io-threads "$T"
      done
    done
  elif [ "$MODE" = cache-ab ]; then
    # The 5% cache run with an earlier build's classes (.gpu-run/classes-before) and with the
    # payload's, alternating, twice: the same graph and batches in every run.
    for R in 1 2; do
      for V in before after; do
        C=$CP
        [ "$V" = before ] && C="$PWD/.gpu-run/classes-before:$FO/bench-classes:$FO/test-classes:$FO/lib/*"
        step "bench-cuda-cache-0.05-$V-$R" 200 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$C" \
          io.fanout.bench.train.TrainBenchmarkMain --backend cuda --batches 20 --warmup 3 \
          --loader-threads 14 --prefetch 4 --feature-access zero-copy --feature-cache-fraction 0.05
      done
    done
  elif [ "$MODE" = reuse ]; then
    # Steps with and without reuse on the same batches, alternating (HotReuseBenchmark); the loader
    # samples on 14 threads and its wait is left out of a step's time (the epochs include it).
    for FA in ${REUSE_ACCESS:-gather}; do
      for FS in ${REUSE_SETTINGS:-0.1/4 0.05/8}; do
        set -- ${FS/\// }
        for RF in ${REUSE_REFRESH:-overlapped inline}; do
          for RB in ${REUSE_BACKWARD:-none}; do
            for RR in ${REUSE_ROWS:-outputs}; do
              [ "$RR-$RB" = inputs-deferred ] && continue # refused: inputs pass the exact gradient
              step "bench-cuda-reuse-$FA-$1-$2-$RF-$RB-$RR" "${REUSE_LIMIT:-200}" "$JAVA" "${JOPTS[@]}" \
                -Xmx40g -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain --backend cuda \
                --batches "${REUSE_BATCHES:-20}" --warmup 1 --loader-threads 14 --prefetch 4 \
                --feature-access "$FA" --reuse-hot "$1" --staleness "$2" --reuse-refresh "$RF" \
                --reuse-backward "$RB" --reuse-rows "$RR" --reuse-rounds 3
            done
          done
        done
      done
    done
  elif [ "$MODE" = peer ]; then
    # 35 products-size batches and the 1 GB features.npy exported under /tmp (removed after), then
    # PEER_ROUNDS rounds of Fanout in each feature access and PyTorch in each variant (python3 on
    # PATH), then an epoch of 201 steps with sampling on 14 loader threads.
    step bench-cuda-peer "${PEER_LIMIT:-360}" "$JAVA" "${JOPTS[@]}" -Xmx48g -Djava.io.tmpdir=/tmp \
      -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain --backend cuda --peer torch \
      --peer-script bench/torch_reference.py --batches 30 --warmup 5 \
      --peer-rounds "${PEER_ROUNDS:-2}" --loader-threads 14 --prefetch 4
  elif [ "$MODE" = out-of-core ]; then
    # CPU and disk only: 16 I/O threads (the cores), the disk measured with as many.
    step bench-out-of-core "${OOC_LIMIT:-300}" "$JAVA" "${JOPTS[@]}" -Xmx2g -Djava.io.tmpdir=/tmp \
      -cp "$CP" io.fanout.bench.train.OutOfCoreBenchmarkMain --batches 50 --io-threads 16 \
      --loader-threads 14 --probe-seconds 3
  elif [ "$MODE" = papers100m ]; then
    # Needs about 28.4 GB free under /tmp for the f16 rows (removed once uploaded).
    step bench-cuda-papers100m "${P100M_LIMIT:-540}" "$JAVA" "${JOPTS[@]}" -Xmx64g \
      -Djava.io.tmpdir=/tmp -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain --backend cuda \
      --num-vertices 111059956 --num-edges 1615685872 --feature-dim 128 --hidden 256 \
      --fanouts 15,10,5 --batch-size 1024 --batches 1179 --warmup 1 --loader-threads 14 \
      --prefetch 4 --feature-access device
  elif [ "$MODE" = quick ]; then
    step bench-cuda 100 "$JAVA" "${JOPTS[@]}" -Xmx24g -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain \
      --backend cuda --num-vertices 500000 --num-edges 12000000 --batches 10 --warmup 2 --loader-threads 12
  else
    step bench-cuda 200 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain \
      --backend cuda --batches 40 --warmup 5 --loader-threads 14 --prefetch 4
    step bench-cuda-zc 200 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain \
      --backend cuda --batches 40 --warmup 5 --loader-threads 14 --prefetch 4 --feature-access zero-copy
    step bench-cuda-kernels 120 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" -Dfanout.cuda.kernel-times=true \
      io.fanout.bench.train.TrainBenchmarkMain --backend cuda --batches 20 --warmup 5 --loader-threads 14 \
      --prefetch 4 --feature-access zero-copy
    step bench-cpu 200 "$JAVA" "${JOPTS[@]}" -Xmx40g -cp "$CP" io.fanout.bench.train.TrainBenchmarkMain \
      --backend cpu --batches 8 --warmup 2 --loader-threads 2
  fi
done
echo "== $(date +%T) done" | tee -a "$SUMMARY"
