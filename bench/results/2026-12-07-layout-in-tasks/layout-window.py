"""The feature layout step of one run.sh run: its time (prepare's phase line) and the heap the
JVM's collections saw during it (G1 log with time decorations), against the whole run's.
usage: python3 layout-window.py OUT LABEL"""
import datetime as dt
import re
import sys

out, label = sys.argv[1], sys.argv[2]
phases = {}
for line in open(f"{out}/stderr-{label}.log"):
    m = re.search(r"(\d\d:\d\d:\d\d\.\d{3}) INFO PrepareJob: prepare: (.+) in (\d+) ms", line)
    if m:
        end = dt.datetime.strptime(m.group(1), "%H:%M:%S.%f")
        phases[m.group(2)] = (end - dt.timedelta(milliseconds=int(m.group(3))), end, int(m.group(3)))
gcs = []
for line in open(f"{out}/gc-{label}.log"):
    m = re.search(r"T(\d\d:\d\d:\d\d\.\d{3}).*?(\d+)M->(\d+)M\((\d+)M\)", line)
    if m:
        t = dt.datetime.strptime(m.group(1), "%H:%M:%S.%f")
        gcs.append((t, int(m.group(2)), int(m.group(3))))
print(f"{label}: phases (ms): " + ", ".join(f"{k} {v[2]}" for k, v in phases.items()))
if "feature layout" in phases:
    lo, hi, ms = phases["feature layout"]
    inside = [g for g in gcs if lo <= g[0] <= hi]
    print(
        f"{label}: feature layout {ms} ms; {len(inside)} collections in it, heap before them"
        f" max {max((g[1] for g in inside), default=0)} MB, after them max"
        f" {max((g[2] for g in inside), default=0)} MB"
    )
print(
    f"{label}: whole run, {len(gcs)} collections, heap before max {max(g[1] for g in gcs)} MB,"
    f" after max {max(g[2] for g in gcs)} MB"
)
