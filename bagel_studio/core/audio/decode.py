"""Decoding audio files into float samples, with the facts a curator needs about them.

Everything libsndfile reads is accepted (WAV, FLAC, OGG/Vorbis, MP3, AIFF, ...), at any sample
rate up to 1 MHz (bat recorders reach 500 kHz) and any channel count. The file is read once:
its bytes give the SHA-256 used as the cache key of measurements and spectrograms, and are
decoded from memory. MP3 decoders overshoot full scale
on loud recordings, so the true peak is reported before the samples are clipped to [-1, 1] for
playback. For analysis, which reads only a clip's first seconds, ``decode(path, max_seconds)``
keeps only those samples in memory and streams through the rest for the peak and the length.
Every way a file can fail (missing, empty, truncated, not audio) becomes an
``AudioError`` with one line fit to show a curator, never a library traceback, and never the
decoder's own chatter: libsndfile's MP3 decoder (mpg123) prints warnings such as "Xing stream
size off by more than 1%" to C's ``stderr`` stream, so that stream (not descriptor 2, which other
threads keep writing to) points at the null device while a file decodes.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import os
import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import FrameType

import numpy as np
import soundfile as sf

# A sample at or beyond this magnitude has reached full scale (one 16-bit step below 1.0, so a
# 16-bit file driven to +32767 counts as clipped).
CLIP_LEVEL = 32766.0 / 32768.0
MAX_SAMPLE_RATE = 1_000_000  # bat recorders reach 500 kHz, a few 1 MHz
# MP3 frame counts in headers are estimates (encoder delay, padding); allow this much shortfall
# before calling a file truncated.
_MP3_SLACK_FRAMES = 4 * 1152


class AudioError(Exception):
    """A file that cannot be decoded; ``str()`` is one line naming the file and the cause."""


@dataclass(frozen=True)
class DecodedAudio:
    """A decoded file: samples ready to play, and what decoding learned about them."""

    samples: np.ndarray  # float32, (frames, channels), clipped to [-1, 1] (see ``decode``)
    sample_rate: int
    channels: int
    duration_s: float  # the whole file's, also when ``samples`` holds only its start
    peak: float  # max |x| before clipping, over the whole file
    clipped: bool
    path: str
    sha256: str
    format: str

    def mono(self, frames: int | None = None) -> np.ndarray:
        """The channels (of the first ``frames`` frames, or all) averaged to one float32 signal
        (analysis works on mono)."""
        samples = self.samples if frames is None else self.samples[:frames]
        if self.channels == 1:
            return np.ascontiguousarray(samples[:, 0])
        if self.channels == 2:  # the same float32 numbers as mean(axis=1), without its strides
            return np.asarray((samples[:, 0] + samples[:, 1]) * np.float32(0.5), dtype=np.float32)
        return np.asarray(samples.mean(axis=1, dtype=np.float32), dtype=np.float32)

    @property
    def name(self) -> str:
        return Path(self.path).name


def decode(path: str | Path, max_seconds: float | None = None) -> DecodedAudio:
    """Read and decode ``path``; raise AudioError with a one-line reason when that fails.

    With ``max_seconds``, ``samples`` holds only the file's first ``max_seconds`` (what the
    analysis reads); the rest is decoded block by block for the peak, the clipping and the
    duration, which describe the whole file either way, so a ten-minute recording costs no more
    memory than its first seconds.
    """
    file = Path(path)
    name = file.name or str(path)
    data = _read_bytes(file, name)
    sha256 = hashlib.sha256(data).hexdigest()
    samples, sample_rate, fmt, frames, rest_peak = _decode_bytes(
        data, name, file.suffix.lower(), max_seconds
    )
    samples = np.nan_to_num(samples, copy=False, nan=0.0, posinf=1.0, neginf=-1.0)
    peak = max(float(np.max(np.abs(samples))) if samples.size else 0.0, rest_peak)
    clipped = peak >= CLIP_LEVEL
    if peak > 1.0:
        np.clip(samples, -1.0, 1.0, out=samples)
    channels = samples.shape[1]
    return DecodedAudio(
        samples=samples,
        sample_rate=sample_rate,
        channels=channels,
        duration_s=frames / sample_rate,
        peak=peak,
        clipped=clipped,
        path=str(file),
        sha256=sha256,
        format=fmt,
    )


def _read_bytes(file: Path, name: str) -> bytes:
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise AudioError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise AudioError(f"{name}: is a folder, not an audio file") from None
    except OSError as exc:
        raise AudioError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise AudioError(f"{name}: empty file (0 bytes)")
    return data


def _decode_bytes(
    data: bytes, name: str, suffix: str, max_seconds: float | None = None
) -> tuple[np.ndarray, int, str, int, float]:
    """Decode from memory; return (samples (frames, channels) float32, rate, format name, frames
    in the file, peak of the frames past ``max_seconds`` that ``samples`` leaves out)."""
    kind = _kind(suffix)
    rest_frames, rest_peak = 0, 0.0
    try:
        with _ctrl_c_after_decoding(), _quiet_decoder(), sf.SoundFile(io.BytesIO(data)) as handle:
            fmt = str(handle.format)
            rate = int(handle.samplerate)
            declared = int(handle.frames)
            if rate <= 0 or rate > MAX_SAMPLE_RATE:
                raise AudioError(
                    f"{name}: unsupported sample rate {rate} Hz "
                    f"(up to {MAX_SAMPLE_RATE / 1e6:g} MHz is supported)"
                )
            if max_seconds is None:
                samples = handle.read(dtype="float32", always_2d=True)
            else:
                samples = handle.read(int(max_seconds * rate), dtype="float32", always_2d=True)
                rest_frames, rest_peak = _scan_rest(handle, rate)
            declared = max(declared, _declared_by_data_chunk(str(handle.extra_info), declared))
    except AudioError:
        raise
    except (sf.LibsndfileError, RuntimeError, ValueError, TypeError, MemoryError) as exc:
        raise AudioError(f"{name}: {_corrupt(kind)} ({_libsndfile_reason(exc)})") from None
    frames = samples.shape[0] + rest_frames
    if frames == 0:
        raise AudioError(f"{name}: {kind} file holds no audio (0 frames)")
    slack = _MP3_SLACK_FRAMES + declared // 100 if fmt == "MP3" else 0
    if frames + slack < declared:
        raise AudioError(
            f"{name}: {_corrupt(kind)} (decoded {frames / rate:.2f} s of the "
            f"{declared / rate:.2f} s its header announces)"
        )
    return np.ascontiguousarray(samples), rate, fmt, frames, rest_peak


def _scan_rest(handle: sf.SoundFile, rate: int) -> tuple[int, float]:
    """(frames, peak) of what is left to read in ``handle``, ten seconds at a time.

    Not ``handle.blocks()``: it yields each block at the length the header announced, so when a
    file holds fewer frames than that (MP3 headers estimate), its last block ends in memory
    nothing was decoded into, whose values (up to 1e38) became the peak at random."""
    frames, peak = 0, 0.0
    while True:
        block = handle.read(10 * rate, dtype="float32", always_2d=True)  # what was decoded
        if not block.shape[0]:
            return frames, peak
        np.nan_to_num(block, copy=False, nan=0.0, posinf=1.0, neginf=-1.0)
        peak = max(peak, float(np.max(np.abs(block))))
        frames += block.shape[0]


@cache
def _c_stderr() -> tuple[ctypes.c_void_p, int] | None:
    """The C library's ``stderr`` stream variable, and a stream on the null device to point it
    at; None where it cannot be reached or is read-only (musl), and then the decoder's messages
    are not held back."""
    try:
        glibc = sys.platform.startswith("linux") and bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError):
        glibc = False
    if sys.platform != "darwin" and not glibc:
        return None
    name = "__stderrp" if sys.platform == "darwin" else "stderr"
    try:
        libc = ctypes.CDLL(None)
        libc.fopen.restype = ctypes.c_void_p
        libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        variable = ctypes.c_void_p.in_dll(libc, name)
    except (OSError, AttributeError, ValueError):
        return None
    null = libc.fopen(os.devnull.encode(), b"w")  # never closed: see _quiet_decoder
    return (variable, null) if null and variable.value else None


@contextmanager
def _ctrl_c_after_decoding() -> Iterator[None]:
    """libsndfile reads the bytes through Python callbacks (cffi), and cffi prints and drops an
    exception raised in one: a Ctrl+C that came while a callback ran was lost, and the clip read
    short (then reported truncated or unreadable). While the decoder runs, SIGINT is only
    noted; it is answered as before once the decoder has returned. Only the main thread runs
    Python's signal handlers (and may set them); a signal ignored or left to the system's
    default is left so."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    answer = signal.getsignal(signal.SIGINT)
    if not callable(answer):
        yield
        return
    arrived: list[FrameType | None] = []
    signal.signal(signal.SIGINT, lambda _signal, frame: arrived.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, answer)
        if arrived:
            answer(signal.SIGINT, arrived[0])


