"""The listening panel: a Xeno-canto item's clip as a spectrogram, with transport and measurements.

``show_item`` returns at once: a clip prepared ahead (``prepare_ahead``: the desk names the items
it shows next, see ``ahead.py``) is drawn there and then; any other is decoded, its spectrogram
computed and its cached measurement read on ``services.workers``; a missing measurement is computed
there too and written through ``services.writer`` (see ``loader.py``). Every result carries the
generation of the item it was asked for, and a result for an item no longer on screen is dropped.
A listening key pressed while the clip loads (Space, a seek, H) acts once it has loaded.

Playback failures (no device, a device that vanishes) grey out the transport with the reason;
the spectrogram, overlays, measuring box and measurements keep working.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from bagel_studio.core.audio import AudioError, Player, load_settings, parse_claim
from bagel_studio.core.audio.birdnet import unavailable
from bagel_studio.core.audio.species import Detection, answer
from bagel_studio.core.audio.species_project import item_species
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Item, ItemContent
from bagel_studio.core.operations import store_detection, store_measurement
from bagel_studio.core.operations.project import save_spectrogram_settings
from bagel_studio.ui.listening.ahead import AheadQueue
from bagel_studio.ui.listening.loader import ClipLoader, LoadedClip, detect_clip, measure_clip
from bagel_studio.ui.listening.measurement_view import MeasurementView
from bagel_studio.ui.listening.overlays import OptionClaim
from bagel_studio.ui.listening.settings_bar import SettingsBar
from bagel_studio.ui.listening.species_strip import SpeciesStrip
from bagel_studio.ui.listening.spectrogram_view import SpectrogramView
from bagel_studio.ui.listening.transport import PlaybackController, TransportBar
from bagel_studio.ui.plain import plain_label
from bagel_studio.ui.services import Services

WIDE_LAYOUT_PX = 1000  # from this panel width on, the measurements sit beside the spectrogram
NARROW_MEASUREMENTS_PX = 190  # the measurements' least height below the spectrogram
SPECTROGRAM_ROOM_PX = 240  # what the spectrogram keeps before the measurements below it grow
QWIDGETSIZE_MAX = (1 << 24) - 1


def _height_at(widget: QWidget, width: int) -> int:
    """The height ``widget`` takes at ``width``: a word-wrapped label's lines at that width (its
    size hint is for its preferred width: the one-line header hinted two lines)."""
    if widget.isHidden():
        return 0
    height = widget.heightForWidth(width) if widget.hasHeightForWidth() else -1
    return height if height >= 0 else widget.sizeHint().height()


def option_claims(content: ItemContent) -> list[OptionClaim]:
    """The item's options with what each claims, for drawing over the spectrogram."""
    claims = []
    for index, text in enumerate(content.options):
        claim = parse_claim(text)
        claims.append(OptionClaim(
            letter=LETTERS[index] if index < len(LETTERS) else str(index + 1),
            text=text.strip(),
            kind=claim.kind if claim else None,
            low=claim.low if claim else None,
            high=claim.high if claim else None,
            gold=index == content.answer_index,
        ))  # fmt: skip
    return claims


def describe_recording(
    recording: dict[str, Any], clip: LoadedClip | None = None, brief: bool = False
) -> str:
    """One line about the recording: who, what, licence, and (once decoded) the file;
    ``brief``: what the decoded file is, only (the desk's card above names the recording, its
    id and its file: the line repeated the id under the card's title)."""
    names = " ".join(str(recording.get(k) or "") for k in ("scientific_name",)).strip()
    common = recording.get("common_name")
    parts = [] if brief else [str(recording["id"])]
    if (names or common) and not brief:
        parts.append(f"{names} ({common})" if names and common else names or str(common))
    for key in ("vocalization_type", "recordist", "licence"):
        if recording.get(key) and not brief:
            parts.append(str(recording[key]))
    if clip is not None:
        audio = clip.audio
        channels = "mono" if audio.channels == 1 else f"{audio.channels} ch"
        decoded = (
            f"{audio.duration_s:.1f} s, {audio.sample_rate / 1000:g} kHz {channels},"
            f" {audio.format}, peak {audio.peak:.2f}"
        )
        parts.append(f"Decoded: {decoded}" if brief else decoded)
    return " · ".join(parts)


