"""What the clip measures, beside the spectrogram, and how each option's claim fares against it.

The numbers come from the core's pipeline (``measure``); the verdicts from the core's own
comparison (``claim_distance`` and ``mismatch``), so the panel and the ``acoustic-mismatch`` check
can never disagree about whether the gold claim fits the clip.
"""

from __future__ import annotations

import html
import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from bagel_studio.core.audio import Measurement, parse_claim
from bagel_studio.core.audio.claims import (
    CALL,
    PHRASE,
    Claim,
    call_quartiles,
    claim_distance,
    duration_unit,
    format_duration,
    mismatch,
    phrase_span,
)
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Severity
from bagel_studio.ui.listening.frequency_axis import format_khz

BLIND_VERDICTS = "Options vs the clip: shown once you have answered (blind mode)."
# The flag list's colours (item_view.SEVERITY_STYLE, the queue's flag column), for what the
# panel says beside a flag; and the gold line's when no flag is raised.
SEVERITY_COLOUR = {
    Severity.BLOCKING: "#c62828",
    Severity.WARNING: "#ef6c00",
    Severity.INFO: "#1565c0",
}
FITS, NEUTRAL = "#2e7d32", "#555"


def format_seconds(value: float | None) -> str:
    return "–" if value is None else format_duration(value)  # 0.64 ms for a bat's pulse


def measurement_rows(m: Measurement) -> dict[str, str]:
    """The measurement as label -> text rows (also what the tests read)."""
    low, high = m.dominant_band_hz
    count = len(m.syllable_durations_s)
    if m.syllable_median_s is None:
        syllables = "no calls found"
    else:
        syllables = (
            f"{format_seconds(m.syllable_median_s)} median "
            f"({format_seconds(m.syllable_min_s)}–{format_seconds(m.syllable_max_s)},"
            f" n = {count})"
        )
    return {
        "Dominant band": f"{format_khz(low)}–{format_khz(high)} kHz "
        f"(peak {format_khz(m.peak_freq_hz)} kHz)",
        "Syllables": syllables,
        "Harmonicity": f"{m.harmonicity:.2f} (0 broadband, 1 tonal)",
        "Modulation": m.modulation or "not determined",
        "Clarity": f"{m.clarity:.2f}  (SNR {m.snr_db:.1f} dB)",
        "Peak": f"{m.peak:.2f} of full scale",
    }


def measurement_warnings(m: Measurement) -> list[str]:
    warnings = []
    if m.too_short:
        warnings.append(f"too short: {m.duration_s:.1f} s (the paper drops clips under 5 s)")
    if m.too_quiet:
        warnings.append(f"too quiet: peak {m.peak:.2f} (the paper drops clips below 0.1)")
    if m.clipped:
        warnings.append(f"clipped: peak {m.peak:.2f} reaches full scale")
    return warnings


def warning_colour(warning: str) -> str:
    """A warning's colour: that of the flag it stands beside in the flag list (a clip too short
    is the info flag clip-too-short, blue; too quiet the warning clip-too-quiet), so that the
    panel does not raise an alarm the flag does not."""
    return SEVERITY_COLOUR[Severity.INFO if warning.startswith("too short") else Severity.WARNING]


def gold_line(content: Any, m: Measurement) -> tuple[str, str]:
    """What the clip makes of a gold the acoustic-mismatch check lets pass, and its colour:
    it fits, it makes no measurable claim, it cannot be compared with this clip, or it is off
    the clip by less than the check tolerates (its line below says by how much)."""
    gold = content.answer_index
    options = content.options
    claim = parse_claim(options[gold]) if gold is not None and 0 <= gold < len(options) else None
    if claim is None:
        return "the gold makes no measurable claim: nothing to compare", NEUTRAL
    distance = claim_distance(claim, m, duration_unit(content.question))
    if distance is None:
        return "the gold's claim cannot be compared with this clip", NEUTRAL
    if distance == 0:
        return "gold claim fits the clip", FITS
    return (
        "gold claim is off the clip, within what acoustic-mismatch tolerates (see its line below)",
        NEUTRAL,
    )


def option_verdicts(
    options: tuple[str, ...],
    gold: int | None,
    m: Measurement,
    question: str = "",
    dimension: str | None = None,
) -> list[str]:
    """One line per option: does its claim fit the clip (a duration read as the stem asks, a
    claim of the kind the item's dimension asks)?"""
    unit = duration_unit(question)
    lines = []
    for index, text in enumerate(options):
        claim = parse_claim(text, dimension)
        mark = "  (gold)" if index == gold else ""
        letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
        if claim is None:
            verdict = "no measurable claim"
        else:
            distance = claim_distance(claim, m, unit)
            if distance is None:
                verdict = "cannot compare"
            elif distance == 0:
                verdict = "✓ fits the clip"
            elif claim.kind == "duration" and math.isfinite(distance):
                verdict = f"✗ {duration_ratio(claim, m, unit)}"
            elif claim.kind == "frequency" and math.isfinite(distance):
                verdict = f"✗ {distance:.1f} octave{'s' if distance >= 1.05 else ''} off"
            else:
                verdict = "✗ does not fit"
        lines.append(f"{letter}  {text}{mark}: {verdict}")
    return lines