_quiet_lock = threading.Lock()
_quiet_users = 0  # decodes under way, in any thread
_saved_stream: int | None = None  # C's own stderr stream while they run


@contextmanager
def _quiet_decoder() -> Iterator[None]:
    """C's ``stderr`` stream on the null device while the block runs, so the messages the MP3
    decoder prints to it (``fprintf(stderr, ...)``) are dropped. Descriptor 2 is left alone:
    whatever another thread writes there meanwhile (Python's ``sys.stderr``, logging, a crash
    report) arrives. Threads decoding at once share one swap: the first in makes it, the last out
    undoes it. The null stream is never closed, as another thread may still hold it."""
    global _quiet_users, _saved_stream
    found = _c_stderr()
    if found is None:
        yield
        return
    variable, null = found
    with _quiet_lock:
        if _quiet_users == 0:
            _saved_stream, variable.value = variable.value, null
        _quiet_users += 1
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet_users -= 1
            if _quiet_users == 0:
                variable.value = _saved_stream
                _saved_stream = None


quiet_c_stderr = _quiet_decoder  # the same for other C libraries' chatter (LiteRT: audio.birdnet)


def _after_fork_in_child() -> None:
    """A process forked while another thread decoded gets C's stderr back (and a free lock)."""
    global _quiet_lock, _quiet_users, _saved_stream
    _quiet_lock = threading.Lock()
    if _quiet_users and _saved_stream is not None and (found := _c_stderr()) is not None:
        found[0].value = _saved_stream
    _quiet_users, _saved_stream = 0, None


