"""Benchmark of issue 4's listening panel on a 30 s, 44.1 kHz clip.

Run: .venv/bin/python tests/benchmarks/bench_listening.py
Prints, against the targets:
  * the item's spectrogram on screen, uncached: from ``show_item`` until the plot has been painted
    with the new image (decode + spectrogram on the worker pool, drawing on the UI thread)
    (target: under 150 ms);
  * the same, cached: the curator comes back to the recording (decoded clip and spectrogram in
    the panel's caches) (target: under 30 ms);
  * one playhead frame of main-thread time while the clip plays: the timer's read of the stream
    clock, the line and label moved, and the repaint Qt does for it (target: under 2 ms);
  * arriving at a recording in the desk (``--only arrival``): a real desk at 1280x800 on a freshly
    imported project (the nine Xeno-canto clips and the 375 kHz bat, none measured yet), J pressed
    from item to item with a curator's pause between, each arrival timed from the key until the
    plot has been painted with that item's spectrogram (target: under 300 ms); on the first
    item the curator stays --first-dwell seconds, or presses J as soon as the panel is built
    (the default, the hardest case). Each run is a process of its own, so that its first arrival
    pays what a curator's first one pays (the lazy imports: nothing of the listening panel is
    imported before the desk starts); the medians of three runs are printed, wall time and the
    main thread's CPU time, with the load average, and each arrival whose recording had not been
    prepared ahead is marked.
The clip is a real Xeno-canto recording (XC625750, 44.1 kHz stereo) repeated to 30 s, as WAV.
Playback runs through a private PulseAudio null sink (tests/support/pulse.py) when available.
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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import soundfile as sf

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PySide6.QtWidgets import QApplication  # noqa: E402

from bagel_studio.core.model import ItemContent  # noqa: E402
from bagel_studio.core.prefs import Preferences  # noqa: E402
from bagel_studio.core.store import NewItem, Store  # noqa: E402
from bagel_studio.ui.services import Services  # noqa: E402

if TYPE_CHECKING:  # imported where used: an arrival run must pay pyqtgraph's import as a desk does
    from bagel_studio.ui.listening import ListeningPanel

SECONDS = 30.0
RUNS = 7
ITEM, OTHER = "xc:long:freq", "xc:short:freq"


def line(name: str, values: list[float], unit: str, target: float | None = None) -> None:
    median = statistics.median(values)
    verdict = ""
    if target is not None:
        verdict = f"  (target < {target:g} {unit}: {'ok' if median < target else 'MISSED'})"
    sys.stdout.write(f"{name:<44} median {median:8.2f} {unit}, worst {max(values):8.2f}{verdict}\n")


def thirty_second_clip(folder: Path) -> Path:
    samples, rate = sf.read(str(ROOT / "resources/data/xeno_canto/XC625750.mp3"), dtype="float32")
    repeats = int(np.ceil(SECONDS * rate / samples.shape[0]))
    long = np.concatenate([samples] * repeats)[: int(SECONDS * rate)]
    path = folder / "XC625750x5.wav"
    sf.write(str(path), long, rate)
    return path


def build_services(folder: Path) -> Services:
    long = thirty_second_clip(folder)
    store = Store.open(folder / "bench.bagel", owner="bench")
    short = ROOT / "resources/data/xeno_canto/XC236243.mp3"
    store.evidence.upsert_recordings(
        [{"id": "XC1", "audio_path": str(long)}, {"id": "XC2", "audio_path": str(short)}], None
    )
    options = ("~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz")
    items = [
        NewItem(i, "Xeno-canto", ItemContent("Dominant frequency?", options, 1, "Dominant"),
                recording_id=r)
        for i, r in ((ITEM, "XC1"), (OTHER, "XC2"))
    ]  # fmt: skip
    store.items.add_items(items, None)
    return Services(store=store, prefs=Preferences(curator="bench"))


def wait_for(app: QApplication, done: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > deadline:
            raise TimeoutError("the panel did not finish in time")
        app.processEvents()
        time.sleep(0.0005)


def idle(app: QApplication, services: Services) -> None:
    wait_for(app, lambda: services.workers.pending == 0 and services.writer.pending == 0)


def time_to_screen(app: QApplication, panel: ListeningPanel, item_id: str) -> float:
    """ms from show_item to the plot painted with the item's spectrogram."""
    item = panel.services.store.items.get(item_id)
    start = time.perf_counter()
    panel.show_item(item)
    wait_for(app, lambda: panel.clip is not None)
    panel.view.plot_widget.viewport().repaint()
    return (time.perf_counter() - start) * 1000


