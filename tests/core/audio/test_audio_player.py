"""Real playback through a private PulseAudio null sink, recorded from its monitor.

What came out of the sink is analysed: its frequency and its length, at normal speed and slowed
down (time expansion: twice as long at 0.5x, half the frequency), looping, volume, pause/seek,
and the resampling path for a rate the device refuses. Waits poll the player; nothing here
asserts on how long anything took.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from bagel_studio.core.audio import DecodedAudio, Player, PlayerUnavailable
from bagel_studio.core.audio.decode import decode
from tests.core.audio import audio_support as sig
from tests.support.pulse import record_monitor

pytestmark = pytest.mark.audio
RATE = 48000  # the monitor is recorded at this rate


def _wait_until_finished(player: Player, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while player.is_playing and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not player.is_playing, "playback did not finish"


def _play_and_record(
    audio: DecodedAudio, monitor: str, folder: Path, speed: float = 1.0, volume: float = 1.0
) -> tuple[np.ndarray, Player]:
    player = Player()
    player.load(audio)
    player.set_speed(speed)
    player.set_volume(volume)
    recording = folder / f"out-{speed}-{volume}.wav"
    with record_monitor(monitor, recording, rate=RATE):
        player.play()
        _wait_until_finished(player)
    samples, rate = sf.read(str(recording), dtype="float32")
    assert rate == RATE
    return samples, player


def _wraps(positions: list[float]) -> int:
    return sum(b < a for a, b in itertools.pairwise(positions))


def _sounding(samples: np.ndarray, threshold: float = 0.05) -> tuple[float, float, np.ndarray]:
    first, last = sig.sounding_span(samples, RATE, threshold)
    return first, last, samples[int(first * RATE) : int(last * RATE)]


@pytest.mark.parametrize(("speed", "length_s", "freq_hz"), [(1.0, 1.0, 1000.0), (0.5, 2.0, 500.0)])
def test_tone_comes_out_at_the_right_pitch_and_length(
    pulse_sink: str, tmp_path: Path, speed: float, length_s: float, freq_hz: float
) -> None:
    audio = decode(sig.write(tmp_path, "tone.wav", sig.tone(1000, 1.0, 44100), 44100))
    samples, player = _play_and_record(audio, pulse_sink, tmp_path, speed)
    _, _, sound = _sounding(samples)
    assert sig.sounding_seconds(samples, RATE) == pytest.approx(length_s, rel=0.04)
    assert sig.dominant_frequency(sound, RATE) == pytest.approx(freq_hz, rel=0.01)
    assert float(np.max(np.abs(sound))) == pytest.approx(0.5, abs=0.06)  # PA resampler ripple
    assert player.position_s() == pytest.approx(1.0)  # source seconds, at any speed
    player.close()


def test_ultrasound_slowed_tenfold_is_heard_a_decade_lower(pulse_sink: str, tmp_path: Path) -> None:
    bat = decode(sig.write(tmp_path, "bat.wav", sig.tone(40000, 0.2, 192000), 192000))
    samples, player = _play_and_record(bat, pulse_sink, tmp_path, speed=0.1)
    _, _, sound = _sounding(samples)
    assert player.speed == pytest.approx(0.1)
    assert sig.sounding_seconds(samples, RATE) == pytest.approx(2.0, rel=0.04)
    assert sig.dominant_frequency(sound, RATE) == pytest.approx(4000, rel=0.01)
    player.close()


def test_a_500_khz_recording_is_slowed_tenfold_too(pulse_sink: str, tmp_path: Path) -> None:
    bat = decode(sig.write(tmp_path, "bat500.wav", sig.tone(60000, 0.2, 500000), 500000))
    samples, player = _play_and_record(bat, pulse_sink, tmp_path, speed=0.1)
    _, _, sound = _sounding(samples)
    assert sig.sounding_seconds(samples, RATE) == pytest.approx(2.0, rel=0.04)
    assert sig.dominant_frequency(sound, RATE) == pytest.approx(6000, rel=0.01)
    assert player.position_s() == pytest.approx(0.2)
    player.close()


def test_rate_the_device_refuses_is_resampled(pulse_sink: str, tmp_path: Path) -> None:
    # 384 kHz at 2x asks for 768 kHz, beyond PulseAudio: the player resamples instead.
    audio = decode(sig.write(tmp_path, "fast.wav", sig.tone(1000, 1.0, 384000), 384000))
    samples, player = _play_and_record(audio, pulse_sink, tmp_path, speed=2.0)
    _, _, sound = _sounding(samples)
    assert sig.sounding_seconds(samples, RATE) == pytest.approx(0.5, rel=0.06)
    assert sig.dominant_frequency(sound, RATE) == pytest.approx(2000, rel=0.01)
    assert player.position_s() == pytest.approx(1.0)
    player.close()


def test_volume_scales_the_output(pulse_sink: str, tmp_path: Path) -> None:
    audio = decode(sig.write(tmp_path, "tone.wav", sig.tone(800, 0.5, 48000), 48000))
    samples, player = _play_and_record(audio, pulse_sink, tmp_path, volume=0.25)
    _, _, sound = _sounding(samples, threshold=0.02)
    assert float(np.max(np.abs(sound))) == pytest.approx(0.125, abs=0.01)
    player.close()


def test_loop_plays_only_the_selection(pulse_sink: str, tmp_path: Path) -> None:
    rate = 48000
    two_notes = np.concatenate([sig.tone(600, 0.5, rate), sig.tone(1500, 0.5, rate)])
    audio = decode(sig.write(tmp_path, "two.wav", two_notes, rate))
    player = Player()
    player.load(audio)
    player.set_loop(0.5, 1.0)
    assert player.position_s() == pytest.approx(0.5)  # moved into the selection
    positions = []
    recording = tmp_path / "loop.wav"
    with record_monitor(pulse_sink, recording, rate=RATE):
        player.play()
        deadline = time.monotonic() + 60
        while _wraps(positions) < 3 and time.monotonic() < deadline:  # 1.5 s heard at least
            positions.append(player.position_s())
            time.sleep(0.03)
        assert player.is_playing  # a loop never ends by itself
        player.stop()
    assert not player.is_playing and player.position_s() == pytest.approx(0.5)
    assert all(0.5 <= p <= 1.0 for p in positions)
    assert _wraps(positions) >= 3
    samples, _ = sf.read(str(recording), dtype="float32")
    _, _, sound = _sounding(samples)
    assert sig.sounding_seconds(samples, RATE) > 1.0  # longer than the selection: it looped
    assert sig.dominant_frequency(sound, RATE) == pytest.approx(1500, rel=0.01)
    spectrum = np.abs(np.fft.rfft(sound * np.hanning(sound.size)))
    freqs = np.fft.rfftfreq(sound.size, 1 / RATE)
    at_600 = spectrum[np.abs(freqs - 600) < 20].max()
    assert at_600 < 0.01 * spectrum.max()  # the unselected note never sounded
    player.close()


def test_pause_seek_and_resume(pulse_sink: str, tmp_path: Path) -> None:
    # 5 s: a test thread that a busy machine stalls for seconds still pauses before the end
    audio = decode(sig.write(tmp_path, "tone.wav", sig.tone(700, 5.0, 44100), 44100))
    player = Player()
    player.load(audio)
    player.play()
    while player.position_s() < 0.2:
        time.sleep(0.01)
    player.pause()
    paused = player.position_s()
    assert not player.is_playing and 0.2 <= paused < 5.0
    time.sleep(0.1)
    assert player.position_s() == paused  # the clock stands still while paused
    player.seek(4.7)
    assert player.position_s() == pytest.approx(4.7)
    player.play()
    assert player.is_playing
    seen = [player.position_s()]
    _wait_until_finished(player)
    assert seen[0] >= 4.7 - 1e-6
    assert player.position_s() == pytest.approx(5.0)
    timing = player.start_timing()
    assert timing.latency_s is not None and timing.latency_s >= 0
    player.play()  # from the end: starts again at the beginning
    assert player.is_playing and player.position_s() < 2.5
    player.close()
    assert not player.is_playing


def test_position_follows_the_stream_clock(pulse_sink: str, tmp_path: Path) -> None:
    # 2 s read every 20 ms: enough readings even when a busy machine wakes this thread late
    audio = decode(sig.write(tmp_path, "tone.wav", sig.tone(500, 2.0, 22050), 22050))
    player = Player()
    player.load(audio)
    player.play()
    readings = []
    while player.is_playing:
        readings.append(player.position_s())
        time.sleep(0.02)
    assert len(readings) > 5
    assert all(b >= a for a, b in itertools.pairwise(readings))  # monotonic
    assert readings[0] >= 0.0 and readings[-1] <= 2.0
    player.close()


def test_available_names_the_device(pulse_sink: str) -> None:
    ok, name = Player.available()
    assert ok and name


def test_unusable_device_says_why(pulse_sink: str, tmp_path: Path) -> None:
    audio = decode(sig.write(tmp_path, "tone.wav", sig.tone(500, 0.2, 16000), 16000))
    player = Player(device=9999)
    player.load(audio)  # loading still works: the desk shows the clip
    assert player.unavailable_reason is not None
    with pytest.raises(PlayerUnavailable, match="no audio output device"):
        player.play()
    assert not player.is_playing and player.position_s() == 0.0
    player.close()


def test_nothing_loaded() -> None:
    with pytest.raises(PlayerUnavailable, match="no clip loaded"):
        Player().play()
    assert Player().duration_s == 0.0
