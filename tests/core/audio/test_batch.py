"""The measuring engine hands clips out a few at a time (bounded memory, smooth progress) and
still returns every clip exactly once, with the in-process results, on a pool and on Dask."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from bagel_studio.core.audio import batch, heap
from bagel_studio.core.audio.batch import ClipJob, measure_clips


def clip_jobs(data_dir: Path, tmp_path: Path) -> list[ClipJob]:
    """The nine real clips and a file that is not audio."""
    jobs = [
        ClipJob(path.stem, str(path)) for path in sorted((data_dir / "xeno_canto").glob("*.mp3"))
    ]
    (tmp_path / "XC1.mp3").write_bytes(b"not audio at all" * 64)
    return [*jobs, ClipJob("XC1", str(tmp_path / "XC1.mp3"))]


def results_by_id(pairs: object) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    for job, result in pairs:  # type: ignore[attr-defined]
        assert job.recording_id not in found, f"{job.recording_id} returned twice"
        found[job.recording_id] = result
    return found


def test_a_pool_fed_one_clip_per_worker_returns_every_clip_once(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = clip_jobs(data_dir, tmp_path)
    here = results_by_id(measure_clips(jobs, workers=1))
    monkeypatch.setattr(batch, "IN_FLIGHT_PER_WORKER", 1)  # 2 queued, 8 submitted as others end
    on_pool = results_by_id(measure_clips(jobs, workers=2))
    assert on_pool == here
    assert sum("error" in result for result in here.values()) == 1
    assert here["XC625750"]["channels"] == 2


@pytest.mark.slow
def test_a_dask_cluster_fed_one_clip_per_core_returns_every_clip_once(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = clip_jobs(data_dir, tmp_path)
    here = results_by_id(measure_clips(jobs, workers=1))
    monkeypatch.setattr(batch, "IN_FLIGHT_PER_WORKER", 1)
    # worker processes started by nannies, as on a real cluster: their environment fixes the C
    # heap's thresholds, which the engine raises while a clip is measured (heap.clip_heap)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        assert all(client.run(heap.configured_thresholds).values())
        on_dask = results_by_id(measure_clips(jobs, scheduler=cluster.scheduler_address))
    assert on_dask == here


INTERRUPTED = r"""
import multiprocessing, os, signal, sys
from multiprocessing.context import SpawnProcess
from pathlib import Path
from bagel_studio.core.audio.batch import ClipJob, measure_clips

def sigint_held_off(pid):  # ignored, or blocked until the worker ignores it
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in lines)
    return bool((int(fields["SigIgn"], 16) | int(fields["SigBlk"], 16)) & (1 << 1))  # SIGINT: 2

if sys.argv[2] == "as-workers-start":  # Ctrl+C the moment the last worker has started
    start = SpawnProcess.start

    def start_then_ctrl_c(self):
        start(self)
        if len(multiprocessing.active_children()) == 2:
            os.killpg(0, signal.SIGINT)

    SpawnProcess.start = start_then_ctrl_c
jobs = [ClipJob(c.stem, str(c)) for c in sorted(Path(sys.argv[1]).glob("*.mp3"))]  # nine
try:
    for done, _pair in enumerate(measure_clips(jobs, workers=2)):
        if done == 0:
            pids = [c.pid for c in multiprocessing.active_children()]
            held = all(map(sigint_held_off, pids))
            print("measured one; workers hold Ctrl+C off:", held, len(pids), flush=True)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def _interrupted_run(data_dir: Path, when: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    return subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED, str(data_dir / "xeno_canto"), when],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's job
    )


def _end(process: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        return process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


def test_ctrl_c_is_the_callers_alone(data_dir: Path) -> None:
    """Ctrl+C reaches the whole process group, the pool's workers too: they leave it to the
    caller (which stops, cancelling the clips not started), and print nothing. It comes once
    the first of the nine clips is measured, so while the others are."""
    process = _interrupted_run(data_dir, "after-the-first-clip")
    assert process.stdout is not None
    first = process.stdout.readline()
    if first != "measured one; workers hold Ctrl+C off: True 2\n":
        raise AssertionError((first, _end(process)))
    os.killpg(process.pid, signal.SIGINT)
    out, err = _end(process)
    assert out == "interrupted\n"
    assert err == ""


def test_ctrl_c_as_the_workers_start_is_not_lost(data_dir: Path) -> None:
    """A Ctrl+C that comes while the pool's workers start reaches the caller all the same (it
    used to be dropped: the caller ignored SIGINT while they started, so they would inherit
    that), and the workers, just started, print nothing either."""
    out, err = _end(_interrupted_run(data_dir, "as-workers-start"))
    assert out == "interrupted\n"
    assert err == ""