def bench_spectrogram(app: QApplication, panel: ListeningPanel) -> None:
    from bagel_studio.ui.listening.loader import ClipLoader

    uncached, cached = [], []
    for _ in range(RUNS):
        panel.loader = ClipLoader()  # forget decoded clips and spectrograms
        uncached.append(time_to_screen(app, panel, ITEM))
        idle(app, panel.services)
        time_to_screen(app, panel, OTHER)
        idle(app, panel.services)
        cached.append(time_to_screen(app, panel, ITEM))
        idle(app, panel.services)
    shape = panel.view.image.image.shape
    sys.stdout.write(f"image {shape[0]} bins x {shape[1]} frames, scale {panel.settings.scale}\n")
    line("spectrogram on screen, uncached", uncached, "ms", 150)
    line("spectrogram on screen, cached", cached, "ms", 30)


def bench_playhead(app: QApplication, panel: ListeningPanel) -> None:
    from tests.support.pulse import running_null_sink

    try:
        context = running_null_sink()
        context.__enter__()
    except BaseException as exc:  # pytest.skip outside pytest, or no PulseAudio
        sys.stdout.write(f"playhead frame skipped (no audio output): {exc}\n")
        return
    try:
        time_to_screen(app, panel, ITEM)
        idle(app, panel.services)
        opening = []
        for _ in range(RUNS):  # the stream is opened on the UI thread when a clip arrives
            start = time.perf_counter()
            panel.controller.load(panel.clip.audio)
            opening.append((time.perf_counter() - start) * 1000)
        line("player load (opens the stream), UI thread", opening, "ms")
        panel.toggle_play()
        if not panel.controller.is_playing:
            sys.stdout.write(f"playhead frame skipped: {panel.transport.reason_label.text()}\n")
            return
        tick_only, frames = [], []
        for _ in range(200):
            time.sleep(0.03)
            app.processEvents()  # anything else pending is not the playhead's
            start = time.perf_counter()
            panel.controller.tick()
            middle = time.perf_counter()
            app.processEvents()  # the repaint of what the tick moved
            end = time.perf_counter()
            tick_only.append((middle - start) * 1000)
            frames.append((end - start) * 1000)
        panel.toggle_play()
        line("playhead tick (clock read, line, label)", tick_only, "ms")
        line("playhead frame (tick + repaint)", frames, "ms", 2)
    finally:
        panel.shutdown()
        context.__exit__(None, None, None)


def arrival_project(folder: Path) -> Path:
    """A project freshly imported from the bundled clips (nothing measured), a Wikipedia item
    first and then one frequency item per recording, the bat last."""
    from bagel_studio.core.importers import import_paths

    data = ROOT / "resources" / "data"
    path = folder / "arrival.bagel"
    with Store.open(path, owner="bench") as store:
        import_paths(store, [
            data / "xeno_canto" / "recordings.csv", *sorted((data / "xeno_canto").glob("*.mp3")),
            data / "bats" / "metadata.csv", *sorted((data / "bats").glob("*.wav")),
        ])  # fmt: skip
        ids = sorted(str(r["id"]) for r in store.evidence.recordings())
        recordings = [r for r in ids if r != "XC826198"]
        options = ("~1-2 kHz", "~3-5 kHz", "~6-8 kHz", "~9-11 kHz")
        items = [NewItem("wiki:first", "Wikipedia", ItemContent(
            "What makes up most of the koala's diet?", ("Bark", "Leaves", "Seeds", "Insects"),
            1, "Diet"))]  # fmt: skip
        for recording in [*recordings, "XC826198"]:
            content = ItemContent(
                "What is the dominant frequency range of this call?",
                options,
                1,
                "Dominant frequency range",
            )
            items.append(NewItem(f"xc:{recording}", "Xeno-canto", content, recording_id=recording))
        store.items.add_items(items, None)
    return path