class ListeningPanel(QWidget):
    """Spectrogram, player and measurements for the Xeno-canto item on screen."""

    status_message = Signal(str)
    # item id re-checked after its clip was measured, once the windows have redrawn its flags
    flags_changed = Signal(str)

    def __init__(
        self,
        services: Services,
        parent: QWidget | None = None,
        *,
        device: int | str | None = None,
        loader: ClipLoader | None = None,
        ahead: AheadQueue | None = None,
    ) -> None:
        """``loader`` and ``ahead``: the desk's, which began preparing the recordings it shows
        next before the panel was built (its caches then hold them); the panel's own otherwise."""
        super().__init__(parent)
        self.services = services
        self.loader = loader if loader is not None else ClipLoader()
        self.settings = load_settings(services.store)
        self.item: Item | None = None
        self.recording: dict[str, Any] | None = None
        self.clip: LoadedClip | None = None
        self.key_revealed = True  # blind mode sets it False until the curator has answered
        self._measurement: Any = None
        self._generation = 0
        self._loading = False  # the clip of the item on screen is on its way from a worker
        self._pending: list[Callable[[], None]] = []  # keys pressed meanwhile, in order
        self.ahead = (
            ahead
            if ahead is not None
            else AheadQueue(
                lambda: self.loader, services.store, services.workers, lambda: self.settings
            )
        )
        self._spectrogram_request = 0
        self._closed = False
        # True where the recording's card is on screen beside the panel (the desk's evidence):
        # the header then says only what the decoded file is, and leaves the height to the
        # spectrogram and the measurements
        self.brief_header = False
        self.controller = PlaybackController(Player(device), self)
        self._build()
        self._connect()
        self.clear()
        services.workers.submit(Player.available, self._on_device_checked, self._ignore_error)

    def _build(self) -> None:
        self.header = plain_label(selectable=False)  # metadata is data, never markup
        self.header.setObjectName("recordingHeader")
        self.transport = TransportBar()
        self.settings_bar = SettingsBar()
        self.settings_bar.set_settings(self.settings)
        self.view = SpectrogramView()
        self.species = SpeciesStrip()  # under the plot, above its readouts
        view_layout = self.view.layout()
        assert isinstance(view_layout, QBoxLayout)
        view_layout.insertWidget(1, self.species)
        self.species.link_to(self.view)
        self.notice = plain_label(selectable=False)  # ids, file names, error messages
        self.notice.setObjectName("listeningNotice")
        self.notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.notice)
        self.stack.addWidget(self.view)
        self.measurements = MeasurementView()
        self.measurement_scroll = QScrollArea()
        self.measurement_scroll.setWidget(self.measurements)
        self.measurement_scroll.setWidgetResizable(True)
        self.measurement_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.body = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.body.addWidget(self.stack, 1)
        self.body.addWidget(self.measurement_scroll)
        layout = self._column = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addWidget(self.transport)
        layout.addLayout(self.body, 1)
        layout.addWidget(self.settings_bar)
        self._arrange(self.width())

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._arrange(event.size().width(), event.size().height())
        super().resizeEvent(event)

    def _arrange(self, width: int, height: int | None = None) -> None:
        """Measurements beside the spectrogram when there is room, below it in a narrow desk
        column: the spectrogram needs the width more than the height."""
        beside = width >= WIDE_LAYOUT_PX
        direction = QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom
        if self.body.direction() != direction:
            self.body.setDirection(direction)
        scroll = self.measurement_scroll
        if beside:
            scroll.setMinimumHeight(0)
            scroll.setMaximumHeight(QWIDGETSIZE_MAX)
            scroll.setFixedWidth(300)
        else:
            scroll.setMinimumWidth(0)
            scroll.setMaximumWidth(QWIDGETSIZE_MAX)
            scroll.setFixedHeight(self._narrow_measurements_height(width, height or self.height()))

    def _rearrange(self) -> None:
        """Lay out again for what is shown now: the measurements' lines arrive after the panel
        was laid out (their height was the placeholder's until the next resize, and at 1280x800
        the last verdict was cut off when no resize came after them)."""
        if self.width() > 0:
            self._arrange(self.width(), self.height())

    def _set_header(self, text: str) -> None:
        self.header.setText(text)
        self._rearrange()

    def _narrow_measurements_height(self, width: int, height: int) -> int:
        """Below the spectrogram: NARROW_MEASUREMENTS_PX, or all the measurements' lines where
        the panel is high enough to leave the spectrogram SPECTROGRAM_ROOM_PX (at 1600x1000,
        and with 320 px kept at 1280x800 too, the last option's verdict scrolled out of sight
        under a spectrogram with room to spare; a line less of spectrogram shows it)."""
        inner = self.measurements
        room = max(width - 8 - self.measurement_scroll.verticalScrollBar().sizeHint().width(), 50)
        need = inner.heightForWidth(room) if inner.hasHeightForWidth() else -1
        need = max(need, inner.sizeHint().height())
        fixed = sum(
            _height_at(w, width - 8) for w in (self.header, self.transport, self.settings_bar)
        )
        spare = height - fixed - 8 - 4 * max(self._column.spacing(), 0) - SPECTROGRAM_ROOM_PX
        return max(NARROW_MEASUREMENTS_PX, min(need + 2, spare))

    def _connect(self) -> None:
        c, t = self.controller, self.transport
        c.position_changed.connect(self._on_position)
        c.playing_changed.connect(t.set_playing)
        c.availability_changed.connect(self._on_availability)
        c.message.connect(self.status_message)
        t.play_button.clicked.connect(self.toggle_play)
        t.stop_button.clicked.connect(self.stop)
        t.speed_combo.currentIndexChanged.connect(lambda _: c.set_speed(t.speed()))
        t.volume_slider.valueChanged.connect(lambda _: c.set_volume(t.volume()))
        t.loop_button.toggled.connect(lambda _: self._apply_loop())
        t.measure_button.toggled.connect(self.view.set_measure_mode)
        self.view.seek_requested.connect(c.seek)
        self.view.selection_changed.connect(lambda _: self._apply_loop())
        self.settings_bar.settings_changed.connect(self._on_settings_changed)
        self.measurements.changed.connect(self._rearrange)

    # -- the contract with the desk -------------------------------------------------------------

    def set_key_revealed(self, revealed: bool) -> None:
        """Blind mode: while the key is hidden the bands and verdicts do not say which option is
        the gold (and the mismatch verdict, which names it, waits); shown again once revealed."""
        if revealed == self.key_revealed:
            return
        self.key_revealed = revealed
        if self.item is not None:
            self.view.overlays.set_options(option_claims(self._visible_content(self.item)))
            if self._measurement is not None:
                self._show_measurement(self._measurement)
        self._hide_species_options()

    def _hide_species_options(self) -> None:
        """Blind mode: a BirdNET line that names one of the options waits for the answer."""
        hidden = self.item is not None and not self.key_revealed
        self.species.set_hidden_options(self.item.content.options if hidden and self.item else ())

    def _visible_content(self, item: Item) -> ItemContent:
        if self.key_revealed:
            return item.content
        return dataclasses.replace(item.content, answer_index=None)

    def show_item(self, item: Item) -> None:
        """Show ``item``'s recording; returns at once (the work runs on the worker pool)."""
        self._reset(item)
        self._hide_species_options()
        self.view.overlays.set_options(option_claims(self._visible_content(item)))
        if not item.recording_id:
            self._show_notice(f"{item.id}: no Xeno-canto recording linked to this item")
            return
        recording = self.services.store.evidence.recording(item.recording_id)
        if recording is None:
            self._show_notice(f"no recording {item.recording_id} in this project")
            return
        self.recording = recording
        self._set_header(describe_recording(recording, brief=self.brief_header))
        generation, store, settings = self._generation, self.services.store, self.settings
        ready = self.loader.ready(store, recording, settings)
        if ready is not None:  # prepared ahead (or seen before): on screen now
            self._on_loaded(ready)
            return
        self._show_notice(f"Loading {recording['id']}…")
        self._loading = True
        self.ahead.hold()  # the clip the curator waits for first
        self.services.workers.submit(
            lambda: self.loader.load(store, recording, settings),
            self._current(generation, self._on_loaded),
            self._current(generation, self._on_load_failed),
        )

    def clear(self) -> None:
        self._reset(None)
        self._show_notice("No Xeno-canto item selected")

    def prepare_ahead(self, item_ids: Sequence[str]) -> None:
        """The items the desk shows next: their recordings are decoded and drawn in the
        background (after the clip on screen), so that each is on screen as its item arrives."""
        self.ahead.set_items(item_ids)

    def toggle_play(self) -> None:
        self._when_loaded(self.controller.toggle, "Plays")

    def seek_relative(self, seconds: float) -> None:
        self._when_loaded(lambda: self.controller.seek_relative(seconds), "Seeks")

    def stop(self) -> None:
        self._when_loaded(self.controller.stop, "Stops")

    def _when_loaded(self, action: Callable[[], None], what: str) -> None:
        """Run ``action`` now, or, while the clip on screen is loading, once it has loaded (a
        key pressed during "Loading…" was lost)."""
        if not self._loading:
            action()
            return
        self._pending.append(action)
        self.status_message.emit(f"{what} once the recording has loaded")

    def step_speed(self, step: float) -> None:
        """[ and ]: the next slower or faster playback speed of the list."""
        combo = self.transport.speed_combo
        combo.setCurrentIndex(min(max(combo.currentIndex() + int(step), 0), combo.count() - 1))
        self.status_message.emit(f"Playback speed {combo.currentText()}")

    def toggle_loop(self) -> None:
        self.transport.loop_button.toggle()

    def toggle_measure(self) -> None:
        button = self.transport.measure_button
        button.toggle()
        self.status_message.emit(
            "Measuring box on: drag on the spectrogram (M again: off)"
            if button.isChecked()
            else "Measuring box off (Shift+drag still draws one)"
        )

    def zoom_to_selection(self) -> None:
        """Z: the measuring box's time and band fill the plot."""
        if not self.view.zoom_to_selection():
            self.status_message.emit("Z zooms to the measuring box: draw one first (Shift+drag)")

    def show_all(self) -> None:
        """0: the whole recording again."""
        self.view.show_all()

    def shutdown(self) -> None:
        """Close the audio stream; later worker results are ignored."""
        self._closed = True
        self._generation += 1
        self.ahead.close()
        self.controller.close()

    # -- loading --------------------------------------------------------------------------------

    def _reset(self, item: Item | None) -> None:
        self._generation += 1
        self.item, self.recording, self.clip = item, None, None
        self._measurement = None
        self._loading = False
        self._pending = []  # keys pressed for the item left behind do not act on this one
        self.ahead.release()
        self.controller.unload()
        reason = self.controller.reason
        self.transport.set_enabled_playback(False, f"No playback: {reason}" if reason else "")
        self.transport.loop_button.setChecked(False)
        self.view.clear()
        self.header.setText("")
        self.measurements.show_message("")
        self.species.show_message("")

    def _current(self, generation: int, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        """``callback`` only while the item it was started for is still on screen."""

        def deliver(result: Any) -> None:
            if not self._closed and generation == self._generation:
                callback(result)

        return deliver

    def _show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.stack.setCurrentWidget(self.notice)

    def _on_loaded(self, clip: LoadedClip) -> None:
        assert self.recording is not None
        self.clip = clip
        self._loading = False
        self._set_header(describe_recording(self.recording, clip, self.brief_header))
        self.view.set_spectrogram(clip.spectrogram)
        self.stack.setCurrentWidget(self.view)
        self.controller.load(clip.audio)
        self.controller.set_speed(self.transport.speed())
        self.controller.set_volume(self.transport.volume())
        if clip.measurement is not None:
            self._show_measurement(clip.measurement)
        else:
            self._measure(clip)
        self._show_species(clip)
        self._apply_loop()  # O pressed while it loaded
        pending, self._pending = self._pending, []
        for action in pending:
            action()
        self.ahead.release()

    def _on_load_failed(self, error: BaseException) -> None:
        self._loading, self._pending = False, []
        self.ahead.release()
        text = str(error) if isinstance(error, AudioError) else f"{type(error).__name__}: {error}"
        self._show_notice(text)
        self.measurements.show_message("no measurement: the clip could not be read")
        self.status_message.emit(text)

    def _measure(self, clip: LoadedClip) -> None:
        """Measure on a worker, store through the writer, show if still on screen."""
        self.measurements.show_message("measuring the clip…")
        recording, item_id = self.recording, self.item.id if self.item else None
        assert recording is not None
        generation = self._generation

        def stored(_flags: object) -> None:
            if self._closed or item_id is None:
                return
            self.flags_changed.emit(item_id)
            shown = self.item  # moved on to another item of the same clip: it was re-checked too
            if shown is not None and shown.id != item_id and shown.recording_id == recording["id"]:
                self.flags_changed.emit(shown.id)

        def measured(measurement: Any) -> None:
            store, sha = self.services.store, clip.audio.sha256
            self.services.write(
                lambda: store_measurement(store, recording, sha, measurement, item_id),
                origin=self, done=stored, failed=self._report_error,
            )  # fmt: skip
            self._current(generation, self._show_measurement)(measurement)

        self.services.workers.submit_after_repaint(
            lambda: measure_clip(clip.audio), measured,
            self._current(generation, lambda e: self.measurements.show_message(str(e))),
        )  # fmt: skip

    # -- species (BirdNET) ----------------------------------------------------------------------

    def _show_species(self, clip: LoadedClip) -> None:
        """The item's species in the strip: from the cached detection, else detected now on a
        worker and stored through the writer (as a measurement is)."""
        species = item_species(self.item, self.recording) if self.item else None
        missing = unavailable()
        if species is None:
            self.species.show_message("BirdNET: the item names no species (genus and species)")
        elif missing is not None:
            self.species.show_message(f"BirdNET: {missing}")
        elif isinstance(clip.detection, Detection):
            self.species.show_answer(answer(clip.detection, species))
        elif isinstance(clip.detection, str):
            self.species.show_message(f"BirdNET: {clip.detection}")
        else:
            self._detect(clip, species)

    def _detect(self, clip: LoadedClip, species: str) -> None:
        self.species.show_message("BirdNET: listening for the species…")
        recording, item_id = self.recording, self.item.id if self.item else None
        assert recording is not None
        generation = self._generation

        def stored(_flags: object) -> None:
            if not self._closed and item_id is not None:
                self.flags_changed.emit(item_id)

        def detected(detection: Detection) -> None:
            store, sha = self.services.store, clip.audio.sha256
            self.services.write(
                lambda: store_detection(store, recording, sha, detection, item_id),
                origin=self, done=stored, failed=self._report_error,
            )  # fmt: skip
            show = self._current(generation, self.species.show_answer)
            show(answer(detection, species))

        self.services.workers.submit_after_repaint(
            lambda: detect_clip(clip.audio), detected,
            self._current(generation, lambda e: self.species.show_message(f"BirdNET: {e}")),
        )  # fmt: skip

    def play_species(self) -> None:
        """H: play from the window where BirdNET is most confident of the item's species."""
        self._when_loaded(self._play_species, "Plays where BirdNET hears the species")

    def _play_species(self) -> None:
        found = self.species.answer
        if found is None or not found.covered or found.best_window is None:
            self.status_message.emit("No BirdNET detection of this item's species to play from")
            return
        start = found.starts[found.best_window]
        self.controller.seek(start)
        if not self.controller.is_playing:
            self.controller.toggle()
        self.status_message.emit(
            f"Playing from {start:.1f} s, where BirdNET is surest of {found.species} "
            f"({found.best:.2f})"
        )

    def _show_measurement(self, measurement: Any) -> None:
        self._measurement = measurement
        content = self._visible_content(self.item) if self.item else None
        self.measurements.show_measurement(measurement, content)
        self.view.overlays.set_measured_band(tuple(measurement.dominant_band_hz))
        self._arrange(self.width())  # below the spectrogram: room for its lines if there is

    # -- settings -------------------------------------------------------------------------------

    def _on_settings_changed(self, settings: Any) -> None:
        """Store the settings in the project (every curator sees the same picture), redraw."""
        self.settings = settings.validated()
        store = self.services.store
        if not store.read_only:
            self.services.write(
                lambda: save_spectrogram_settings(store, self.settings),
                origin=self,
                failed=self._report_error,
            )
        clip = self.clip
        if clip is None:
            return
        self._spectrogram_request += 1
        request, generation, wanted = self._spectrogram_request, self._generation, self.settings

        def done(spectrogram: Any) -> None:
            if request == self._spectrogram_request:
                self.view.set_spectrogram(spectrogram)

        self.services.workers.submit(
            lambda: self.loader.spectrogram(clip.audio, wanted),
            self._current(generation, done), self._current(generation, self._report_error),
        )  # fmt: skip

    # -- playback -------------------------------------------------------------------------------

    def _on_position(self, seconds: float) -> None:
        self.view.set_playhead(seconds)
        duration = self.clip.audio.duration_s if self.clip is not None else 0.0
        self.transport.set_position(seconds, duration)

    def _on_availability(self, ok: bool, reason: str) -> None:
        self.transport.set_enabled_playback(ok, "" if ok else f"No playback: {reason}")
        if not ok:
            self.status_message.emit(f"Playback unavailable: {reason}")

    def _on_device_checked(self, result: tuple[bool, str]) -> None:
        """The worker looked for an output (and may have started a sound server): a clip loaded
        before without one gets its stream now; without one, the reason says what to do."""
        ok, reason = result
        if self._closed:
            return
        if ok and self.controller.loaded and self.controller.reason and self.clip is not None:
            self.controller.load(self.clip.audio)
        elif not ok and (not self.controller.loaded or self.controller.reason):
            self.controller.set_unavailable(reason)

    def _apply_loop(self) -> None:
        if not self.transport.loop_button.isChecked() or self.clip is None:
            self.controller.set_loop(None, None)
            return
        selection = self.view.selection()
        if selection is None:
            self.controller.set_loop(0.0, self.clip.audio.duration_s)
        else:
            self.controller.set_loop(selection[0], selection[1])

    def _report_error(self, error: BaseException) -> None:
        if not self._closed:
            self.status_message.emit(str(error))

    def _ignore_error(self, error: BaseException) -> None:
        """The device probe failing is reported by the first load instead."""
