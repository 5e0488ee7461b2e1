"""``bagel-studio audio FILE``: what the audio core measures on one file.

The same decoding and analysis the desk and the Xeno-canto checks use, for a curator or a script
that wants the numbers behind a flag. A file that cannot be read exits with status 2 and one line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import print_json


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "audio",
        help="decode an audio file and print its measurements (clarity, band, call durations)",
        description="Decode FILE (WAV, FLAC, OGG, MP3, ... at any rate and channel count) and "
        "print what the paper's pipeline measures: peak and clipping, clarity score, dominant "
        "frequency band, call/syllable durations, harmonicity and modulation.",
    )
    parser.add_argument("file", metavar="FILE", help="the audio file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def report(path: str) -> dict[str, Any]:
    """The JSON report of ``path``; raises UsageError with one line if it cannot be read."""
    from bagel_studio.core.audio.analysis import ANALYSIS_VERSION, measure
    from bagel_studio.core.audio.decode import AudioError, decode

    try:
        audio = decode(path)  # the decoder's own messages on stderr are silenced there
    except AudioError as exc:
        raise UsageError(str(exc)) from None
    m = measure(audio)
    data: dict[str, Any] = {"file": path, "format": audio.format, "sha256": audio.sha256}
    data.update(m.to_json())
    data["syllable_duration_s"] = {
        "median": m.syllable_median_s,
        "min": m.syllable_min_s,
        "max": m.syllable_max_s,
        "count": len(m.syllable_durations_s),
    }
    data["analysis_version"] = ANALYSIS_VERSION
    return data


def format_report(data: dict[str, Any]) -> list[str]:
    low, high = data["dominant_band_hz"]
    syl = data["syllable_duration_s"]
    flags = [
        name
        for name, on in (
            ("clipped", data["clipped"]),
            ("too short", data["too_short"]),
            ("too quiet", data["too_quiet"]),
        )
        if on
    ]
    lines = [
        f"{data['file']}: {data['format']}, {data['sample_rate']} Hz, {data['channels']} "
        f"channel{'s' if data['channels'] != 1 else ''}, {data['duration_s']:.2f} s",
        f"peak        {data['peak']:.3f}{'  (' + ', '.join(flags) + ')' if flags else ''}",
        f"clarity     {data['clarity']:.2f}  (SNR {data['snr_db']:.1f} dB, harmonic "
        f"{data['harmonic_ratio']:.2f}, flatness {data['spectral_flatness']:.2f}, clipping "
        f"{_penalty(data['clipping_penalty'])}; analysed at {data['analysis_rate']} Hz)",
        f"dominant    {low / 1000:.2f}-{high / 1000:.2f} kHz, peak "
        f"{data['peak_freq_hz'] / 1000:.2f} kHz",
    ]
    if syl["median"] is None:
        lines.append("calls       none found")
    else:
        lines.append(
            f"calls       {syl['count']}, median {syl['median'] * 1000:.0f} ms "
            f"(range {syl['min'] * 1000:.0f}-{syl['max'] * 1000:.0f} ms)"
        )
    lines.append(f"harmonicity {data['harmonicity']:.2f}  (0 broadband, 1 tonal)")
    lines.append(f"modulation  {data['modulation'] or 'unclear'}")
    return lines


def _penalty(value: float) -> str:
    """A penalty subtracted from the clarity score: '-0.12', or 'none' (never '-0.00')."""
    return f"-{value:.2f}" if round(value, 2) > 0 else "none"


def run(args: argparse.Namespace) -> int:
    data = report(args.file)
    if args.json:
        print_json(data)
    else:
        sys.stdout.write("\n".join(format_report(data)) + "\n")
    return 0
