"""Measuring many clips at once: on this process, on a pool of processes, or on a Dask cluster.

A clip's measurement (``project.measurement_result``: decode, then the paper's pipeline) and its
species detection (``species.detect``: BirdNET, when the extra is installed) are pure functions of
its file, so they can run anywhere the package is installed and the file can be read; a clip is
decoded once for both (``analyse_clip``), and each worker process loads the BirdNET model once,
on its first clip.
This engine only computes: it hands each result back to the caller, the one process that writes
the project (``operations.analyze_recordings``), as soon as it is ready and in whatever order the
clips finish. Nothing here opens the project.

* ``workers=1``: one clip after another in this process (no start-up cost, for a few clips).
* ``workers=N`` (default: every core, or this process for a few clips): a pool of N processes
  started fresh ("spawn"), safe from a process that also runs Qt or threads. Each worker imports
  the pipeline once and measures clip after clip, with the C heap's thresholds raised for its
  life (``heap.keep_for_clips``).
* ``scheduler="tcp://HOST:PORT"``: an existing ``dask.distributed`` cluster; its workers need the
  ``bagel_studio`` package and read access to the audio files at the same paths. Dask's nanny
  fixes the workers' C heap thresholds, which made each clip cost a third more CPU; they are
  raised while a clip is measured and given back after (``heap.clip_heap``).

Either way at most ``IN_FLIGHT_PER_WORKER`` clips per worker are handed out ahead of time; the
next is submitted as one finishes. Memory stays bounded whatever the number of clips, results
arrive at an even pace, and an interruption has little queued work to cancel.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bagel_studio.core.audio.heap import clip_heap, keep_for_clips
from bagel_studio.core.workers import die_with_parent


@dataclass(frozen=True)
class ClipJob:
    """One recording to analyse: its id, the audio file to read, and what to compute: its
    measurement, its species detection, or both."""

    recording_id: str
    path: str
    measure: bool = True
    species: bool = False


Result = dict[str, Any]
CONNECT_TIMEOUT = "5s"  # a scheduler that does not answer by then is reported, not waited for
IN_PROCESS_CLIPS = 8  # up to this many clips, starting processes costs more than it saves
IN_FLIGHT_PER_WORKER = 4  # clips queued per worker: enough to keep it busy, few to cancel


class SchedulerError(RuntimeError):
    """The Dask scheduler could not be reached or used (the message says which and why)."""


def default_workers() -> int:
    """The number of worker processes to measure on: the cores this process may run on (its CPU
    affinity, which a container or ``taskset`` narrows), at least one."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def analyse_clip(path: str, measure: bool = True, species: bool = False) -> Result:
    """Decode ``path`` once and compute what is asked: the measurement's keys (or "error") as
    ``project.compute_result`` gives them when ``measure``, and under "species" the detection's
    JSON, {"error": ...}, or {"unavailable": how to install BirdNET} when ``species``. Never raises:
    anything unexpected becomes the clip's error line (a worker must not take the whole run down
    for one strange file). In a process whose environment fixed the C heap's thresholds (a Dask
    worker), they are raised while the clip is analysed (see ``heap``)."""
    try:
        with clip_heap():
            return _analyse(path, measure, species)
    except Exception as exc:
        return _failed(f"{Path(path).name}: could not be analysed ({exc})", measure, species)


def _analyse(path: str, measure: bool, species: bool) -> Result:
    # here, not at the top: a project without clips never loads numpy and the decoders
    from bagel_studio.core.audio.analysis import MAX_SECONDS
    from bagel_studio.core.audio.decode import AudioError, decode
    from bagel_studio.core.audio.project import measurement_result

    try:
        audio = decode(path, MAX_SECONDS)  # the analysis reads the first MAX_SECONDS
    except AudioError as exc:
        return _failed(str(exc), measure, species)
    result: Result = measurement_result(audio) if measure else {"audio_sha256": audio.sha256}
    if species:
        from bagel_studio.core.audio.birdnet import BirdNETUnavailable
        from bagel_studio.core.audio.species_project import detection_result

        try:
            result["species"] = detection_result(audio)
        except BirdNETUnavailable as exc:
            result["species"] = {"unavailable": str(exc)}
    return result


def _failed(line: str, measure: bool, species: bool) -> Result:
    result: Result = {"error": line} if measure else {}
    if species:
        result["species"] = {"error": line}
    return result


