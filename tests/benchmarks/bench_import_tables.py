"""Benchmark of the import of large evidence files: a GloBI table, a Xeno-canto CSV and a plain
text of about SIZE MB each, through the command line, as a curator runs it.

Run: .venv/bin/python tests/benchmarks/bench_import_tables.py [SIZE_MB (70)] [--repeat 3]
Each file is imported into a fresh project by ``bagel-studio import`` in a fresh interpreter
(with ``--max-document-mb`` raised, which versions that parsed these files whole needed; it is
no limit for tables and texts read as a stream), then imported again unchanged. Printed per
file, median of REPEAT: wall time, CPU time (user + system), the command's own peak RSS, and the
input read (MB) as the report gives it, beside the baseline (the same script on the sources
before tables were streamed and files read once) and the target: memory that does not grow with
the file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_scale import Run, command, load, median_run  # noqa: E402

# Measured with this script on the sources before the change (SIZE 70, just over the 64 MB the
# tables were limited to; median of 3, load average 9.7-11 on two shared cores): wall, CPU, peak
# RSS. Each file was read twice (hashed, then parsed), a table or text whole; again, hashed.
BASELINES = {
    70: {
        "globi": "56.3 s, cpu 14.6 s, 1114 MB",
        "globi again": "1.5 s, cpu 0.55 s, 114 MB",
        "xc-csv": "77.2 s, cpu 17.4 s, 1239 MB",
        "xc-csv again": "2.9 s, cpu 0.61 s, 114 MB",
        "text": "3.1 s, cpu 0.79 s, 248 MB",
        "text again": "2.2 s, cpu 0.56 s, 113 MB",
    },
}
# The Xeno-canto CSV's peak RSS before an import kept the ids of the recordings it wrote in
# SQLite rather than in sets (median of 3, load average 0.6-4): 141 MB at SIZE 70 (368,662 rows),
# 227 MB at SIZE 140; after: 65 MB and 66 MB, as the GloBI table's.
MB = 1_000_000
SETTLE_S = 2.5  # older than importers.reading.SETTLED_NS, so a re-import may trust its stat


def globi_table(path: Path, size: int) -> int:
    """An exchange-format table of about ``size`` bytes: its rows."""
    header = (
        "sourceTaxonName\tinteractionTypeName\ttargetTaxonName\tlocalityName\treferenceCitation"
    )
    rows = 0
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header + "\n")
        written = len(header) + 1
        while written < size:
            row = (
                f"Apis mellifera\tvisitsFlowersOf\tTrifolium repens {rows}\tMeadow plot {rows % 97}"
                f"\tSmith, J. ({1990 + rows % 30}) Pollinators of clover, survey {rows}.\n"
            )
            handle.write(row)
            written += len(row)
            rows += 1
    return rows


def xc_csv(path: Path, size: int) -> int:
    """A Xeno-canto metadata table in the API's field names: its rows."""
    header = "id,gen,sp,en,rec,cnt,loc,type,lic,url,file-name,length,q"
    rows = 0
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header + "\n")
        written = len(header) + 1
        while written < size:
            n = rows + 1
            row = (
                f"{n},Passer,domesticus,House Sparrow,Recordist {n % 500},United States,"
                f'"Somewhere, California",call,//creativecommons.org/licenses/by-nc-sa/4.0/,'
                f"https://xeno-canto.org/{n},XC{n}.mp3,0:0{n % 10},A\n"
            )
            handle.write(row)
            written += len(row)
            rows += 1
    return rows


def plain_text(path: Path, size: int) -> int:
    """A Wikipedia-like extract (one paragraph per line): its paragraphs."""
    paragraph = "The house sparrow (Passer domesticus) is a bird of the sparrow family. " * 12
    count = size // (len(paragraph) + 1) + 1
    with open(path, "w", encoding="utf-8") as handle:
        for _ in range(count):
            handle.write(paragraph + "\n")
    return count


FILES = {"globi": ("interactions.tsv", globi_table), "xc-csv": ("xc.csv", xc_csv)}
FILES["text"] = ("House_sparrow.txt", plain_text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size_mb", type=int, nargs="?", default=70)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    baseline = BASELINES.get(args.size_mb, {})
    print(f"{args.size_mb} MB files, median of {args.repeat}; load average {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, (file_name, write) in FILES.items():
            path = folder / file_name
            count = write(path, args.size_mb * MB)
            time.sleep(SETTLE_S)  # as a curator's files are: written a while before
            runs: list[Run] = []
            again: list[Run] = []
            for n in range(args.repeat):
                project = folder / f"{name}{n}.bagel"
                flags = ["--json", "--max-document-mb", str(args.size_mb * 100)]
                runs.append(command(["import", str(project), str(path), *flags]))
                again.append(command(["import", str(project), str(path), *flags]))
            for label, chosen in ((name, runs), (f"{name} again", again)):
                run = median_run(chosen)
                reports = [json.loads(r.stdout) for r in chosen if r.stdout.strip()]
                read = [r["bytes_read"] for r in reports if "bytes_read" in r]
                read_mb = f"{statistics.median(read) / MB:6.1f} MB read" if read else "read n/a"
                status = f"  exit {run.status}" if run.status else ""
                print(
                    f"{label:<13} wall {run.wall:6.2f} s  cpu {run.cpu:6.2f} s"
                    f"  rss {run.rss_mb:5.0f} MB  {read_mb}{status}"
                    f"   baseline {baseline.get(label, '?')}"
                )
            print(f"{'':<13} ({path.stat().st_size / MB:.0f} MB, {count:,} rows or paragraphs)")
    print(f"load average after: {load()}; target: peak RSS that does not grow with the file")


if __name__ == "__main__":
    main()
