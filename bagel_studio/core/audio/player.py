"""Playing a clip through sounddevice (PortAudio), without Qt.

The stream is opened when a clip is loaded, so ``play()`` only starts it and sound follows within
the device latency. Slowing down is time expansion, as on a bat detector: the samples are played
at ``sample_rate * speed``, so a 40 kHz call at 0.1x is heard at 4 kHz; when the device refuses
that rate, the clip is resampled to one it accepts. The playhead comes from the audio stream's
own clock: the callback records which frame it wrote and when that block reaches the DAC, and
``position_s`` extrapolates with the stream time, so it cannot drift from what is heard.

The callback copies samples and records two numbers; it takes no lock, logs nothing and allocates
nothing. Requests from the UI thread (seek, loop, volume) are plain attribute writes that the
callback picks up at its next block. sounddevice is imported only when needed: a machine without
PortAudio or without an output device gets ``PlayerUnavailable`` with the reason, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bagel_studio.core.audio import dsp
from bagel_studio.core.audio.decode import DecodedAudio

MIN_SPEED, MAX_SPEED = 0.1, 2.0
MIN_LOOP_S = 0.01
# Output buffering: PortAudio's "low" (~9 ms) underruns through ALSA -> PulseAudio on a busy
# machine (and 40 ms occasionally did); 60 ms still starts well within 100 ms.
OUTPUT_LATENCY_S = 0.06


class PlayerUnavailable(Exception):
    """Playback is impossible here; ``str()`` says why, fit to show in the desk."""


def _sounddevice() -> Any:
    try:
        import sounddevice
    except OSError as exc:  # PortAudio library missing
        raise PlayerUnavailable(
            f"no audio output device: PortAudio is not installed ({exc})"
        ) from None
    return sounddevice


def _default_output(sd: Any) -> tuple[bool, str]:
    """(True, the default output's name) or (False, PortAudio's reason)."""
    try:
        info = sd.query_devices(kind="output")
    except Exception as exc:  # sounddevice raises PortAudioError or ValueError here
        return False, str(exc)
    if int(info.get("max_output_channels", 0)) < 1:
        return False, "the default device has no outputs"
    return True, str(info.get("name", "default"))


@dataclass(frozen=True)
class _Clock:
    frame: int  # buffer frame written first in the last block
    dac_time: float  # stream time at which that frame is heard
    jumped: bool  # the block starts at a seek target


@dataclass(frozen=True)
class StartTiming:
    """Stream times of the last ``play()`` call and of its first sound at the DAC."""

    requested_at: float
    heard_at: float | None

    @property
    def latency_s(self) -> float | None:
        return None if self.heard_at is None else self.heard_at - self.requested_at


class Player:
    """One clip at a time: play, pause, stop, seek, loop, volume, speed."""

    def __init__(self, device: int | str | None = None) -> None:
        self._device = device
        self._audio: DecodedAudio | None = None
        self._buffer = np.zeros((0, 1), dtype=np.float32)
        self._out_rate = 0
        self._ratio = 1.0  # source frames per buffer frame
        self._stream: Any = None
        self._unavailable: str | None = None
        self._volume = 1.0
        self._speed = 1.0
        self._loop_s: tuple[float, float] | None = None
        self._loop: tuple[int, int] | None = None
        self._frame = 0
        self._seek_request = (0, 0)
        self._seek_applied = 0
        self._clock: _Clock | None = None
        self._latency = 0.0
        self._playing = False
        self._finished = False
        self._rest_s = 0.0  # position while not playing
        self._requested_at = 0.0
        self._heard_at: float | None = None
        self._pending_s = 0.0
        self._floor_s = 0.0  # the playhead never moves back without a seek or a loop
        self._tail_until: float | None = None  # stream time when the clip's end is heard
        self._callback_stop: type[Exception] = Exception

    # -- availability ---------------------------------------------------------------------------

    @staticmethod
    def available() -> tuple[bool, str]:
        """(True, device name) or (False, "no audio output device: <why>, <what to do>").

        Without an output device, a sound server is looked for and, where allowed, started for
        this user (``sound_server.ensure_sound_server``); then PortAudio looks again."""
        try:
            sd = _sounddevice()
        except PlayerUnavailable as exc:
            return False, str(exc)
        found, text = _default_output(sd)
        if found:
            return True, text
        from bagel_studio.core.audio.sound_server import ensure_sound_server, explain_no_device

        server = ensure_sound_server()
        if server.started:
            sd._terminate()  # PortAudio lists devices once: look again now that a server runs
            sd._initialize()
            found, name = _default_output(sd)
            if found:
                return True, name
        return False, explain_no_device(text, server)

    # -- loading --------------------------------------------------------------------------------

    def load(self, audio: DecodedAudio) -> None:
        """Make ``audio`` the clip, at the start, and open the stream (errors wait for play)."""
        self._close_stream()
        self._audio = audio
        self._loop_s, self._loop = None, None
        self._rest_s, self._finished = 0.0, False
        self._reopen()

    def _reopen(self) -> None:
        self._unavailable = None
        try:
            self._open_stream()
        except PlayerUnavailable as exc:
            self._unavailable = str(exc)

    def _open_stream(self) -> None:
        try:
            self._open_stream_once()
        except PlayerUnavailable:
            from bagel_studio.core.audio.sound_server import restart_if_gone

            if not restart_if_gone():  # a server started here may have exited while idle
                raise
            sd = _sounddevice()
            sd._terminate()  # PortAudio lists devices once: look again now that it runs again
            sd._initialize()
            self._open_stream_once()

    def _open_stream_once(self) -> None:
        audio = self._audio
        if audio is None:
            return
        sd = _sounddevice()
        self._callback_stop = sd.CallbackStop
        try:
            info = sd.query_devices(self._device, kind="output")
        except Exception as exc:
            from bagel_studio.core.audio.sound_server import explain_no_device

            raise PlayerUnavailable(explain_no_device(str(exc))) from None
        max_channels = int(info.get("max_output_channels", 0))
        if max_channels < 1:
            raise PlayerUnavailable("no audio output device: the device has no outputs")
        source = audio.samples
        if audio.channels > max_channels:
            mono = audio.mono()[:, None]
            source = np.repeat(mono, min(2, max_channels), axis=1)
        channels = source.shape[1]
        virtual = max(1, round(audio.sample_rate * self._speed))
        rate = self._pick_rate(sd, virtual, channels, float(info["default_samplerate"]))
        if rate == virtual:
            buffer = np.ascontiguousarray(source, dtype=np.float32)
        else:
            virtual = max(100, round(virtual / 100) * 100)
            buffer = np.ascontiguousarray(dsp.resample(source, virtual, rate))
        self._buffer, self._out_rate, self._ratio = buffer, rate, virtual / rate
        self._loop = self._loop_frames(self._loop_s)
        try:
            self._stream = sd.OutputStream(
                samplerate=rate,
                channels=channels,
                dtype="float32",
                device=self._device,
                latency=OUTPUT_LATENCY_S,
                callback=self._callback,
                finished_callback=self._on_finished,
            )
        except Exception as exc:
            raise PlayerUnavailable(f"cannot open the audio output: {exc}") from None
        self._latency = float(self._stream.latency)

    def _pick_rate(self, sd: Any, wanted: int, channels: int, fallback: float) -> int:
        """``wanted`` if the device takes it, else its default rate (or a common one)."""
        for rate in dict.fromkeys((wanted, int(fallback), 48000, 44100)):
            if self.accepts_rate(sd, rate, channels):
                return rate
        raise PlayerUnavailable("no audio output device: no usable sample rate")

    def accepts_rate(self, sd: Any, rate: int, channels: int) -> bool:
        if rate <= 0:
            return False
        try:
            sd.check_output_settings(
                device=self._device, channels=channels, dtype="float32", samplerate=rate
            )
        except Exception:
            return False
        return True

    # -- transport ------------------------------------------------------------------------------

    def play(self) -> None:
        """Start (or resume) playback; raises PlayerUnavailable with the reason if impossible."""
        if self._audio is None:
            raise PlayerUnavailable("no clip loaded")
        if self._stream is None:
            self._reopen()
        if self._stream is None:
            raise PlayerUnavailable(self._unavailable or "no audio output device")
        if self._stream.active:
            return
        if not self._stream.stopped:  # finished by itself: PortAudio wants a stop before a start
            self._stream.abort()
        if self._finished or self._rest_s >= self.duration_s - 1e-6:
            self._rest_s = self._loop_s[0] if self._loop_s else 0.0
        self._finished = False
        self._tail_until = None
        self._clock = None
        self._frame = self._to_frame(self._rest_s)
        self._seek_applied = self._seek_request[0]
        self._heard_at = None
        self._floor_s = self._rest_s
        self._requested_at = float(self._stream.time)
        self._playing = True
        try:
            self._stream.start()
        except Exception as exc:
            self._playing = False
            raise PlayerUnavailable(f"cannot start the audio output: {exc}") from None

    def pause(self) -> None:
        """Stop the sound at once and keep the position that was heard."""
        if self._stream is not None and self._stream.active:
            position = self.position_s()
            self._stream.abort()
            self._rest_s = position
        self._playing = False

    def stop(self) -> None:
        """Stop and go back to the start (of the loop, when looping)."""
        self.pause()
        self._finished = False
        self._rest_s = self._loop_s[0] if self._loop_s else 0.0

    def seek(self, seconds: float) -> None:
        target = float(np.clip(seconds, 0.0, self.duration_s))
        self._finished = False
        if self._stream is not None and self._stream.active:
            generation = self._seek_request[0] + 1
            self._pending_s = target
            self._floor_s = target
            self._seek_request = (generation, self._to_frame(target))
        else:
            self._rest_s = target

    def set_loop(self, start_s: float | None, end_s: float | None) -> None:
        """Loop [start_s, end_s) while playing; (None, None) ends looping."""
        if start_s is None or end_s is None:
            self._loop_s, self._loop = None, None
            return
        start = float(np.clip(min(start_s, end_s), 0.0, self.duration_s))
        end = float(np.clip(max(start_s, end_s), 0.0, self.duration_s))
        if end - start < MIN_LOOP_S:
            raise ValueError(f"a loop must last at least {MIN_LOOP_S * 1000:.0f} ms")
        self._loop_s = (start, end)
        self._loop = self._loop_frames(self._loop_s)
        position = self.position_s()
        if not start <= position < end:
            self.seek(start)

    def set_volume(self, volume: float) -> None:
        self._volume = float(np.clip(volume, 0.0, 1.0))

    def set_speed(self, speed: float) -> None:
        """Playback speed 0.1..2.0 by time expansion (pitch falls with speed)."""
        speed = float(np.clip(speed, MIN_SPEED, MAX_SPEED))
        if speed == self._speed:
            return
        was_playing = self.is_playing
        position = self.position_s()
        self.pause()
        self._close_stream()
        self._speed = speed
        self._rest_s = position
        self._reopen()
        if was_playing:
            self.play()

    @property
    def speed(self) -> float:
        return self._speed

    @property
    def volume(self) -> float:
        return self._volume

    @property
    def loop(self) -> tuple[float, float] | None:
        return self._loop_s

    @property
    def unavailable_reason(self) -> str | None:
        """Why the last attempt to open the output failed, or None."""
        return self._unavailable

    @property
    def is_playing(self) -> bool:
        return bool(self._playing and self._stream is not None and self._stream.active)

    @property
    def duration_s(self) -> float:
        return self._audio.duration_s if self._audio is not None else 0.0

    def start_timing(self) -> StartTiming:
        """When the last play() was asked for and when its first sample reached the DAC."""
        return StartTiming(self._requested_at, self._heard_at)

    def close(self) -> None:
        self.pause()
        self._close_stream()

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.abort()
            stream.close()

    # -- the clock ------------------------------------------------------------------------------

    def position_s(self) -> float:
        """Where playback is, in seconds of the clip, by the audio stream's clock."""
        stream = self._stream
        if not self._playing or stream is None:
            return self._rest_s
        if self._finished and not stream.active:
            self._playing = False
            self._rest_s = self.duration_s
            return self._rest_s
        if self._seek_request[0] != self._seek_applied:
            return self._pending_s
        clock = self._clock
        if clock is None:
            return self._rest_s
        elapsed = float(stream.time) - clock.dac_time
        if clock.jumped and elapsed < 0:
            return self._to_seconds(clock.frame)
        frame = clock.frame + elapsed * self._out_rate
        loop = self._loop
        if loop is not None and loop[0] <= clock.frame <= loop[1]:
            length = loop[1] - loop[0]
            if frame >= loop[1]:
                frame = loop[0] + (frame - loop[0]) % length
            elif frame < loop[0]:
                frame = loop[1] - (loop[0] - frame) % length
        position = float(np.clip(self._to_seconds(frame), 0.0, self.duration_s))
        if loop is None:
            # PortAudio's first blocks are prefilled with early DAC estimates that later blocks
            # correct; never let the playhead step back for that.
            position = max(position, self._floor_s)
            self._floor_s = position
        return position

    def _to_frame(self, seconds: float) -> int:
        if self._audio is None:
            return 0
        frame = round(seconds * self._audio.sample_rate / self._ratio)
        return min(max(frame, 0), self._buffer.shape[0])

    def _to_seconds(self, frame: float) -> float:
        if self._audio is None:
            return 0.0
        return frame * self._ratio / self._audio.sample_rate

    def _loop_frames(self, loop_s: tuple[float, float] | None) -> tuple[int, int] | None:
        if loop_s is None:
            return None
        start = self._to_frame(loop_s[0])
        return start, max(self._to_frame(loop_s[1]), start + 1)

    # -- the audio thread -----------------------------------------------------------------------

    def _callback(self, outdata: np.ndarray, frames: int, time: Any, status: Any) -> None:
        generation, target = self._seek_request
        jumped = generation != self._seek_applied
        if jumped:
            self._seek_applied = generation
            self._frame = target
            self._tail_until = None
        position = self._frame
        loop = self._loop
        if loop is not None and not loop[0] <= position < loop[1]:
            position, jumped = loop[0], True
        dac = float(time.outputBufferDacTime) or float(time.currentTime) + self._latency
        self._clock = _Clock(position, dac, jumped)
        if self._heard_at is None:
            self._heard_at = dac
        buffer, volume, written = self._buffer, self._volume, 0
        while written < frames:
            if loop is not None and position >= loop[1]:
                position = loop[0]
            end = loop[1] if loop is not None else buffer.shape[0]
            count = min(frames - written, end - position)
            if count <= 0:
                outdata[written:] = 0.0
                self._frame = position
                self._end_of_clip(dac, written, float(time.currentTime))
                return
            np.multiply(
                buffer[position : position + count], volume, out=outdata[written : written + count]
            )
            position += count
            written += count
        self._frame = position

    def _end_of_clip(self, dac: float, written: int, now: float) -> None:
        """Keep feeding silence until the clip's last sample has been heard, then stop.

        Stopping at once would let the output discard what it still buffers (ALSA -> PulseAudio
        drops up to the output latency), cutting the end of the call.
        """
        if self._tail_until is None:
            self._tail_until = dac + written / self._out_rate + self._latency
        elif now >= self._tail_until:
            self._finished = True
            raise self._callback_stop

    def _on_finished(self) -> None:
        if self._finished:
            self._rest_s = self.duration_s