def clip_error(result: Result) -> str | None:
    """The error line of a clip's result (its measurement's, else its detection's), if any."""
    if "error" in result:
        return str(result["error"])
    detection = result.get("species")
    if isinstance(detection, dict) and "error" in detection:
        return str(detection["error"])
    return None


def measure_clips(
    jobs: Sequence[ClipJob], *, workers: int | None = None, scheduler: str | None = None
) -> Generator[tuple[ClipJob, Result], None, None]:
    """Yield ``(job, result)`` for every job as it finishes. Closing the iterator early (an
    interruption) cancels the clips not started yet."""
    if not jobs:
        return
    if scheduler:
        yield from _on_dask(jobs, scheduler)
        return
    count = workers or (1 if len(jobs) <= IN_PROCESS_CLIPS else default_workers())
    if count <= 1 or len(jobs) == 1:
        for job in jobs:
            yield job, analyse_clip(job.path, job.measure, job.species)
        return
    yield from _on_pool(jobs, min(count, len(jobs)))


@contextmanager
def _children_ignore_ctrl_c() -> Iterator[None]:
    """Workers started in the block never answer Ctrl+C: the terminal sends it to the whole
    process group, and each worker printed a KeyboardInterrupt from wherever it was (importing
    the decoder, inside it). The caller alone answers it: it cancels the clips not started and
    waits for the few running. While the workers start, the starting thread holds SIGINT back
    (blocked, not ignored): they inherit that through spawn's exec and ignore the signal before
    they take it again (``_start_worker``), and a Ctrl+C meanwhile reaches the caller as the
    block ends (ignoring it in the caller instead lost a Ctrl+C that came while they started)."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # started later, it would unblock SIGINT in this thread
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _start_worker(parent: int) -> None:
    """A pool worker's first act: die with ``parent`` (a killed ``analyze`` leaves no worker
    behind, and with none of them left holding its pipe the resource tracker ends too); ignore
    SIGINT (a Ctrl+C held back since it started is dropped with it), then take signals again;
    then keep the C heap for clips."""
    die_with_parent(parent)
    if hasattr(signal, "pthread_sigmask"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    keep_for_clips()


def _on_pool(
    jobs: Sequence[ClipJob], workers: int
) -> Generator[tuple[ClipJob, Result], None, None]:
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_start_worker,
        initargs=(os.getpid(),),
    )
    waiting: Iterator[ClipJob] = iter(jobs)
    running: dict[Future[Result], ClipJob] = {}

    def submit(count: int) -> None:
        for job in _take(waiting, count):
            running[pool.submit(analyse_clip, job.path, job.measure, job.species)] = job

    try:
        with _children_ignore_ctrl_c():  # the first jobs start every worker
            submit(workers * IN_FLIGHT_PER_WORKER)
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            submit(len(done))
            for future in done:
                yield running.pop(future), future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _take(jobs: Iterator[ClipJob], count: int) -> list[ClipJob]:
    return [job for _, job in zip(range(count), jobs, strict=False)]


def _on_dask(
    jobs: Sequence[ClipJob], address: str
) -> Generator[tuple[ClipJob, Result], None, None]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError as exc:  # pragma: no cover - dask is a declared dependency
        raise SchedulerError(f"Dask distributed is not installed ({exc})") from exc
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {address} ({exc})") from exc
    waiting: Iterator[ClipJob] = iter(jobs)
    running: dict[Any, ClipJob] = {}  # by the futures' keys

    def submit(count: int) -> list[Any]:
        batch = _take(waiting, count)
        if not batch:
            return []
        futures = client.map(
            analyse_clip,
            [job.path for job in batch],
            [job.measure for job in batch],
            [job.species for job in batch],
            pure=False,
        )
        running.update((future.key, job) for future, job in zip(futures, batch, strict=True))
        return list(futures)

    try:
        cores = sum(client.ncores().values()) or 1  # type: ignore[no-untyped-call]
        pending = dask_completed(submit(cores * IN_FLIGHT_PER_WORKER), loop=client.loop)  # type: ignore[no-untyped-call]
        for future in pending:
            for added in submit(1):
                pending.add(added)  # type: ignore[no-untyped-call]
            yield running.pop(future.key), future.result()
    finally:
        client.close()  # type: ignore[no-untyped-call]
