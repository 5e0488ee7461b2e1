"""Decoding: every libsndfile format, any rate and channel count, and clear errors."""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from bagel_studio.core.audio import AudioError
from bagel_studio.core.audio.decode import decode
from tests.core.audio import audio_support as sig

decode_module = importlib.import_module("bagel_studio.core.audio.decode")  # not the function


def test_real_clips_decode_with_their_metadata(data_dir: Path) -> None:
    folder = data_dir / "xeno_canto"
    with (folder / "recordings.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 9
    for row in rows:
        audio = decode(folder / row["file-name"])
        assert audio.format == "MP3"
        assert audio.sample_rate == int(row["sample_rate"])
        assert audio.channels == int(row["channels"])
        assert audio.samples.shape == (round(audio.duration_s * audio.sample_rate), audio.channels)
        assert audio.duration_s == pytest.approx(float(row["length_s"]), abs=0.05)
        assert audio.sha256 == row["sha256"]
        assert audio.samples.dtype == np.float32
        assert 0.1 < audio.peak < 1.0 and not audio.clipped
        assert audio.mono().shape == (audio.samples.shape[0],)


def test_ctrl_c_while_the_decoder_reads_is_answered_when_it_returns(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libsndfile reads the bytes through Python callbacks, where cffi dropped the
    KeyboardInterrupt (the Ctrl+C was lost and the clip read short): it is raised once the
    decoder has returned."""
    clip = data_dir / "xeno_canto" / "XC625750.mp3"
    reads: list[int] = []

    class CtrlCAtTheFirstRead(io.BytesIO):
        def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
            if not reads:
                signal.raise_signal(signal.SIGINT)  # what Ctrl+C in the terminal sends
            reads.append(len(buffer))
            return super().readinto(buffer)

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.setattr(decode_module, "io", SimpleNamespace(BytesIO=CtrlCAtTheFirstRead))
    with pytest.raises(KeyboardInterrupt):
        decode(clip)
    assert len(reads) > 1  # the decoder read on, then the interrupt came
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.undo()
    assert decode(clip).channels == 2


def test_ogg_humpback_song(data_dir: Path) -> None:
    audio = decode(data_dir / "marine_mammal" / "glacier-bay-humpback.ogg")
    assert (audio.format, audio.sample_rate, audio.channels) == ("OGG", 22050, 1)
    assert audio.duration_s == pytest.approx(64.8, abs=0.1)


@pytest.mark.parametrize(
    ("name", "rate", "subtype", "fmt"),
    [
        ("a.wav", 8000, "PCM_16", "WAV"),
        ("b.wav", 96000, "PCM_24", "WAV"),
        ("c.flac", 44100, "PCM_16", "FLAC"),
        ("d.ogg", 48000, "VORBIS", "OGG"),
        ("e.wav", 384000, "FLOAT", "WAV"),
        ("f.wav", 500000, "PCM_16", "WAV"),
        ("g.flac", 500000, "PCM_16", "FLAC"),
        ("h.wav", 1000000, "PCM_16", "WAV"),
    ],
)
def test_formats_and_rates(tmp_path: Path, name: str, rate: int, subtype: str, fmt: str) -> None:
    path = sig.write(tmp_path, name, sig.tone(1000, 0.5, rate), rate, subtype=subtype)
    audio = decode(path)
    assert (audio.format, audio.sample_rate, audio.channels) == (fmt, rate, 1)
    assert audio.duration_s == pytest.approx(0.5, abs=0.01)
    assert audio.peak == pytest.approx(0.5, abs=0.05)  # Vorbis overshoots a little
    assert sig.dominant_frequency(audio.mono(), rate) == pytest.approx(1000, rel=0.01)
    assert audio.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_rates_beyond_1_mhz_are_refused(tmp_path: Path) -> None:
    path = sig.write(tmp_path, "fast.wav", sig.tone(1000, 0.01, 1_200_000), 1_200_000)
    with pytest.raises(
        AudioError, match=r"fast.wav: unsupported sample rate 1200000 Hz \(up to 1 MHz"
    ):
        decode(path)


def test_six_channels_mix_to_mono(tmp_path: Path) -> None:
    rate = 48000
    channels = np.stack([sig.tone(500 * (c + 1), 0.4, rate, 0.1) for c in range(6)], axis=1)
    audio = decode(sig.write(tmp_path, "surround.wav", channels, rate))
    assert audio.channels == 6 and audio.samples.shape == (19200, 6)
    assert np.allclose(audio.mono(), channels.mean(axis=1), atol=1e-4)


def test_overshoot_is_reported_then_clipped(tmp_path: Path) -> None:
    rate = 44100
    loud = 1.5 * sig.tone(440, 0.3, rate, 1.0)
    audio = decode(sig.write(tmp_path, "hot.wav", loud, rate, subtype="FLOAT"))
    assert audio.peak == pytest.approx(1.5, abs=0.01)
    assert audio.clipped
    assert float(np.max(np.abs(audio.samples))) == 1.0


def test_full_scale_pcm_counts_as_clipped(tmp_path: Path) -> None:
    square = np.sign(sig.tone(200, 0.2, 16000, 1.0)).astype(np.float32)
    audio = decode(sig.write(tmp_path, "square.wav", square, 16000, subtype="PCM_16"))
    assert audio.clipped and audio.peak >= 0.9999
    quiet = decode(sig.write(tmp_path, "quiet.wav", 0.5 * square, 16000, subtype="PCM_16"))
    assert not quiet.clipped


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match=r"^XC1\.mp3: no such file$"):
        decode(tmp_path / "XC1.mp3")


def test_zero_byte_file(tmp_path: Path) -> None:
    (tmp_path / "empty.wav").write_bytes(b"")
    with pytest.raises(AudioError, match=r"empty\.wav: empty file"):
        decode(tmp_path / "empty.wav")


def test_random_bytes_named_mp3(tmp_path: Path) -> None:
    path = tmp_path / "XC1.mp3"
    path.write_bytes(np.random.default_rng(3).bytes(20000))
    with pytest.raises(AudioError) as info:
        decode(path)
    message = str(info.value)
    assert message.startswith("XC1.mp3: truncated or corrupt MP3 (")
    assert "\n" not in message and "BytesIO" not in message


def test_truncated_wav(tmp_path: Path) -> None:
    full = sig.write(tmp_path, "full.wav", sig.tone(1000, 1.0, 16000), 16000)
    cut = tmp_path / "cut.wav"
    cut.write_bytes(full.read_bytes()[: 44 + 8000])
    with pytest.raises(AudioError, match=r"cut\.wav: truncated or corrupt WAV \(decoded 0\.25 s"):
        decode(cut)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_truncated_real_mp3(data_dir: Path, tmp_path: Path) -> None:
    data = (data_dir / "xeno_canto" / "XC625750.mp3").read_bytes()
    for size in (60, 3000, len(data) // 2):
        cut = tmp_path / "XC625750.mp3"
        cut.write_bytes(data[:size])
        with pytest.raises(AudioError, match=r"^XC625750\.mp3: truncated or corrupt MP3"):
            decode(cut)


def test_decoding_keeps_the_decoders_messages_off_stderr(
    data_dir: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # mpg123 prints "Warning: Xing stream size off..." on descriptor 2 for a cut MP3; decoding
    # in several threads at once silences it too, and gives descriptor 2 back afterwards.
    data = (data_dir / "xeno_canto" / "XC625750.mp3").read_bytes()
    cut = tmp_path / "XC625750.mp3"
    cut.write_bytes(data[: len(data) // 2])
    whole = data_dir / "xeno_canto" / "XC625750.mp3"

    def attempt(path: Path) -> str:
        try:
            return decode(path).format
        except AudioError as exc:
            return str(exc)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(attempt, [cut, whole] * 8))
    assert results[1::2] == ["MP3"] * 8
    assert all(r.startswith("XC625750.mp3: truncated or corrupt MP3") for r in results[::2])
    os.write(2, b"still stderr\n")
    assert capfd.readouterr().err == "still stderr\n"


def test_another_threads_stderr_arrives_while_a_file_decodes(
    data_dir: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the decoder's own messages are held back: a line another thread writes to
    descriptor 2, or to ``sys.stderr``, while a file is being decoded reaches it."""
    data = (data_dir / "xeno_canto" / "XC625750.mp3").read_bytes()
    cut = tmp_path / "XC625750.mp3"
    cut.write_bytes(data[: len(data) // 2])  # mpg123 warns "Xing stream size off" on opening it
    inside = decode_module._declared_by_data_chunk  # called with the file open, mid-decode

    def other_thread_writes(info: str, frames: int) -> int:
        def write() -> None:
            os.write(2, b"from another thread\n")
            print("and through sys.stderr", file=sys.stderr, flush=True)

        writer = threading.Thread(target=write)
        writer.start()
        writer.join()
        return inside(info, frames)

    monkeypatch.setattr(decode_module, "_declared_by_data_chunk", other_thread_writes)
    with pytest.raises(AudioError, match="truncated or corrupt MP3"):
        decode(cut)
    assert capfd.readouterr().err == "from another thread\nand through sys.stderr\n"


def test_header_only_wav_has_no_audio(tmp_path: Path) -> None:
    path = sig.write(tmp_path, "silent.wav", np.zeros(0, dtype=np.float32), 16000)
    with pytest.raises(AudioError, match="holds no audio"):
        decode(path)


def test_folder_is_not_audio(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match="is a folder"):
        decode(tmp_path)


def test_decoding_only_the_start_keeps_the_whole_files_facts(
    data_dir: Path, tmp_path: Path
) -> None:
    """``decode(path, max_seconds)`` (what the analysis reads) holds only the start in memory but
    reports the whole file's duration, peak and clipping, and the same samples and mono mix."""
    for clip in ("XC132865", "XC625750"):  # 48 kHz mono, 44.1 kHz stereo
        path = data_dir / "xeno_canto" / f"{clip}.mp3"
        whole, start = decode(path), decode(path, 1.5)
        head = round(1.5 * whole.sample_rate)
        assert start.samples.shape == (head, whole.channels)
        np.testing.assert_array_equal(start.samples, whole.samples[:head])
        np.testing.assert_array_equal(start.mono(), whole.mono()[:head])
        np.testing.assert_array_equal(whole.mono(head), whole.mono()[:head])
        assert (start.duration_s, start.peak, start.clipped, start.sha256) == (
            whole.duration_s,
            whole.peak,
            whole.clipped,
            whole.sha256,
        )
    rate = 16000
    late_overshoot = np.concatenate([sig.tone(440, 2.0, rate, 0.2), sig.tone(440, 12.0, rate, 1.5)])
    path = sig.write(tmp_path, "late.wav", late_overshoot, rate, subtype="FLOAT")
    start = decode(path, 1.0)  # the overshoot lies in the second block after the start
    assert start.samples.shape == (rate, 1) and start.duration_s == pytest.approx(14.0)
    assert start.peak == pytest.approx(1.5, abs=0.01) and start.clipped
    assert float(np.max(np.abs(start.samples))) == pytest.approx(0.2, abs=0.01)


def test_a_file_shorter_than_its_header_says_is_read_to_its_last_decoded_frame(
    data_dir: Path, tmp_path: Path
) -> None:
    """An MP3 whose header announces a few frames more than it holds (within the slack allowed
    for MP3 estimates) gives the same duration and peak whether read whole or from its start:
    the frames past what was decoded are not counted, nor read from memory never written."""
    data = (data_dir / "xeno_canto" / "XC625750.mp3").read_bytes()
    cut = tmp_path / "XC625750.mp3"
    cut.write_bytes(data[:-1500])  # 4,201 frames fewer than the 264,600 its Xing tag announces
    whole = decode(cut)
    assert whole.samples.shape[0] == 260_399
    for seconds in (1.5, 5.0, 30.0):
        start = decode(cut, seconds)
        assert (start.duration_s, start.peak, start.clipped) == (
            whole.duration_s,
            whole.peak,
            whole.clipped,
        )
