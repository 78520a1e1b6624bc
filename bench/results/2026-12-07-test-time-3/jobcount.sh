#!/bin/bash
# (copied from ../2026-12-07-test-time-2) usage: jobcount.sh EVENTLOG_DIR: Spark jobs and stages per application (test class), from
# Spark 4's rolling, zstd-compressed event logs (-Dspark.eventLog.enabled=true)
for d in "$1"/eventlog_v2_*; do
  ev=$(for f in "$d"/events_*; do case "$f" in *.zstd) zstd -dcq "$f" 2>/dev/null;; *) cat "$f";; esac; done)
  app=$(grep -m1 -o '"App Name":"[^"]*"' <<<"$ev" | cut -d'"' -f4)
  jobs=$(grep -c '"Event":"SparkListenerJobStart"' <<<"$ev")
  stages=$(grep -c '"Event":"SparkListenerStageCompleted"' <<<"$ev")
  echo "$app jobs=$jobs stages=$stages"
done | sort
