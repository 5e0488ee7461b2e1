"""Benchmark of issue 4's audio core on a 30 s, 44.1 kHz clip.

Run: .venv/bin/python tests/benchmarks/bench_audio.py [--no-playback]
Prints the load average, then, against the targets:
  * decode + the paper's measurements of the clip (target: under 1.5 s, off the UI thread),
    the first in the process and the median of three after it, wall and CPU time;
  * the spectrogram data of the clip (informative; drawing it is the UI's benchmark);
  * playback start: from play() to the first sample at the DAC, by the stream's clock
    (target: under 100 ms);
  * playhead drift: position_s() polled every 30 ms (as the UI timer does) against the audio
    clock over the whole clip (target: under 20 ms), and the length of the sound that came out
    of the sink against 30 s.
Playback runs through a private PulseAudio null sink (tests/support/pulse.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bagel_studio.core.audio import (
    Player,
    SpectrogramSettings,
    compute_spectrogram,
    measure,
)
from bagel_studio.core.audio.decode import decode

RATE = 44100
SECONDS = 30.0


def bird_like_clip(path: Path) -> Path:
    """Rising notes of 120 ms every 400 ms over a noise floor, like a singing bird."""
    rng = np.random.default_rng(1)
    t = np.arange(int(SECONDS * RATE)) / RATE
    phase_t = t % 0.4
    note = phase_t < 0.12
    freq = 3000 + 12000 * phase_t
    signal = 0.4 * note * np.sin(2 * np.pi * np.cumsum(freq) / RATE)
    noise = 0.01 * rng.standard_normal(t.size)
    sf.write(str(path), (signal + noise).astype(np.float32), RATE)
    return path


def line(name: str, value: float, unit: str, target: float | None = None) -> None:
    verdict = ""
    if target is not None:
        verdict = f"  (target < {target:g} {unit}: {'ok' if value < target else 'MISSED'})"
    sys.stdout.write(f"{name:<34} {value:10.1f} {unit}{verdict}\n")


def bench_analysis(path: Path) -> None:
    start = time.perf_counter()
    audio = decode(path)
    decoded = time.perf_counter()
    m = measure(audio)  # the first analysis also pays for importing scipy.signal (deferred)
    done = time.perf_counter()
    line("decode 30 s WAV", (decoded - start) * 1000, "ms")
    line("measure, first in the process", (done - decoded) * 1000, "ms")
    line("decode + measure, first", (done - start) * 1000, "ms", 1500)
    runs, cpu = [], []
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        m = measure(decode(path))
        runs.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    line("decode + measure, warm (median of 3)", statistics.median(runs) * 1000, "ms", 1500)
    line("  CPU time of it (median of 3)", statistics.median(cpu) * 1000, "ms")
    for scale in ("log", "linear", "mel"):
        t0 = time.perf_counter()
        compute_spectrogram(audio.samples, audio.sample_rate, SpectrogramSettings(scale=scale))
        line(f"spectrogram data ({scale})", (time.perf_counter() - t0) * 1000, "ms")
    sys.stdout.write(
        f"  measured: band {m.dominant_band_hz}, calls median {m.syllable_median_s} s, "
        f"modulation {m.modulation}, clarity {m.clarity}\n"
    )


def bench_playback(path: Path) -> None:
    from tests.support.pulse import record_monitor, running_null_sink

    audio = decode(path)
    try:
        context = running_null_sink()
        monitor = context.__enter__()
    except BaseException as exc:  # pytest.skip outside pytest, or no PulseAudio
        sys.stdout.write(f"playback skipped: {exc}\n")
        return
    try:
        player = Player()
        load_start = time.perf_counter()
        player.load(audio)
        line("load (open the stream)", (time.perf_counter() - load_start) * 1000, "ms")
        recording = Path(tempfile.mkdtemp()) / "out.wav"
        with record_monitor(monitor, recording, rate=48000):
            time.sleep(0.5)  # a stretch of silence before the sound
            call_start = time.perf_counter()
            player.play()
            call_ms = (time.perf_counter() - call_start) * 1000
            line("play() call", call_ms, "ms")
            worst = _poll_drift(player)
        timing = player.start_timing()
        latency = (timing.latency_s or 0.0) * 1000
        line("start: play() to DAC, by PortAudio", latency, "ms", 100)
        output_ms = float(player._stream.latency) * 1000
        line("start: play() call + output latency", call_ms + output_ms, "ms", 100)
        line("playhead drift vs audio clock (max)", worst * 1000, "ms", 20)
        samples, rate = sf.read(str(recording), dtype="float32")
        loud = np.flatnonzero(np.abs(samples) > 0.2)
        heard = (loud[-1] - loud[0]) / rate if loud.size else 0.0
        # The clip's last note ends 0.28 s before its end (notes of 0.12 s every 0.4 s).
        line("sound out of the sink, minus 30 s", abs(heard - (SECONDS - 0.28)) * 1000, "ms")
        player.close()
    finally:
        context.__exit__(None, None, None)


def _poll_drift(player: Player) -> float:
    """Largest gap between the playhead and the stream clock, polled every 30 ms."""
    stream = player._stream  # the benchmark reads the audio clock directly
    worst = 0.0
    while player.is_playing:
        time.sleep(0.03)
        heard_at = player.start_timing().heard_at
        if heard_at is None:
            continue
        clock = float(stream.time) - heard_at  # seconds of audio heard, by the audio clock
        position = player.position_s()
        if 0.1 < clock < SECONDS - 0.1:
            worst = max(worst, abs(position - clock))
    return worst


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--no-playback", action="store_true", help="skip the playback figures")
    args = parser.parse_args()
    sys.stdout.write(f"bench_audio: load average {loadavg()}\n")
    folder = Path(tempfile.mkdtemp(prefix="bench-audio-"))
    path = bird_like_clip(folder / "clip30s.wav")
    bench_analysis(path)
    if not args.no_playback:
        bench_playback(path)
    sys.stdout.write(f"load average at the end: {loadavg()}\n")


if __name__ == "__main__":
    main()
