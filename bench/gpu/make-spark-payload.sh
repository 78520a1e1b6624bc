#!/usr/bin/env bash
# Builds the Spark runtime that `bin/fanout` needs on a GPU machine without a JDK or Maven, in
# parts small enough for one device call each (docs/gpu.md, "Spark on the GPU machine"):
# .gpu-run/spark-1 .. spark-N, each holding one piece (at most 48 MiB) of one xz-compressed tar of
#   fs/fanout-jobs.jar, fs/fanout-bench.jar, fs/lib/*.jar   the jars bin/fanout runs
#   fs/jrt                                                  a jlink runtime (Java SE and what Spark uses)
# Each call carries one part and appends it under /tmp on the warm machine; the last call joins
# and unpacks them and runs bench/gpu/spark-pipeline.sh (bench/gpu/spark-parts.sh does both).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mvn -B -ntp -o -q package -DskipTests -Dspotless.apply.skip=true
mkdir -p "$STAGE/fs/lib"
cp jobs/target/fanout-jobs.jar bench/target/fanout-bench.jar "$STAGE/fs/"
cp jobs/target/lib/*.jar "$STAGE/fs/lib/"
L=$STAGE/fs/lib
# Natives for the one platform the GPU machine is (linux x86-64): the other platforms' copies are
# most of these jars. The PTX compiler's natives (24 MB) serve PtxCompileTest only.
zip -q -d "$L"/jcuda-natives-*.jar 'lib/libJNvPTXCompiler*' || true
zip -q -d "$L"/rocksdbjni-*.jar 'librocksdbjni-linux-*' 'librocksdbjni-linux32*' \
  'librocksdbjni-linux64-musl*' 'librocksdbjni-osx*' 'librocksdbjni-win*' || true
zip -q -d "$L"/zstd-jni-*.jar 'aix/*' 'win/*' 'darwin/*' 'freebsd/*' 'linux/aarch64/*' \
  'linux/arm/*' 'linux/i386/*' 'linux/loongarch64/*' 'linux/mips64/*' 'linux/ppc64/*' \
  'linux/ppc64le/*' 'linux/riscv64/*' 'linux/s390x/*' || true
zip -q -d "$L"/snappy-java-*.jar 'org/xerial/snappy/native/AIX/*' \
  'org/xerial/snappy/native/Mac/*' 'org/xerial/snappy/native/Windows/*' \
  'org/xerial/snappy/native/Linux/aarch64/*' 'org/xerial/snappy/native/Linux/arm*' \
  'org/xerial/snappy/native/Linux/ppc64*' 'org/xerial/snappy/native/Linux/s390x/*' \
  'org/xerial/snappy/native/Linux/x86/*' 'org/xerial/snappy/native/Linux/riscv64/*' \
  'org/xerial/snappy/native/Linux/loongarch64/*' 'org/xerial/snappy/native/SunOS/*' \
  'org/xerial/snappy/native/FreeBSD/*' || true
rm -f "$L"/netty-*-osx-*.jar "$L"/netty-*-linux-aarch_64.jar "$L"/netty-*-windows-*.jar
jlink --add-modules java.se,jdk.unsupported,jdk.incubator.vector,jdk.jfr,jdk.management,jdk.zipfs,jdk.crypto.ec,jdk.net,jdk.naming.dns,jdk.security.auth,jdk.security.jgss \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output "$STAGE/fs/jrt" 2>/dev/null
rm -rf "$ROOT"/.gpu-run/spark-*
mkdir -p "$ROOT/.gpu-run/parts"
tar -C "$STAGE" -cf - fs | xz -T2 -6 | split -b 48M -d -a 2 - "$ROOT/.gpu-run/parts/fs.tar.xz."
n=0
for f in "$ROOT"/.gpu-run/parts/fs.tar.*; do
  n=$((n + 1))
  mkdir -p "$ROOT/.gpu-run/spark-$n"
  mv "$f" "$ROOT/.gpu-run/spark-$n/"
done
rmdir "$ROOT/.gpu-run/parts"
echo "$n parts:"
du -sh "$ROOT"/.gpu-run/spark-*
