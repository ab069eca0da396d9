"""Benchmark 13's check of a recorder's capture: every file of DIR read as docs/capture.md reads one (gzip, a header
line, then a JSON record a line), each topic's envelope seq followed; prints {"records", "gaps", "bytes", "files"}."""
import gzip
import json
import os
import sys


def records(path):
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        header = json.loads(next(lines))
        assert header["format"] == "tickwire-capture" and header["version"] == 1, header
        for line in lines:
            record = json.loads(line)
            yield record["t"], record["topic"], json.loads(record["envelope"])


def main():
    folder = sys.argv[1]
    files = sorted(name for name in os.listdir(folder) if name.endswith(".ndjson.gz"))
    count = gaps = 0
    last = {}
    for name in files:
        for _, topic, envelope in records(os.path.join(folder, name)):
            seq = envelope["seq"]
            if topic in last and seq != last[topic] + 1:
                gaps += 1
            elif topic not in last and seq != 1:
                gaps += 1
            last[topic] = seq
            count += 1
    size = sum(os.path.getsize(os.path.join(folder, name)) for name in files)
    print(json.dumps({"records": count, "gaps": gaps, "bytes": size, "files": len(files)}))


main()
