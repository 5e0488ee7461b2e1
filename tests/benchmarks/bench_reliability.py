"""Benchmark of issue 12: memory of hostile input, the cost of verifying a release.

Run: .venv/bin/python tests/benchmarks/bench_reliability.py [ITEMS]
Prints, each as the median of three runs with the load average (the machine is shared):

* peak memory (max RSS) of ``bagel-studio import`` on a file that is one 100 MB line, beside the
  baseline (865 MB: it became one item) and the target (under 450 MB: rejected unparsed);
* seconds of ``bagel-studio verify`` on a release of ITEMS items (default BAGEL's 11,852), beside
  the target (2 s);
* seconds of ``bagel-studio import`` of ITEMS items with the pending-checks bookkeeping.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY_BASELINE_MB, MEMORY_TARGET_MB = 865, 450
VERIFY_TARGET_S = 2.0
PEAK = (
    "import re, sys\n"
    "from bagel_studio.core.cli import run\n"
    "run(sys.argv[1:])\n"
    "peak = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
    "sys.stderr.write(f'PEAK {peak}\\n')\n"
)


def cli(*args: str) -> tuple[float, int]:
    """Seconds and peak RSS (kB) of one ``bagel-studio ARGS`` in a fresh interpreter."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", PEAK, *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    peak = next(int(line.split()[1]) for line in result.stderr.splitlines() if "PEAK" in line)
    return elapsed, peak


def item(i: int) -> dict[str, object]:
    return {
        "id": f"w{i}",
        "domain": "Wikipedia",
        "dimension": "Diet",
        "question": f"Which food does animal {i} prefer?",
        "options": [f"Seeds {i}", f"Leaves {i}", f"Fish {i}", f"Insects {i}"],
        "answer": "A",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", type=int, nargs="?", default=11_852)
    count = parser.parse_args().items
    load = Path("/proc/loadavg").read_text().split()[:3]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        huge = tmp / "huge.jsonl"
        huge.write_text(json.dumps(item(0) | {"question": "z" * 100_000_000}), encoding="utf-8")
        peaks = [cli("import", str(tmp / f"h{r}.bagel"), str(huge))[1] / 1000 for r in range(3)]
        items = tmp / "items.jsonl"
        items.write_text("".join(json.dumps(item(i)) + "\n" for i in range(count)))
        imports = [cli("import", str(tmp / f"p{r}.bagel"), str(items))[0] for r in range(3)]
        project = tmp / "p0.bagel"
        accept = ["decide", str(project), "--curator", "b", "--accept"]
        subprocess.run(
            [sys.executable, "-m", "bagel_studio", *accept, *[f"w{i}" for i in range(count)]],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        release = tmp / "release"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "bagel_studio",
                "export",
                str(project),
                str(release),
                "--seed=1",
            ],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        verifies = [cli("verify", str(release))[0] for _ in range(3)]
    print(f"load average {' '.join(load)}")
    print(
        f"import of one 100 MB line: peak {statistics.median(peaks):.0f} MB"
        f" (baseline {MEMORY_BASELINE_MB} MB, target < {MEMORY_TARGET_MB} MB)"
    )
    print(f"import of {count:,} items: {statistics.median(imports):.2f} s")
    print(
        f"verify of a {count:,}-item release: {statistics.median(verifies):.2f} s"
        f" (target {VERIFY_TARGET_S:.0f} s)"
    )


if __name__ == "__main__":
    main()
