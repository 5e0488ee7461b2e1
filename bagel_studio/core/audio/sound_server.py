"""Finding or starting a sound server, and saying in words what is missing when there is none.

On a Debian machine set up by ``packaging/setup.sh`` PulseAudio is installed but nothing starts
it, and ALSA's default device goes through PulseAudio; PortAudio then finds no output and says
"Error querying device -1". ``ensure_sound_server`` starts a PulseAudio for the current user
(``pulseaudio --start``, with a null sink when the machine has no sound card) when none is running
and one may be started, and otherwise returns a sentence that says what is missing and how to get
it. ``BAGEL_STUDIO_NO_SOUND_SERVER=1`` forbids starting one. No Qt here: the listening panel calls
it from a worker.

A server started here does not outlive the application: it exits once it has had no client for
``EXIT_IDLE_S`` seconds (``BAGEL_STUDIO_SOUND_SERVER_IDLE_S`` changes that). The player's open
stream is a client, so it stays up while a clip is loaded and ends after the application quits or
dies; when it has gone idle before a clip was loaded, the player starts it again
(``restart_if_gone``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass

NO_START_ENV = "BAGEL_STUDIO_NO_SOUND_SERVER"
IDLE_ENV = "BAGEL_STUDIO_SOUND_SERVER_IDLE_S"
EXIT_IDLE_S = 20  # PulseAudio's own default for a server started on demand
START_TIMEOUT_S = 10.0
NULL_SINK = "bagel_null"
INSTALL_HINT = "install PulseAudio (Debian: apt-get install pulseaudio libasound2-plugins)"


@dataclass(frozen=True)
class SoundServer:
    """Whether a sound server answers now, whether we started it, and what to tell the user."""

    running: bool
    started: bool
    message: str


_started_with: dict[str, str] | None = None  # the environment of the last server started here


def _answers(env: Mapping[str, str]) -> bool:
    if shutil.which("pactl", path=env.get("PATH")) is None:
        return False
    try:
        probe = subprocess.run(
            ["pactl", "info"], env=dict(env), capture_output=True, timeout=START_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def ensure_sound_server(env: Mapping[str, str] | None = None) -> SoundServer:
    """Find a running PulseAudio, or start one for this user where allowed; say what happened."""
    global _started_with
    env = dict(os.environ if env is None else env)
    if env.get(NO_START_ENV, "") not in ("", "0"):  # not even a probe: pactl may autospawn
        return SoundServer(
            False,
            False,
            f"starting a sound server is switched off ({NO_START_ENV}); start one with "
            "'pulseaudio --start' or connect a sound card",
        )
    if _answers(env):
        return SoundServer(True, False, "a PulseAudio sound server is running")
    if shutil.which("pulseaudio", path=env.get("PATH")) is None:
        return SoundServer(
            False,
            False,
            "no sound server is running and PulseAudio is not installed: "
            + INSTALL_HINT
            + ", or connect a sound card",
        )
    try:
        started = subprocess.run(
            ["pulseaudio", "--start", f"--exit-idle-time={_exit_idle_s(env)}"],
            env=env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return SoundServer(False, False, f"could not start PulseAudio ({exc}): {INSTALL_HINT}")
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if _answers(env):
            _low_latency_null_sink(env)
            _started_with = env
            return SoundServer(True, True, "started a PulseAudio sound server for this user")
        time.sleep(0.1)
    why = (started.stderr or started.stdout or "").strip().splitlines()
    detail = f" ({why[-1]})" if why else ""
    return SoundServer(
        False,
        False,
        f"no sound server is running and 'pulseaudio --start' did not start one{detail}: run it "
        "yourself to see why, or connect a sound card",
    )


def restart_if_gone() -> bool:
    """Start the server this process started before again if it has exited since (idle);
    True if it did. Never starts one where none was started, so a machine without sound is
    not probed again at every clip."""
    if _started_with is None or _answers(_started_with):
        return False
    return ensure_sound_server(_started_with).started


def _exit_idle_s(env: Mapping[str, str]) -> int:
    try:
        return max(1, int(env.get(IDLE_ENV, "")))
    except ValueError:
        return EXIT_IDLE_S


def _pactl(env: Mapping[str, str], *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["pactl", *args], env=dict(env), capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _low_latency_null_sink(env: Mapping[str, str]) -> None:
    """Without a sound card PulseAudio plays to its stand-in null sink, which buffers for over a
    second (rewinds): sound would lag the playhead by that much, a delay PortAudio does not see.
    A null sink without rewinds renders at once, so what PortAudio reports is what is heard."""
    if _pactl(env, "get-default-sink") != "auto_null":
        return  # a real output (or someone's choice): leave it alone
    loaded = _pactl(
        env,
        "load-module",
        "module-null-sink",
        f"sink_name={NULL_SINK}",
        "norewinds=1",
        "sink_properties=device.description=BAGEL-Studio-null-output",
    )
    if loaded is not None:
        _pactl(env, "set-default-sink", NULL_SINK)


def explain_no_device(portaudio_error: str, server: SoundServer | None = None) -> str:
    """PortAudio's error ("Error querying device -1") put in words, with the sound server's
    state when it was looked for."""
    if "-1" in portaudio_error or "querying device" in portaudio_error.lower():
        what = "neither a sound card nor a sound server to play to was found"
    else:
        what = portaudio_error
    return f"no audio output device: {what}" + (f"; {server.message}" if server else "")
