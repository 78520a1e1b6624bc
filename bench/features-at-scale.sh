#!/usr/bin/env bash
# Runs `bin/fanout bench-features` inside a memory cgroup (v1) that this script creates, limits,
# and removes afterwards, so the benchmark's process (JVM heap, native memory, and the page cache
# it charges) may use at most LIMIT bytes. Prints the benchmark's JSON line, then one JSON line
# with the cgroup's limit, peak usage (memory.max_usage_in_bytes: resident memory and page cache
# together), failcnt (times the limit was hit and memory reclaimed) and OOM kills.
#
#   bench/features-at-scale.sh LIMIT [bench-features options...]
#   LIMIT: bytes, or a number with K, M or G (binary units), e.g. 1G
#
# Needs a writable cgroup v1 memory controller (FANOUT_CGROUP_ROOT, default
# /sys/fs/cgroup/memory; root on this machine); refuses with exit 2 and says what is missing
# otherwise. Give the JVM a heap below LIMIT with FANOUT_JAVA_OPTS (e.g. -Xmx640m for 1G).
# See docs/feature-cache.md.
set -euo pipefail

die() {
  echo "features-at-scale: $*" >&2
  exit 2
}

[[ $# -ge 1 ]] || die "usage: bench/features-at-scale.sh LIMIT [bench-features options...]"
limit_arg=$1
shift
case "$limit_arg" in
  *[Kk]) limit=$(( ${limit_arg%[Kk]} * 1024 )) ;;
  *[Mm]) limit=$(( ${limit_arg%[Mm]} * 1024 * 1024 )) ;;
  *[Gg]) limit=$(( ${limit_arg%[Gg]} * 1024 * 1024 * 1024 )) ;;
  *[!0-9]* | '') die "LIMIT must be bytes or a number with K, M or G, got '$limit_arg'" ;;
  *) limit=$limit_arg ;;
esac
(( limit >= 64 * 1024 * 1024 )) || die "LIMIT must be at least 64M, got $limit_arg"

root=${FANOUT_CGROUP_ROOT:-/sys/fs/cgroup/memory}
[[ -f "$root/memory.limit_in_bytes" ]] \
  || die "no cgroup v1 memory controller at $root (no memory.limit_in_bytes there); mount one or set FANOUT_CGROUP_ROOT"
[[ -w "$root" ]] || die "cannot create a cgroup under $root (not writable; run as root)"

here=$(cd "$(dirname "$0")/.." && pwd)
# bin/fanout builds the jars when they are stale: do that here, outside the limit, so the build
# is neither limited nor counted in the cgroup's peak.
"$here/bin/fanout" help > /dev/null 2>&1 || true
cg="$root/fanout-features-$$"
mkdir "$cg" || die "mkdir $cg failed"
cleanup() {
  # The benchmark has exited; its cgroup is empty and can go.
  rmdir "$cg" 2>/dev/null || echo "features-at-scale: could not remove $cg" >&2
}
trap cleanup EXIT
echo "$limit" > "$cg/memory.limit_in_bytes" || die "setting memory.limit_in_bytes of $cg failed"
[[ $(cat "$cg/memory.limit_in_bytes") -le $limit ]] || die "the kernel did not apply the limit"
if [[ -f "$cg/memory.memsw.limit_in_bytes" ]]; then
  echo "$limit" > "$cg/memory.memsw.limit_in_bytes" || true
fi

set +e
(
  echo "$BASHPID" > "$cg/cgroup.procs"
  exec "$here/bin/fanout" bench-features "$@"
)
rc=$?
set -e
oom_kills=$(awk '$1 == "oom_kill" {print $2}' "$cg/memory.oom_control" 2>/dev/null || true)
printf '{"cgroup_limit_bytes":%s,"cgroup_max_usage_bytes":%s,"cgroup_failcnt":%s,"cgroup_oom_kills":%s,"exit_code":%s}\n' \
  "$limit" "$(cat "$cg/memory.max_usage_in_bytes")" "$(cat "$cg/memory.failcnt")" "${oom_kills:-0}" "$rc"
exit "$rc"
