"""A private PulseAudio server with a null sink, for tests that really play sound.

The tests run as root on machines without a sound card. ``running_null_sink`` starts a
PulseAudio of our own (own runtime folder, own socket, no autospawn, nothing global touched),
with a null sink whose monitor source records whatever is played. PortAudio on Debian speaks
ALSA, so ALSA's default PCM is pointed at this server through an extra configuration file
appended to ``ALSA_CONFIG_PATH`` (libasound2-plugins provides the ``pulse`` PCM). The
environment is set for this process while the server runs and restored afterwards; sounddevice,
which caches PortAudio's device list, is re-initialised on both edges.

``record_monitor`` records the monitor with ``parec`` into a WAV while the test plays.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SINK = "bagel_test"
ALSA_BASE = ("/usr/share/alsa/alsa.conf", "/etc/alsa/alsa.conf")
START_TIMEOUT_S = 15.0


def _missing_binaries() -> list[str]:
    return [name for name in ("pulseaudio", "pactl", "parec") if shutil.which(name) is None]


# The server runs under a small shell that kills it when its standard input (a pipe from this
# process) reaches its end: when the fixture closes it, and also when the test run dies without
# tearing down (SIGKILL, a CI timeout), so no server outlives the tests. The shell exits with it.
_WATCHDOG = """
exec 3<&0
"$@" </dev/null &
server=$!
{ read -r _ <&3; kill "$server" 2>/dev/null; } &
wait "$server"
"""


def _server_command(runtime: Path, socket: Path) -> list[str]:
    return [
        "sh",
        "-c",
        _WATCHDOG,
        "sh",
        "pulseaudio",
        "--daemonize=no",
        "--exit-idle-time=-1",
        "-n",
        "--use-pid-file=no",
        "--disallow-module-loading=no",
        "--log-target=stderr",
        "--log-level=error",
        # norewinds: the null sink then renders continuously at low latency, so the monitor
        # records from the first sample instead of losing what a rewind replaced.
        f"--load=module-null-sink sink_name={SINK} norewinds=1",
        f"--load=module-native-protocol-unix auth-anonymous=1 socket={socket}",
    ]


def _wait_until_ready(process: subprocess.Popen[bytes], env: dict[str, str], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"PulseAudio exited at start: {log.read_text(errors='replace')}")
        probe = subprocess.run(["pactl", "info"], env=env, capture_output=True, timeout=10)
        if probe.returncode == 0:
            return
        time.sleep(0.1)
    raise RuntimeError(f"PulseAudio did not start: {log.read_text(errors='replace')}")


def _write_alsa_config(folder: Path, server: str) -> Path:
    config = folder / "asound-bagel-test.conf"
    config.write_text(
        f'pcm.!default {{ type pulse server "{server}" }}\n'
        f'ctl.!default {{ type pulse server "{server}" }}\n'
    )
    return config


def _reinitialise_sounddevice() -> None:
    """PortAudio lists devices once; make an already imported sounddevice look again."""
    sd = sys.modules.get("sounddevice")
    if sd is not None:
        sd._terminate()
        sd._initialize()


@contextmanager
def running_null_sink() -> Iterator[str]:
    """Run a private PulseAudio with a null sink; yield the sink's monitor source name."""
    missing = _missing_binaries()
    if missing:
        pytest.skip(f"PulseAudio tools not installed: {', '.join(missing)}")
    base = next((p for p in ALSA_BASE if Path(p).is_file()), None)
    if base is None:
        pytest.skip("ALSA's configuration (alsa.conf) is not installed")
    folder = Path(tempfile.mkdtemp(prefix="bagel-pulse-"))
    runtime = folder / "runtime"
    runtime.mkdir()
    socket = runtime / "native"
    server = f"unix:{socket}"
    client_conf = folder / "client.conf"
    client_conf.write_text(f"autospawn = no\ncookie-file = {folder / 'cookie'}\n")
    server_env = dict(
        os.environ,
        HOME=str(folder),
        XDG_CONFIG_HOME=str(folder / "config"),
        XDG_RUNTIME_DIR=str(runtime),
        PULSE_RUNTIME_PATH=str(runtime),
        PULSE_STATE_PATH=str(folder / "state"),
    )
    client = {
        "PULSE_SERVER": server,
        "PULSE_CLIENTCONFIG": str(client_conf),
        "PULSE_SINK": SINK,
        "ALSA_CONFIG_PATH": f"{base}:{_write_alsa_config(folder, server)}",
    }
    log = folder / "pulseaudio.log"
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            _server_command(runtime, socket),
            env=server_env,
            stdin=subprocess.PIPE,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    saved = {key: os.environ.get(key) for key in client}
    try:
        _wait_until_ready(process, dict(os.environ, **client), log)
        os.environ.update(client)
        _reinitialise_sounddevice()
        yield f"{SINK}.monitor"
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        _reinitialise_sounddevice()
        _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the server: its watchdog kills it when its input ends; a server that hangs is
    killed with its whole session."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextmanager
def record_monitor(
    monitor: str, path: Path, rate: int = 48000, channels: int = 1
) -> Iterator[Path]:
    """Record ``monitor`` into the WAV ``path`` (float32) for the duration of the block."""
    command = [
        "parec",
        "-d",
        monitor,
        "--file-format=wav",
        f"--rate={rate}",
        f"--channels={channels}",
        "--format=float32le",
        "--latency-msec=20",
        str(path),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for_growth(process, path)
        yield path
        time.sleep(0.3)  # let the sink's last buffers reach the monitor
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def _wait_for_growth(process: subprocess.Popen[bytes], path: Path) -> None:
    """Wait until parec is writing (the WAV exists and grows past its header)."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = process.stderr.read().decode(errors="replace") if process.stderr else ""
            raise RuntimeError(f"parec exited: {error.strip()}")
        if path.exists() and path.stat().st_size > 4096:
            return
        time.sleep(0.02)
    raise RuntimeError("parec wrote nothing for 10 s")
