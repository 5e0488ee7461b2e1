"""Benchmark of ``bagel-studio analyze``: BAGEL's 4,242 clips measured end to end, on every core
and on a Dask cluster, against issue 11's baseline (~21 min on one core) and target (< 11 min).

Run: .venv/bin/python tests/benchmarks/bench_analyze.py [CLIPS] [--runs 3] [--corpus DIR]
         [--workers N] [--subset N] [--reference FILE] [--no-pool] [--no-dask]
e.g. ``tests/benchmarks/bench_analyze.py 4242 --corpus ~/bench-clips`` (the corpus takes minutes
to encode; with --corpus it is kept and reused by later runs of the same CLIPS and --seed).

The corpus. CLIPS distinct MP3 files made from the real Xeno-canto clips in
resources/data/xeno_canto, in their own format (MPEG Layer III, 48 kHz mono or 44.1 kHz stereo,
constant bit rate) and with the length mix of Xeno-canto recordings (``LENGTHS``). Every file
begins with its own stretch of a real clip (its own starting offset in the clip and its own gain,
encoded for that file alone) and goes on with a longer recording of the same clip (the clip over
and over at changing gains, encoded once per clip), so no two files are alike in their bytes nor
in the 30 s the analysis reads, and no cache keyed by content could skip one. Each recording has
one Xeno-canto item (a dominant-band question) whose acoustic checks run when its clip is stored,
as in a real project.

The measurement. Each run copies the freshly built project (nothing measured) and runs the real
command, ``python -m bagel_studio analyze PROJECT`` (by default one worker per core), as a
child process, and with ``--scheduler`` on a ``dask.distributed.LocalCluster`` with one worker
process per core started here beforehand. Printed per configuration, median of --runs runs:
wall time, CPU time of the command and every process it started (or of the command and the Dask
workers), peak memory (the largest single process, and the whole tree sampled every 0.2 s),
clips per minute, and the load average before and after (other work on the machine lengthens
the wall time but hardly the CPU time: CPU / cores is what an idle machine would take), and
whether two processes at once run as fast as one then (``machine.parallel_check``: on a shared
machine they sometimes do not, and the CPU time of the same work grows). With
Dask, the scheduler runs in this script's process and its CPU is not counted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.machine import parallel_check  # noqa: E402

BAGEL_CLIPS = 4_242
BASELINE_MIN = 21.0  # issue 11: one clip after another on one core, before the work
TARGET_MIN = 11.0
# Recording lengths: Xeno-canto recordings run from a few seconds to many minutes, most of them
# between 10 s and a minute. Drawn from a log-normal with this median and spread (10th percentile
# ~8 s, 90th ~80 s, mean ~35 s), cut to [MIN, MAX] seconds. An estimate of the archive's mix,
# not a count of BAGEL's own files.
LENGTHS = {"median_s": 25.0, "sigma": 0.9, "min_s": 2.0, "max_s": 600.0}
HEAD_S = (4.0, 9.0)  # each file's own stretch, encoded for it alone
CLIP_BODY_S = 600.0  # the long recording of each clip that files go on with (encoded once)
BITRATE_LEVEL = 0.75  # libsndfile's MP3 compression level: 64 kb/s at 48 kHz mono, as the clips
SOURCES = ROOT / "resources" / "data" / "xeno_canto"
OPTIONS = ("~1-2 kHz", "~3-5 kHz", "~6-8 kHz", "~10-12 kHz")


@dataclass(frozen=True)
class Plan:
    """One corpus file: its name, source clip, length, own stretch and where it starts."""

    name: str
    source: str
    length_s: float
    head_s: float
    offset_s: float
    gain: float


def plan_corpus(count: int, seed: int) -> list[Plan]:
    import numpy as np

    rng = np.random.default_rng(seed)
    sources = sorted(path.name for path in SOURCES.glob("*.mp3"))
    lengths = np.exp(rng.normal(math.log(LENGTHS["median_s"]), LENGTHS["sigma"], count))
    lengths = np.clip(lengths, LENGTHS["min_s"], LENGTHS["max_s"])
    plans = []
    for n in range(count):
        length = round(float(lengths[n]), 2)
        plans.append(
            Plan(
                name=f"XC{900000 + n}.mp3",
                source=sources[n % len(sources)],
                length_s=length,
                head_s=round(min(length, float(rng.uniform(*HEAD_S))), 2),
                offset_s=round(float(rng.uniform(0.0, 6.0)), 3),
                gain=round(float(rng.uniform(0.35, 1.0)), 3),
            )
        )
    return plans


def _encode(samples: object, rate: int) -> bytes:
    import io

    import soundfile as sf

    buffer = io.BytesIO()
    sf.write(
        buffer,
        samples,
        rate,
        format="MP3",
        subtype="MPEG_LAYER_III",
        bitrate_mode="CONSTANT",
        compression_level=BITRATE_LEVEL,
    )
    data = buffer.getvalue()
    first = mp3_frames(data)[0]
    if b"Info" in data[: first[1]] or b"Xing" in data[: first[1]]:
        # the encoder's tag frame states this stream's length, which joining streams changes;
        # without it the length follows from the (constant) frame size, as in the real clips
        data = data[first[0] + first[1] :]
    return data


def _looped(clip: object, rate: int, start_s: float, seconds: float) -> object:
    import numpy as np

    data = np.asarray(clip)
    start = int(start_s * rate) % data.shape[0]
    frames = max(1, int(seconds * rate))
    reps = (start + frames) // data.shape[0] + 1
    return np.concatenate([data] * reps)[start : start + frames]


def mp3_frames(data: bytes) -> list[tuple[int, int]]:
    """(offset, length) of each MPEG-1 Layer III frame of a stream without tags."""
    bitrates = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)
    rates = (44100, 48000, 32000)
    frames, at = [], 0
    while at + 4 <= len(data):
        b1, b2 = data[at + 1], data[at + 2]
        if data[at] == 0xFF and b1 & 0xFE == 0xFA and 0 < b2 >> 4 < 15 and (b2 >> 2) & 3 < 3:
            length = 144_000 * bitrates[b2 >> 4] // rates[(b2 >> 2) & 3] + ((b2 >> 1) & 1)
            frames.append((at, length))
            at += length
        else:
            at += 1
    return frames


def _encode_body(args: tuple[str, str, float]) -> str:
    """The long recording of one clip: the clip over and over, each pass at its own gain."""
    import numpy as np
    import soundfile as sf

    source, out, seconds = args
    clip, rate = sf.read(SOURCES / source, dtype="float32", always_2d=True)
    rng = np.random.default_rng(sum(source.encode()))
    passes = int(seconds // (clip.shape[0] / rate)) + 1
    body = np.concatenate([clip * np.float32(rng.uniform(0.3, 1.0)) for _ in range(passes)])
    Path(out).write_bytes(_encode(body, rate))
    return out


_BODIES: dict[str, tuple[bytes, list[tuple[int, int]]]] = {}  # per building process


def _write_file(args: tuple[Plan, str, str]) -> float:
    """One corpus file: its own stretch, encoded now, then the clip's body up to its length.

    The body was encoded from its first sample, so its first frame needs no bytes from before
    it (the bit reservoir is empty): the two streams join without a damaged frame."""
    import numpy as np
    import soundfile as sf

    plan, body_path, out = args
    clip, rate = sf.read(SOURCES / plan.source, dtype="float32", always_2d=True)
    head = _looped(clip, rate, plan.offset_s, plan.head_s) * np.float32(plan.gain)
    data = _encode(head, rate)
    rest = plan.length_s - plan.head_s
    if rest > 0.05:
        if body_path not in _BODIES:
            body = Path(body_path).read_bytes()
            _BODIES[body_path] = (body, mp3_frames(body))
        body, frames = _BODIES[body_path]
        needed = min(len(frames), math.ceil(rest * rate / 1152))
        data += body[: frames[needed - 1][0] + frames[needed - 1][1]]
    Path(out).write_bytes(data)
    return plan.length_s


def build_corpus(folder: Path, count: int, seed: int, workers: int) -> tuple[list[Plan], float]:
    """The corpus files in ``folder`` (reused when a previous build of the same plan is
    there); return the plans and the seconds the build took."""
    plans = plan_corpus(count, seed)
    stamp = folder / "corpus.json"
    wanted = {"count": count, "seed": seed, "lengths": LENGTHS, "bitrate": BITRATE_LEVEL}
    if stamp.is_file() and json.loads(stamp.read_text()) == wanted:
        return plans, 0.0
    start = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    bodies = {p.source: str(folder / f"body-{p.source}") for p in plans}
    longest = {p.source: 0.0 for p in plans}
    for p in plans:
        longest[p.source] = max(longest[p.source], min(CLIP_BODY_S, p.length_s - p.head_s))
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_encode_body, [(s, out, longest[s]) for s, out in bodies.items()]))
        jobs = [(p, bodies[p.source], str(folder / p.name)) for p in plans]
        list(pool.map(_write_file, jobs, chunksize=16))
    for body in bodies.values():
        Path(body).unlink()
    stamp.write_text(json.dumps(wanted))
    return plans, time.perf_counter() - start


def build_project(folder: Path, corpus: Path, plans: list[Plan]) -> Path:
    """A project of one recording per corpus file, each with one Xeno-canto item."""
    from bagel_studio.core.model import ItemContent
    from bagel_studio.core.store import NewItem, Store

    recordings, items = [], []
    for n, plan in enumerate(plans):
        rec_id = plan.name.removesuffix(".mp3")
        recordings.append(
            {"id": rec_id, "audio_path": str(corpus / plan.name), "file_name": plan.name}
        )
        question = "What is the dominant frequency range of this bird's song?"
        content = ItemContent(question, OPTIONS, n % 4, "Dominant frequency range")
        items.append(NewItem(f"xc:{rec_id}", "Xeno-canto", content, recording_id=rec_id))
    project = folder / "bench.bagel"
    with Store.open(project) as store:
        store.evidence.upsert_recordings(recordings, None)
        store.items.add_items(items, None)
    return project


@dataclass(frozen=True)
class Run:
    wall_s: float
    cpu_s: float
    largest_mb: float  # the largest single process
    tree_mb: float  # the command and its processes (or the Dask workers) together, sampled
    measured: int


class TreeSampler(threading.Thread):
    """Peak summed RSS of a set of processes and their descendants, every 0.2 s."""

    def __init__(self, roots: list[int]) -> None:
        super().__init__(daemon=True)
        self.roots, self.peak, self.largest = roots, 0, 0
        self.done = threading.Event()

    def run(self) -> None:
        import psutil

        while not self.done.is_set():
            total = 0
            for root in self.roots:
                try:
                    parent = psutil.Process(root)
                    for proc in [parent, *parent.children(recursive=True)]:
                        rss = proc.memory_info().rss
                        total += rss
                        self.largest = max(self.largest, rss)
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)
            self.done.wait(0.2)


def tree_cpu(pids: list[int]) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            for each in [proc, *proc.children(recursive=True)]:
                times = each.cpu_times()
                total += times.user + times.system
        except psutil.Error:
            continue
    return total


def run_analyze(project: Path, extra: list[str], watch: list[int], log: Path) -> Run:
    """Run ``bagel-studio analyze PROJECT EXTRA`` as a child; CPU, wall and memory of it, its
    children and the processes in ``watch`` (the Dask workers)."""
    command = [sys.executable, "-m", "bagel_studio", "analyze", str(project), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = tree_cpu(watch)
    start = time.perf_counter()
    with log.open("w") as err:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, env=env, text=True)
        sampler = TreeSampler([child.pid, *watch])
        sampler.start()
        _pid, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        sampler.done.set()
        sampler.join()
        out = child.stdout.read() if child.stdout else ""
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"bench: analyze exited {child.returncode}:\n{out}\n{log.read_text()}")
    # wait4's usage covers the command and every process it started and waited for (the pool)
    cpu = usage.ru_utime + usage.ru_stime + tree_cpu(watch) - before
    largest = max(usage.ru_maxrss * 1024, sampler.largest)
    measured = int(out.split(" clips measured")[0].replace(",", "").split()[-1])
    return Run(wall, cpu, largest / 2**20, sampler.peak / 2**20, measured)


def stored_results(project: Path) -> dict[str, str]:
    """Each recording's stored measurement (its JSON text, or "" when none), by recording id."""
    from bagel_studio.core.audio.analysis import ANALYSIS_VERSION
    from bagel_studio.core.audio.project import cache_key
    from bagel_studio.core.store import Store

    with Store.open(project, read_only=True) as store:
        return {
            str(rec["id"]): store.evidence.measurement_json(cache_key(rec), ANALYSIS_VERSION) or ""
            for rec in store.evidence.recordings()
        }


