"""Bytes allocated during the feature layout step of one run.sh run (JFR=1), by thread: on the
driver's threads (main and the threads it starts) against Spark's task threads ("Executor task
launch worker"), which on a cluster run on the executors. From JFR's jdk.ObjectAllocationSample
events (weights: an estimate of the bytes allocated since the thread's last sample).
usage: python3 alloc-by-thread.py OUT LABEL"""
import datetime as dt
import json
import re
import subprocess
import sys
from collections import defaultdict

out, label = sys.argv[1], sys.argv[2]
window = None
for line in open(f"{out}/stderr-{label}.log"):
    m = re.search(r"(\d\d:\d\d:\d\d\.\d{3}) INFO PrepareJob: prepare: feature layout in (\d+) ms", line)
    if m:
        end = dt.datetime.strptime(m.group(1), "%H:%M:%S.%f").time()
        start = (dt.datetime.combine(dt.date.today(), end) - dt.timedelta(milliseconds=int(m.group(2)))).time()
        window = (start, end, int(m.group(2)))
raw = subprocess.run(
    ["jfr", "print", "--json", "--events", "jdk.ObjectAllocationSample", f"{out}/{label}.jfr"],
    capture_output=True, text=True, check=True).stdout
events = json.loads(raw)["recording"]["events"]
by_thread = defaultdict(int)
for e in events:
    t = dt.datetime.fromisoformat(e["values"]["startTime"][:23]).time()
    if window[0] <= t <= window[1]:
        thread = e["values"]["eventThread"]["javaName"] or "?"
        by_thread[re.sub(r"\d+", "N", thread)] += e["values"]["weight"]
tasks = sum(w for k, w in by_thread.items() if k.startswith("Executor task launch worker"))
driver = sum(by_thread.values()) - tasks
print(f"{label}: feature layout {window[2]} ms; allocated in it: driver threads {driver / 2**20:.0f} MB,"
      f" task threads {tasks / 2**20:.0f} MB")
for k, w in sorted(by_thread.items(), key=lambda kv: -kv[1])[:8]:
    print(f"  {k}: {w / 2**20:.1f} MB")
