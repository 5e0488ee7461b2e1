"""``bagel-studio analyze PROJECT``: measure every recording of a project, on every core or on a
Dask cluster.

The measurements are the ones the desk caches when a clip is opened (``audio_measurements``), and
BirdNET's species detections (``species_detections``, when the extra is installed), so after this
every Xeno-canto item shows its numbers, its species and its flags at once. Clips measured
before are kept and skipped: an interrupted run (Ctrl+C, a lost cluster) resumes where it
stopped. Results come back to this process, the only one that writes the project.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import add_wait_argument, open_project

BAR_WIDTH = 30


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="measure every recording of a project on all cores or a Dask cluster",
        description=textwrap.fill(
            "Decode and measure every recording of PROJECT that has no measurement yet "
            "(dominant band, call durations, harmonicity, modulation, clarity: what the desk "
            "shows beside the spectrogram) and, with BirdNET installed (bagel-studio[birdnet]), "
            "detect the species heard in it, store the results and re-check the recordings' "
            "items. Runs on a pool of processes, one per core unless --workers says otherwise, "
            "or on an existing Dask distributed cluster with --scheduler. Clips already measured "
            "are kept, so an interrupted run continues where it stopped.",
            width=79,
        ),
        epilog=textwrap.fill(
            "Dask workers need the bagel_studio package installed and read access to the "
            "audio files at the paths this machine sees; only this process writes the project.",
            width=79,
        )
        + "\n\n"
        + textwrap.fill(
            "exit status: 0 every clip measured, 1 some clips unreadable or their audio file "
            "not found, 2 usage error, unreachable scheduler or a project another process is "
            "writing",
            width=79,
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument(
        "--workers",
        metavar="N",
        type=int,
        help="processes measuring clips at once (default: one per core; 1 measures in this "
        "process)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="measure on the Dask distributed cluster whose scheduler is at ADDRESS "
        "(tcp://HOST:PORT) instead of local processes",
    )
    add_wait_argument(parser)


class ProgressBar:
    """A bar on stderr: redrawn in place on a terminal, a line every 10% otherwise."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if not self.tty and tenth == self.shown and done != total:
            return
        self.shown = tenth
        elapsed = max(time.monotonic() - self.start, 1e-6)
        rate = done / elapsed * 60
        filled = BAR_WIDTH * done // max(total, 1)
        left = (total - done) / (done / elapsed) if done else 0.0
        line = (
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done:,}/{total:,} clips"
            f"  {rate:,.0f} clips/min  {left:,.0f} s left"
        )
        sys.stderr.write(f"\r{line}" if self.tty else f"{line}\n")
        if self.tty and done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.audio import birdnet
    from bagel_studio.core.audio.batch import SchedulerError
    from bagel_studio.core.operations import analyze_recordings

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.scheduler and args.workers is not None:
        raise UsageError("--workers and --scheduler exclude each other (the cluster has its own)")
    started = time.monotonic()
    with open_project(args.project, owner="analyze", wait=args.wait) as store:
        try:
            report = analyze_recordings(
                store, workers=args.workers, scheduler=args.scheduler, progress=ProgressBar()
            ).result
        except SchedulerError as exc:
            raise UsageError(str(exc)) from exc
    seconds = time.monotonic() - started
    for error in report.errors:
        sys.stdout.write(f"unreadable: {error}\n")
    for recording_id in report.missing:
        sys.stdout.write(f"no audio file: {recording_id}\n")
    sys.stdout.write(
        f"{report.measured:,} clips measured, {report.unreadable:,} unreadable, "
        f"{report.already:,} measured before, {len(report.missing):,} without an audio file "
        f"({seconds:.1f} s)\n"
    )
    if report.species_note:
        sys.stdout.write(f"species not detected: {report.species_note}\n")
    else:
        model = f"{birdnet.MODEL_NAME} {birdnet.MODEL_VERSION}"
        sys.stdout.write(f"{report.detected:,} clips' species detected by {model}\n")
    return 1 if report.unreadable or report.missing else 0
