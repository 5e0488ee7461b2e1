"""Benchmark of ``bagel-studio analyze``: clips measured per minute, one core and every core.

Run: .venv/bin/python tests/benchmarks/bench_analyze.py [CLIPS] [--workers N ...]
Builds a project of CLIPS recordings (default 36) whose audio files are copies of the real
Xeno-canto clips in resources/data/xeno_canto (nine clips of 3-60 s, so the mix of lengths is the
real one), then runs ``analyze_recordings`` on a fresh copy of the project for each worker count
and prints clips per minute, CPU seconds per clip (a figure a busy machine does not distort) and
the times these give for BAGEL's 4,242 clips (issue 11:
~21 min on one core before, target < 11 min on this machine). The 4,242 figure is extrapolated
from the measured subset, not measured.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BAGEL_CLIPS = 4_242
BASELINE_MIN = 21.0  # issue 11: one clip after another, one core
TARGET_MIN = 11.0


def build(folder: Path, count: int) -> Path:
    from bagel_studio.core.store import Store

    clips = sorted((ROOT / "resources" / "data" / "xeno_canto").glob("*.mp3"))
    audio = folder / "audio"
    audio.mkdir(parents=True)
    recordings = []
    for n in range(count):
        source = clips[n % len(clips)]
        copy = audio / f"XC{n:05d}{source.suffix}"
        shutil.copy(source, copy)
        recordings.append({"id": f"XC{n:05d}", "audio_path": str(copy), "file_name": copy.name})
    project = folder / "bench.bagel"
    with Store.open(project) as store:
        store.upsert_recordings(recordings, None)
    return project


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the pool's workers)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_once(project: Path, workers: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one analysis of every clip of ``project``."""
    from bagel_studio.core.operations import analyze_recordings
    from bagel_studio.core.store import Store

    with Store.open(project) as store:
        start, cpu = time.perf_counter(), cpu_seconds()
        report = analyze_recordings(store, workers=workers)
        seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    if report.unreadable or report.missing:
        raise SystemExit(f"bench: {report}")
    return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("clips", nargs="?", type=int, default=36)
    parser.add_argument("--workers", type=int, nargs="*", default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from bagel_studio.core.audio.batch import default_workers

    counts = args.workers or sorted({1, default_workers()})
    with tempfile.TemporaryDirectory() as tmp:
        built = build(Path(tmp) / "source", args.clips)
        print(f"{args.clips} clips, copies of the real Xeno-canto clips in resources")
        for workers in counts:
            times, cpus = [], []
            for run in range(args.runs):
                project = Path(tmp) / f"run-{workers}-{run}.bagel"
                shutil.copy(built, project)
                wall, cpu = run_once(project, workers)
                times.append(wall)
                cpus.append(cpu)
            seconds = statistics.median(times)
            per_clip = statistics.median(cpus) / args.clips
            per_minute = args.clips / seconds * 60
            minutes = BAGEL_CLIPS / per_minute
            print(
                f"workers {workers}: {per_minute:7.1f} clips/min (median of {args.runs}: "
                f"{seconds:.1f} s)  -> 4,242 clips in {minutes:5.1f} min (extrapolated; baseline "
                f"{BASELINE_MIN:g} min, target < {TARGET_MIN:g})"
            )
            print(
                f"           CPU {per_clip:.3f} s per clip (workers included) -> 4,242 clips on "
                f"{workers} idle core(s): {BAGEL_CLIPS * per_clip / workers / 60:5.1f} min"
            )
    print(f"load average: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