def pause(app: QApplication, seconds: float) -> None:
    """The desk runs on while the curator looks (and listens)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.005)


def showing(window: Any, recording_id: str) -> bool:
    panel = window.evidence.listening
    return panel is not None and panel.clip is not None and panel.clip.recording_id == recording_id


def arrival_run(dwell_s: float, first_dwell_s: float | None) -> dict[str, list[float]]:
    """One run (in this process): ms from J to each recording's spectrogram painted, wall time
    and the main thread's CPU time."""
    from PySide6.QtCore import QSettings

    from bagel_studio.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    folder = Path(tempfile.mkdtemp(prefix="bench-arrival-"))
    project = arrival_project(folder)
    services = Services(
        store=Store.open(project, owner="bench"), prefs=Preferences(curator="bench")
    )
    settings = QSettings(str(folder / "desk.ini"), QSettings.Format.IniFormat)
    window = MainWindow(services, settings=settings)
    window.resize(1280, 800)
    window.show()
    if first_dwell_s is None:  # J as soon as the listening panel is built: the hardest case
        wait_for(app, lambda: window.evidence.listening is not None)
    else:  # the curator reads the first item as long as any other
        pause(app, first_dwell_s)
    times, cpu, loaded = [], [], []
    for _ in range(window.queue_model.rowCount() - 1):
        start, start_cpu = time.perf_counter(), time.thread_time()
        window.machine.handle("next")
        item = window.controller.item
        assert item is not None and item.recording_id
        loaded.append(not showing(window, item.recording_id))  # not prepared ahead: "Loading…"
        wait_for(app, lambda w=item.recording_id: showing(window, w))
        panel = window.evidence.listening
        assert panel is not None
        panel.view.plot_widget.viewport().repaint()
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        pause(app, dwell_s)  # the curator looks and listens
    window.close()
    idle(app, services)
    services.close()
    return {"wall": times, "cpu": cpu, "loaded": loaded}


def bench_arrival(runs: int, dwell_s: float, first_dwell_s: float | None) -> None:
    """``runs`` arrival runs, each in a process of its own; the medians across runs."""
    sys.stdout.write(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    results = []
    first = "J as soon as the panel is built" if first_dwell_s is None else f"{first_dwell_s:g} s"
    for _ in range(runs):
        command = [sys.executable, __file__, "--arrival-run", "--dwell", str(dwell_s)]
        if first_dwell_s is not None:
            command += ["--first-dwell", str(first_dwell_s)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    walls, cpus = [r["wall"] for r in results], [r["cpu"] for r in results]
    sys.stdout.write(
        f"arrival runs (ms, J to the spectrogram painted, wall / main-thread CPU),"
        f" {len(walls[0])} recordings, {dwell_s:g} s at each, on the first item: {first}\n"
    )
    for n, result in enumerate(results, 1):
        pairs = " ".join(
            f"{w:.0f}/{c:.0f}{'*' if late else ''}"
            for w, c, late in zip(result["wall"], result["cpu"], result["loaded"], strict=True)
        )
        sys.stdout.write(f"  run {n}: {pairs}\n")
    sys.stdout.write("  (* the recording was not prepared ahead: it loaded after the key)\n")
    line("first arrival at a recording", [w[0] for w in walls], "ms", 300)
    line("first arrival, main-thread CPU", [c[0] for c in cpus], "ms")
    later = [statistics.median(w[1:]) for w in walls]
    line("later arrivals (median of each run)", later, "ms", 300)
    line("later arrivals, main-thread CPU (median)", [statistics.median(c[1:]) for c in cpus], "ms")
    line("later arrivals (worst of each run)", [max(w[1:]) for w in walls], "ms")
    sys.stdout.write(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Benchmark of the listening panel: spectrogram on screen, playhead frames, "
        "arrival at a recording in the desk."
    )
    parser.add_argument("--only", choices=("spectrogram", "playhead", "arrival"))
    parser.add_argument("--runs", type=int, default=3, help="arrival runs (default 3)")
    parser.add_argument("--dwell", type=float, default=2.0, help="seconds at each item")
    parser.add_argument(
        "--first-dwell", type=float, default=None,
        help="seconds on the first item (default: J as soon as the listening panel is built)",
    )  # fmt: skip
    parser.add_argument("--arrival-run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.arrival_run:
        sys.stdout.write(json.dumps(arrival_run(args.dwell, args.first_dwell)) + "\n")
        return
    if args.only in (None, "spectrogram", "playhead"):
        from bagel_studio.ui.listening import ListeningPanel

        app = QApplication.instance() or QApplication([])
        folder = Path(tempfile.mkdtemp(prefix="bench-listening-"))
        services = build_services(folder)
        panel = ListeningPanel(services)
        panel.resize(1280, 720)
        panel.show()
        app.processEvents()
        try:
            if args.only in (None, "spectrogram"):
                bench_spectrogram(app, panel)
            if args.only in (None, "playhead"):
                bench_playhead(app, panel)
        finally:
            panel.shutdown()
            idle(app, services)
            services.close()
    if args.only in (None, "arrival"):
        bench_arrival(args.runs, args.dwell, args.first_dwell)


if __name__ == "__main__":
    main()
