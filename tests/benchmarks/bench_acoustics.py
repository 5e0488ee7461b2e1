"""Benchmark of the acoustic measurements on synthetic calls of known truth, from owls to bats.

Run: .venv/bin/python tests/benchmarks/bench_acoustics.py [--case NAME ...] [--snr DB]

Each case of ``tests/core/audio/ground_truth.py`` (tones, frequency sweeps, harmonic stacks and
pulse trains; calls of 1 ms to 2 s, 400 Hz to 150 kHz, recorded at 16-500 kHz in noise at
10-30 dB SNR) is written as a 16-bit WAV file, decoded and measured by the studio's pipeline
(``decode`` + ``measure``), and compared with what the generator put in. Printed per case:

* duration: the median measured call length against the true median, and the error;
* count: the calls counted against the calls made, and the error;
* band: the measured dominant band against the true band (each end as a multiple of the true
  end), and whether it holds the true centre;
* whether the case meets the targets: duration and count within 20 %, the band holding the true
  centre and lying inside 0.8x-1.2x of the true band; and the seconds the measurement took.

A case the pipeline cannot read (e.g. a sample rate it refuses) is reported as such.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.core.audio import ground_truth as gt

LIMIT = 0.2  # duration and count within 20 %


@dataclass(frozen=True)
class Row:
    case: gt.CallCase
    truth: gt.Truth
    error: str | None
    median_s: float | None
    count: int
    band_hz: tuple[float, float]
    seconds: float

    @property
    def duration_error(self) -> float | None:
        if self.median_s is None:
            return None
        return self.median_s / self.truth.median_s - 1.0

    @property
    def count_error(self) -> float:
        return self.count / self.truth.count - 1.0

    @property
    def band_ratios(self) -> tuple[float, float]:
        return (
            self.band_hz[0] / self.truth.band_hz[0],
            self.band_hz[1] / self.truth.band_hz[1],
        )

    @property
    def holds_centre(self) -> bool:
        return self.band_hz[0] <= self.truth.centre_hz <= self.band_hz[1]

    @property
    def duration_ok(self) -> bool:
        error = self.duration_error
        return error is not None and abs(error) <= LIMIT

    @property
    def count_ok(self) -> bool:
        return abs(self.count_error) <= LIMIT

    @property
    def band_ok(self) -> bool:
        low, high = self.band_ratios
        return self.error is None and self.holds_centre and low >= 0.8 and high <= 1.2

    @property
    def ok(self) -> bool:
        return self.error is None and self.duration_ok and self.count_ok and self.band_ok


def measure_case(case: gt.CallCase, folder: Path) -> Row:
    from bagel_studio.core.audio import AudioError, measure
    from bagel_studio.core.audio.decode import decode

    path = gt.write(case, folder)
    truth = gt.truth(case)
    start = time.perf_counter()
    try:
        m = measure(decode(path))
    except AudioError as exc:
        return Row(case, truth, str(exc), None, 0, (0.0, 0.0), time.perf_counter() - start)
    seconds = time.perf_counter() - start
    return Row(
        case,
        truth,
        None,
        m.syllable_median_s,
        len(m.syllable_durations_s),
        (float(m.dominant_band_hz[0]), float(m.dominant_band_hz[1])),
        seconds,
    )


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = seconds * 1000
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def _khz(hz: float) -> str:
    return f"{hz / 1000:.3g}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.0f}%"


HEADER = (
    f"{'case':<22} {'rate':>5} {'SNR':>3} | {'dur ms':>6} {'meas':>6} {'err':>6} | "
    f"{'n':>3} {'meas':>4} {'err':>6} | {'band kHz':>13} {'measured':>13} "
    f"{'lo x':>5} {'hi x':>5} ctr | ok    s"
)


def format_row(row: Row) -> str:
    case, truth = row.case, row.truth
    head = f"{case.name:<22} {case.rate // 1000:>4}k {case.snr_db:>3g} | "
    if row.error is not None:
        return head + f"not measured: {row.error}"
    true_band = f"{_khz(truth.band_hz[0])}-{_khz(truth.band_hz[1])}"
    band = f"{_khz(row.band_hz[0])}-{_khz(row.band_hz[1])}"
    low, high = row.band_ratios
    marks = "".join(
        mark if ok else "."
        for mark, ok in (("d", row.duration_ok), ("n", row.count_ok), ("b", row.band_ok))
    )
    return (
        head + f"{_ms(truth.median_s):>6} {_ms(row.median_s):>6} {_pct(row.duration_error):>6} | "
        f"{truth.count:>3} {row.count:>4} {_pct(row.count_error):>6} | "
        f"{true_band:>13} {band:>13} {low:5.2f} {high:5.2f} "
        f"{'yes' if row.holds_centre else 'NO':>3}"
        f" | {'yes' if row.ok else marks:<3} {row.seconds:5.2f}"
    )


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Measure synthetic calls of known truth (owls to bats) and print the error "
        "of duration, count and band per case.",
        epilog="Targets: duration and count within 20%%; band holding the true centre and "
        "inside 0.8x-1.2x of the true band.",
    )
    names = [c.name for c in gt.CASES]
    parser.add_argument("--case", action="append", choices=names, help="only this case")
    parser.add_argument("--snr", type=float, help="every case at this SNR (dB) instead")
    parser.add_argument("--seed", type=int, help="every case with this noise and jitter seed")
    args = parser.parse_args()
    cases = [c for c in gt.CASES if not args.case or c.name in args.case]
    if args.snr is not None:
        cases = [gt.with_snr(c, args.snr) for c in cases]
    if args.seed is not None:
        cases = [replace(c, seed=args.seed) for c in cases]
    print(f"bench_acoustics: {len(cases)} cases, load average {loadavg()}, pid {os.getpid()}")
    print("dur: median call length; n: calls counted; band: dominant band (lo x / hi x: each")
    print("end over the true end; ctr: holds the true centre); ok: all targets met, else")
    print("the ones met (d duration, n count, b band)\n")
    print(HEADER)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-acoustics-") as tmp:
        for case in cases:
            row = measure_case(case, Path(tmp))
            rows.append(row)
            print(format_row(row), flush=True)
    met = sum(r.ok for r in rows)
    durations = [abs(e) for r in rows if (e := r.duration_error) is not None]
    print(
        f"\n{met} of {len(rows)} cases meet every target; duration within 20%: "
        f"{sum(r.duration_ok for r in rows)}, count: {sum(r.count_ok for r in rows)}, "
        f"band: {sum(r.band_ok for r in rows)}; median |duration error| "
        f"{_pct(statistics.median(durations)) if durations else '-'}; "
        f"measuring took {sum(r.seconds for r in rows):.1f} s; load average {loadavg()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
