"""Per-stage shuffle write bytes of a Spark event log (completed stages), in stage order."""
import glob, json, subprocess, sys

for path in sorted(glob.glob(sys.argv[1] + "/*/events_*")):
    total = 0
    text = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout
    for line in text.decode().splitlines():
        e = json.loads(line)
        if e.get("Event") != "SparkListenerStageCompleted":
            continue
        si = e["Stage Info"]
        written = 0
        for acc in si.get("Accumulables", []):
            if acc.get("Name") == "internal.metrics.shuffle.write.bytesWritten":
                written = int(acc["Value"])
        total += written
        print(f'{si["Stage ID"]:3d} {written:10d}  {si["Stage Name"][:70]}')
    print(f"total {total}")
