"""Spectrogram settings controls (FFT size, hop, window, scale, dB range, colour map).

The bar only edits a ``SpectrogramSettings`` value and emits it; the panel saves it to the project
(so every curator sees the same picture) and recomputes the image off the UI thread.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QSpinBox, QWidget

from bagel_studio.core.audio.spectrogram import COLORMAPS, SCALES

FFT_SIZES = (256, 512, 1024, 2048, 4096, 8192)
HOPS = (64, 128, 256, 512, 1024, 2048)
WINDOWS = ("hann", "hamming", "blackman", "blackmanharris", "bartlett")


def _combo(values: tuple[Any, ...], tip: str) -> QComboBox:
    combo = QComboBox()
    for value in values:
        combo.addItem(str(value), value)
    combo.setToolTip(tip)
    combo.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    return combo


def _select(combo: QComboBox, value: Any) -> None:
    """Select ``value``, adding it when the project stores one this bar does not list."""
    index = combo.findData(value)
    if index < 0:
        combo.addItem(str(value), value)
        index = combo.count() - 1
    combo.setCurrentIndex(index)


class SettingsBar(QWidget):
    """Edits the project's spectrogram settings."""

    settings_changed = Signal(object)  # a SpectrogramSettings

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings: Any = None
        self._updating = False
        self.fft_combo = _combo(FFT_SIZES, "FFT size (samples): larger = finer frequency detail")
        self.hop_combo = _combo(HOPS, "Hop (samples): smaller = finer time detail")
        self.window_combo = _combo(WINDOWS, "Analysis window")
        self.scale_combo = _combo(SCALES, "Frequency scale")
        self.colour_combo = _combo(COLORMAPS, "Colour map")
        self.range_spin = QSpinBox()
        self.range_spin.setRange(20, 160)
        self.range_spin.setSingleStep(10)
        self.range_spin.setSuffix(" dB")
        self.range_spin.setToolTip("Dynamic range shown below the loudest point")
        self.range_spin.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # Two rows of three: the panel often sits in a narrow column of the desk.
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setVerticalSpacing(2)
        for index, (caption, widget) in enumerate((
            ("Scale", self.scale_combo), ("FFT", self.fft_combo), ("Hop", self.hop_combo),
            ("Window", self.window_combo), ("Range", self.range_spin),
            ("Colours", self.colour_combo),
        )):  # fmt: skip
            row, column = divmod(index, 3)
            layout.addWidget(QLabel(caption), row, 2 * column)
            layout.addWidget(widget, row, 2 * column + 1)
        layout.setColumnStretch(6, 1)
        for combo in (self.fft_combo, self.hop_combo, self.window_combo, self.scale_combo,
                      self.colour_combo):  # fmt: skip
            combo.currentIndexChanged.connect(self._emit)
        self.range_spin.valueChanged.connect(self._emit)

    def set_settings(self, settings: Any) -> None:
        """Show ``settings`` without emitting a change."""
        self._settings = settings
        self._updating = True
        try:
            _select(self.fft_combo, int(settings.n_fft))
            _select(self.hop_combo, int(settings.hop))
            _select(self.window_combo, str(settings.window))
            _select(self.scale_combo, str(settings.scale))
            _select(self.colour_combo, str(settings.colormap))
            self.range_spin.setValue(round(float(settings.db_range)))
        finally:
            self._updating = False

    def settings(self) -> Any:
        """The settings as the controls show them."""
        if self._settings is None:
            return None
        return dataclasses.replace(
            self._settings,
            n_fft=int(self.fft_combo.currentData()),
            hop=int(self.hop_combo.currentData()),
            window=str(self.window_combo.currentData()),
            scale=str(self.scale_combo.currentData()),
            db_range=float(self.range_spin.value()),
            colormap=str(self.colour_combo.currentData()),
        )

    def _emit(self, *_: object) -> None:
        if self._updating or self._settings is None:
            return
        settings = self.settings()
        if settings != self._settings:
            self._settings = settings
            self.settings_changed.emit(settings)