def compare_results(reference: dict[str, str], label: str, found: dict[str, str]) -> int:
    """Print and return how many recordings' stored results differ from the first run's (or the
    reference's)."""
    differing = sorted(
        k for k in reference.keys() | found.keys() if reference.get(k) != found.get(k)
    )
    same = f"{len(differing):,} differ, e.g. {differing[:3]}" if differing else "all identical"
    print(f"  {label}: stored measurements against the first run's: {same}", flush=True)
    return len(differing)


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def report(label: str, runs: list[Run], clips: int, cores: int) -> None:
    wall = statistics.median(r.wall_s for r in runs)
    cpu = statistics.median(r.cpu_s for r in runs)
    per_min = clips / wall * 60
    print(
        f"\n{label}  (median of {len(runs)} run(s); each run's wall/CPU s: "
        + ", ".join(f"{r.wall_s:.0f}/{r.cpu_s:.0f}" for r in runs)
        + ")"
    )
    print(f"  wall         {wall / 60:6.2f} min   {per_min:7.0f} clips/min")
    print(f"  CPU          {cpu / 60:6.2f} min   {cpu / clips:.3f} s per clip, all processes")
    print(f"  CPU / {cores} cores {cpu / cores / 60:5.2f} min   (the wall time of an idle machine)")
    print(
        f"  peak RSS     largest process {max(r.largest_mb for r in runs):.0f} MB, "
        f"all its processes together {max(r.tree_mb for r in runs):.0f} MB"
    )
    scale = BAGEL_CLIPS / clips
    if clips != BAGEL_CLIPS:
        print(f"  for 4,242    {wall * scale / 60:6.2f} min wall (scaled from {clips:,} clips)")
    at_load = "met" if wall / 60 * scale < TARGET_MIN else "NOT met"
    idle = "met" if cpu / cores / 60 * scale < TARGET_MIN else "NOT met"
    print(
        f"  baseline ~{BASELINE_MIN:g} min (one core) -> target < {TARGET_MIN:g} min for 4,242 "
        f"clips: {at_load} at this load (wall), {idle} on an idle machine (CPU / cores)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("clips", nargs="?", type=int, default=BAGEL_CLIPS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, help="keep the encoded corpus here and reuse it")
    parser.add_argument("--workers", type=int, help="the pool's processes (default: every core)")
    parser.add_argument(
        "--subset",
        type=int,
        metavar="N",
        help="measure only the first N files of the corpus of CLIPS (the figures are scaled to "
        "4,242; lengths are drawn independently, so any N files have the same mix)",
    )
    parser.add_argument(
        "--reference",
        type=Path,
        metavar="FILE",
        help="compare every run's stored measurements with those kept in FILE (by an earlier "
        "invocation: the first run writes them there when FILE does not exist yet)",
    )
    parser.add_argument("--no-pool", action="store_true", help="skip the process-pool runs")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster runs")
    args = parser.parse_args()
    from bagel_studio.core.audio.batch import default_workers

    cores = args.workers or default_workers()
    print(f"bench_analyze: {args.clips:,} clips, {cores} worker(s), load average {loadavg()}")
    print(parallel_check())
    with tempfile.TemporaryDirectory(prefix="bench-analyze-") as tmp:
        corpus = args.corpus or Path(tmp) / "corpus"
        plans, built = build_corpus(corpus, args.clips, args.seed, default_workers())
        lengths = sorted(p.length_s for p in plans)
        print(
            f"corpus: {len(plans):,} distinct MP3 files from the 9 real clips, "
            f"{sum(lengths) / 3600:.1f} h of audio, lengths median {statistics.median(lengths):.0f}"
            f" s, 10%-90% {lengths[len(lengths) // 10]:.0f}-{lengths[len(lengths) * 9 // 10]:.0f}"
            f" s, max {lengths[-1]:.0f} s, "
            f"{sum(f.stat().st_size for f in corpus.glob('*.mp3')) / 2**20:.0f} MB "
            + (f"(built in {built:.0f} s)" if built else "(reused)")
        )
        if args.subset:
            plans = plans[: args.subset]
            print(f"measuring the first {len(plans):,} of them")
        built_project = build_project(Path(tmp), corpus, plans)
        configs: list[tuple[str, list[str]]] = []
        reference: dict[str, str] = {}
        if args.reference and args.reference.is_file():
            reference = json.loads(args.reference.read_text())
            print(f"stored measurements compared with those in {args.reference.name}")
        differing = compared = 0
        if not args.no_pool:
            workers = f" --workers {args.workers}" if args.workers else ""
            label = f"bagel-studio analyze PROJECT{workers}"
            configs.append((label, [f"--workers={args.workers}"] if args.workers else []))
        if not args.no_dask:
            configs.append(("bagel-studio analyze PROJECT --scheduler ADDRESS", ["dask"]))
        for label, extra in configs:
            runs = []
            for n in range(args.runs):
                project = Path(tmp) / f"run-{n}.bagel"
                shutil.copy(built_project, project)
                log = Path(tmp) / f"run-{n}.log"
                print(f"  {label}: run {n + 1} of {args.runs}, load {loadavg()} ...", flush=True)
                if extra == ["dask"]:
                    runs.append(_run_on_dask(project, cores, log))
                else:
                    runs.append(run_analyze(project, extra, [], log))
                done = runs[-1]
                if done.measured != len(plans):
                    raise SystemExit(f"bench: {done.measured} of {len(plans)} measured")
                print(
                    f"    {done.wall_s:.0f} s wall, {done.cpu_s:.0f} s CPU "
                    f"({done.cpu_s / len(plans):.3f} s per clip), load {loadavg()}",
                    flush=True,
                )
                found = stored_results(project)
                if not reference:
                    reference = found
                    if args.reference and not args.reference.is_file():
                        args.reference.write_text(json.dumps(found, sort_keys=True))
                else:
                    differing += compare_results(reference, f"{label} run {n + 1}", found)
                    compared += 1
                project.unlink()
            report(label, runs, len(plans), cores)
    if compared:
        same = "identical to" if not differing else f"{differing:,} differences from"
        print(
            f"\nstored measurements of all {len(reference):,} recordings, {compared} run(s): "
            f"{same} the first run's (or the reference's)"
        )
    print(f"\nload average at the end: {loadavg()}")
    print(parallel_check())


def _run_on_dask(project: Path, cores: int, log: Path) -> Run:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=cores, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        import psutil

        workers = [p.pid for p in psutil.Process().children() if p.pid != os.getpid()]
        return run_analyze(project, ["--scheduler", cluster.scheduler_address], workers, log)


if __name__ == "__main__":
    main()
