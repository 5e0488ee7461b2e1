"""Benchmark of species detection (BirdNET GLOBAL 6K V2.4 on LiteRT): CPU per clip of 6 s, against
issue 29's target of at most 0.5 s of CPU per clip.

Run: .venv/bin/python tests/benchmarks/bench_species.py [--clips 100] [--runs 3] [--no-analyze]

The corpus: CLIPS distinct six-second MP3 files (48 kHz mono, as the project's clips) made from
the real Xeno-canto clips in resources/data/xeno_canto, each with its own gain and its own
circular shift of the clip, so no two files are alike and no cache keyed by content could skip
one. Printed, median of --runs runs, with the load average before and after:

* detection: in this process, decoding each clip (its first 30 s, as the analysis does) and
  running BirdNET on its windows (``species.detect``), CPU seconds per clip; the first clip of
  the process, which loads the model (once per process), is printed apart;
* analyze: ``bagel-studio analyze PROJECT --workers 1`` as a child process on a fresh project of
  the same clips (measurements and species detection, the checks of one item per clip), its CPU
  per clip, and the same with BirdNET hidden (measurements only): the difference is what the
  species detection adds to a real run, start-up included.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core.audio import birdnet  # noqa: E402
from bagel_studio.core.audio.analysis import MAX_SECONDS  # noqa: E402
from bagel_studio.core.audio.decode import decode  # noqa: E402
from bagel_studio.core.audio.species import detect  # noqa: E402

TARGET_S = 0.5
SOURCES = ROOT / "resources" / "data" / "xeno_canto"
RATE = 48_000
HIDE_BIRDNET = "import sys; sys.modules['ai_edge_litert'] = None; "


def make_corpus(folder: Path, count: int) -> list[Path]:
    """``count`` distinct 6 s MP3 clips (gain and circular shift of the real ones)."""
    sources = sorted(SOURCES.glob("*.mp3"))
    signals = []
    for source in sources:
        audio = decode(source)
        mono = audio.mono()
        if audio.sample_rate != RATE:
            from bagel_studio.core.audio import dsp

            mono = dsp.resample(mono, audio.sample_rate, RATE)
        signals.append(mono[: 6 * RATE])
    rng = np.random.default_rng(29)
    paths = []
    for n in range(count):
        signal = np.roll(signals[n % len(signals)], int(rng.integers(0, 6 * RATE)))
        gain = float(rng.uniform(0.5, 0.95)) / max(float(np.max(np.abs(signal))), 1e-6)
        path = folder / f"XC{900000 + n}.mp3"
        sf.write(str(path), (signal * gain).astype(np.float32), RATE, format="MP3")
        paths.append(path)
    return paths


def detection_run(paths: list[Path]) -> float:
    """CPU seconds per clip: decode and detect each clip in this process."""
    start = time.process_time()
    for path in paths:
        detect(decode(path, MAX_SECONDS))
    return (time.process_time() - start) / len(paths)


def project_of(paths: list[Path], folder: Path) -> Path:
    """A fresh project whose recordings are the clips, one dominant-band item each."""
    rows = ["id,gen,sp,en,file-name,lic"]
    items = []
    for path in paths:
        rows.append(f"{path.stem[2:]},Passer,domesticus,House Sparrow,{path.name},"
                    "https://creativecommons.org/licenses/by-nc-sa/4.0/")  # fmt: skip
        items.append(json.dumps({
            "id": f"xc:{path.stem}", "domain": "Xeno-canto", "recording": path.stem,
            "question": "What is the dominant frequency range of the song of the House Sparrow?",
            "options": ["~1-2 kHz", "~3-5 kHz", "~6-8 kHz", "~9-11 kHz"], "answer": "B",
            "dimension": "Dominant frequency range",
        }))  # fmt: skip
    (folder / "recordings.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (folder / "items.jsonl").write_text("\n".join(items) + "\n", encoding="utf-8")
    project = folder / "bench.bagel"
    subprocess.run(
        [sys.executable, "-m", "bagel_studio", "import", str(project), str(folder)],
        check=True, capture_output=True,
    )  # fmt: skip
    return project


def analyze_run(paths: list[Path], work: Path, hide: bool) -> float:
    """CPU seconds per clip of ``bagel-studio analyze --workers 1`` on a fresh project."""
    folder = Path(tempfile.mkdtemp(dir=work))
    for path in paths:
        os.link(path, folder / path.name)
    project = project_of([folder / p.name for p in paths], folder)
    code = (HIDE_BIRDNET if hide else "") + (
        "from bagel_studio.__main__ import main; sys.exit(main())"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-c", "import sys; " + code, "analyze", str(project), "--workers", "1"],
        check=True, capture_output=True,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(folder)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu / len(paths)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", type=int, default=100, help="clips of 6 s (default 100)")
    parser.add_argument("--runs", type=int, default=3, help="runs, the median printed")
    parser.add_argument("--no-analyze", action="store_true", help="only the detection")
    args = parser.parse_args()
    missing = birdnet.unavailable()
    if missing:
        print(missing)
        return 2
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        paths = make_corpus(work, args.clips)
        start = time.process_time()
        birdnet.model()
        detect(decode(paths[0], MAX_SECONDS))  # the interpreter's delegate, the resampler
        print(
            f"first clip of the process (loading the model, once per process): "
            f"{time.process_time() - start:.3f} s of CPU"
        )
        runs = [detection_run(paths) for _ in range(args.runs)]
        per_clip = statistics.median(runs)
        verdict = "within" if per_clip <= TARGET_S else "OVER"
        print(
            f"detection, {args.clips} clips of 6 s: {per_clip:.3f} s of CPU per clip (median of"
            f" {args.runs}: {', '.join(f'{r:.3f}' for r in runs)}); target <= {TARGET_S} s:"
            f" {verdict}"
        )
        if not args.no_analyze:
            both = [analyze_run(paths, work, hide=False) for _ in range(args.runs)]
            alone = [analyze_run(paths, work, hide=True) for _ in range(args.runs)]
            print(
                f"analyze --workers 1, measurements and species: {statistics.median(both):.3f}"
                f" s of CPU per clip ({', '.join(f'{r:.3f}' for r in both)})"
            )
            print(
                f"analyze --workers 1, measurements only (BirdNET hidden): "
                f"{statistics.median(alone):.3f} s of CPU per clip "
                f"({', '.join(f'{r:.3f}' for r in alone)}); species add "
                f"{statistics.median(both) - statistics.median(alone):.3f} s per clip"
            )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0 if per_clip <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
