#!/usr/bin/env bash
# Builds what a GPU machine without a JDK, Maven or network needs to run the GPU tests and the
# Spark-free training benchmark (docs/gpu.md): a jlink-made Java runtime, the gpu-trainer classes
# and their jars (without Hadoop, zstd and the PTX compiler's natives), the bench module's classes
# (TrainBenchmarkMain, which loads no Spark class), OpenBLAS for the CPU baseline, and TestData
# snapshots of cora. Writes .gpu-run/payload.tar.xz (ignored by git), which
# `run` carries: carry [".gpu-run/payload.tar.xz"] (not the whole folder, which may also hold the
# Spark parts of make-spark-payload.sh), then `bash bench/gpu/run-checks.sh`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mvn -B -ntp -o -q -pl gpu-trainer -am -DskipTests package dependency:copy-dependencies \
  -DincludeScope=test -DexcludeArtifactIds=hadoop-client-runtime,hadoop-client-api,zstd-jni \
  -DoutputDirectory='${project.build.directory}/gpu-lib'
# The benchmarks live in the bench module, above the Spark modules: compiling it needs Spark's jars
# from the local repository, running TrainBenchmarkMain does not.
mvn -B -ntp -o -q -pl bench -am -DskipTests compile
mkdir -p "$STAGE/fo/lib" "$STAGE/fo/blas" "$STAGE/fo/snap"
cp gpu-trainer/target/gpu-lib/*.jar "$STAGE/fo/lib/"
rm -f "$STAGE"/fo/lib/zstd-jni-*.jar
# The PTX compiler's natives (24 MB) serve PtxCompileTest, which runs on the CPU machines.
for j in "$STAGE"/fo/lib/jcuda-natives-*.jar; do
  zip -q -d "$j" 'lib/libJNvPTXCompiler*'
done
cp -r gpu-trainer/target/classes "$STAGE/fo/classes"
cp -r bench/target/classes "$STAGE/fo/bench-classes"
cp -r gpu-trainer/target/test-classes "$STAGE/fo/test-classes"
jlink --add-modules java.base,java.logging,java.management,java.xml,java.sql,java.naming,jdk.unsupported,jdk.incubator.vector,jdk.management,jdk.zipfs,jdk.jfr \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output "$STAGE/fo/jrt" 2>/dev/null
OB=/usr/lib/x86_64-linux-gnu/openblas-pthread
cp -L "$OB/libblas.so.3" "$OB/libopenblas.so.0" "$STAGE/fo/blas/"
cp -L /lib/x86_64-linux-gnu/libgfortran.so.5 /lib/x86_64-linux-gnu/libquadmath.so.0 "$STAGE/fo/blas/"
# Parquet files of the datasets may be zstd-compressed: the snapshot step reads them with zstd-jni.
HADOOP=$(find ~/.m2/repository/org/apache/hadoop -name 'hadoop-client-*-3.4.1.jar' | tr '\n' ':')
HADOOP=$HADOOP$(find ~/.m2/repository/com/github/luben -name 'zstd-jni-1.5.6-6.jar' | head -1)
java -cp "gpu-trainer/target/classes:gpu-trainer/target/test-classes:gpu-trainer/target/gpu-lib/*:$HADOOP" \
  -Dfanout.datasets="${FANOUT_DATASETS:-data}" io.fanout.train.TestData "$STAGE/fo/snap" cora \
  2>/dev/null
mkdir -p "$ROOT/.gpu-run"
tar -C "$STAGE" -cf - fo | xz -T2 -6 > "$ROOT/.gpu-run/payload.tar.xz"
ls -la "$ROOT/.gpu-run/payload.tar.xz"