os.register_at_fork(after_in_child=_after_fork_in_child)


def _declared_by_data_chunk(info: str, frames: int) -> int:
    """Frames a WAV/AIFF header announced, when libsndfile shortened the data chunk to what the
    file holds (its log says "data : 32000 (should be 8000)"); else ``frames``."""
    found = re.search(r"^\s*(?:data|SSND)\s*:\s*(\d+)\s*\(should be (\d+)\)", info, re.M)
    if found is None:
        return frames
    announced, present = int(found.group(1)), int(found.group(2))
    if present <= 0 or announced <= present or announced >= 0xFFFFFFF0:  # streaming placeholder
        return frames
    return int(frames * announced / present)


def _kind(suffix: str) -> str:
    known = {
        ".mp3": "MP3",
        ".wav": "WAV",
        ".flac": "FLAC",
        ".ogg": "OGG",
        ".oga": "OGG",
        ".aif": "AIFF",
        ".aiff": "AIFF",
    }
    return known.get(suffix, "audio")


def _corrupt(kind: str) -> str:
    return f"truncated or corrupt {kind}" if kind != "audio" else "not a readable audio file"


def _libsndfile_reason(exc: BaseException) -> str:
    """libsndfile's reason without the "Error opening <_io.BytesIO ...>:" prefix."""
    text = str(exc).strip() or type(exc).__name__
    text = re.sub(r"^Error opening <[^>]*>:\s*", "", text)
    if "is not a regular file" in text:
        return "too short to hold an audio header"
    return text.splitlines()[0].rstrip(".")