def duration_ratio(claim: Claim, m: Measurement, unit: str) -> str:
    """How a duration claim that misses the clip compares with it, as a ratio ("3.5x longer
    than the clip's calls"): the claimed range against the middle half of the calls or the
    span of the phrases (the one the stem asks about, else the nearer), as ``claim_distance``
    compares."""
    levels = [] if unit == PHRASE else [("calls", call_quartiles(m))]
    if unit != CALL:
        levels.append(("phrases", phrase_span(m)))
    ratios = []
    for name, (low, high) in levels:
        if claim.low is not None and claim.low > high > 0:
            ratios.append((claim.low / high, "longer", name))
        elif claim.high is not None and 0 < claim.high < low:
            ratios.append((low / claim.high, "shorter", name))
    if not ratios:
        return "does not fit"
    ratio, direction, name = min(ratios)
    shown = f"{ratio:.1f}" if ratio < 10 else f"{ratio:.0f}"
    return f"{shown}x {direction} than the clip's {name}"


class MeasurementView(QWidget):
    """A compact read-out of the clip's measurement and the claim check."""

    changed = Signal()  # its text, and so the height its lines need, changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: dict[str, str] = {}
        self.warnings: list[str] = []
        self.verdicts: list[str] = []
        self.flag_text = ""
        self.flag_severity = Severity.INFO  # the acoustic-mismatch flag's, when there is one
        self.gold_line = ("", NEUTRAL)  # what the clip makes of a gold no flag doubts
        self.blind = False  # blind mode: the verdicts wait for the answer
        self.body = QLabel()
        self.body.setObjectName("measurementBody")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.body, 1)
        self.show_message("")

    def show_message(self, text: str) -> None:
        self.rows, self.warnings, self.verdicts, self.flag_text = {}, [], [], ""
        self.body.setText(f"<b>Measurements</b><br><i>{html.escape(text)}</i>")
        self.changed.emit()

    def show_measurement(self, m: Measurement, content: Any | None) -> None:
        """Show ``m`` and, for an item's ``content``, each option's verdict and the gold flag."""
        self.rows = measurement_rows(m)
        self.warnings = measurement_warnings(m)
        self.verdicts, self.flag_text = [], ""
        self.flag_severity = Severity.INFO
        self.gold_line = ("", NEUTRAL)
        self.blind = content is not None and content.answer_index is None
        if content is not None and not self.blind:
            question, dimension = content.question, content.dimension
            gold = content.answer_index
            self.verdicts = option_verdicts(content.options, gold, m, question, dimension)
            flag = None if gold is None else mismatch(content.options, gold, m, question, dimension)
            self.flag_text = flag.message if flag is not None else ""
            if flag is not None:
                self.flag_severity = flag.severity
            else:
                self.gold_line = gold_line(content, m)
        self.body.setText(self._html())
        self.changed.emit()

    def _html(self) -> str:
        # The verdict on the gold claim first: in a narrow desk column the rest may scroll.
        parts = []
        if self.flag_text:
            colour = SEVERITY_COLOUR[self.flag_severity]
            parts.append(
                f"<div style='color:{colour}'>⚑ acoustic mismatch: "
                f"{html.escape(self.flag_text)}</div>"
            )
        elif self.verdicts:
            text, colour = self.gold_line
            parts.append(f"<div style='color:{colour}'>{html.escape(text)}</div>")
        parts += [
            "<div><b>Measurements</b> <span style='color:#888'>(paper pipeline)</span></div>",
            "<table cellspacing='0' cellpadding='1'>",
        ]
        for label, text in self.rows.items():
            parts.append(
                f"<tr><td style='color:#666'>{label}&nbsp;</td><td>{html.escape(text)}</td></tr>"
            )
        parts.append("</table>")
        for warning in self.warnings:
            colour = warning_colour(warning)
            parts.append(f"<div style='color:{colour}'>⚠ {html.escape(warning)}</div>")
        if self.blind:  # the verdicts say which option the sound supports: after the answer
            parts.append(f"<br><i>{html.escape(BLIND_VERDICTS)}</i>")
        if self.verdicts:
            parts.append("<br><b>Options vs the clip</b>")
            for line in self.verdicts:
                style = "font-weight:bold;" if "(gold)" in line else ""
                parts.append(f"<div style='{style}'>{html.escape(line)}</div>")
        return "".join(parts)
