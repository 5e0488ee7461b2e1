"""Sound out of the box: a PulseAudio is started for the user when none runs (into a private
runtime folder here, so nothing global is touched), with a null sink whose latency PortAudio sees;
it ends once idle (after the application has quit) and is started again when a clip needs it;
and when none can be started, the reason is said in words."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core.audio.sound_server import (
    IDLE_ENV,
    NO_START_ENV,
    NULL_SINK,
    SoundServer,
    ensure_sound_server,
    explain_no_device,
)
from tests.core.audio import audio_support as sig

ROOT = Path(__file__).resolve().parents[3]

MEASURE = """
import subprocess, time
import sounddevice as sd
offsets = []
def callback(out, frames, t, status):
    out[:] = 0
    offsets.append(t.outputBufferDacTime - t.currentTime)
stream = sd.OutputStream(samplerate=44100, channels=1, callback=callback, latency=0.06)
stream.start(); time.sleep(1.0)
sink = subprocess.run(["pactl", "list", "sink-inputs"], capture_output=True, text=True).stdout
stream.stop(); stream.close()
lines = [l.split(":")[1].split()[0] for l in sink.splitlines() if "Sink Latency" in l]
print(stream.latency, sorted(offsets)[len(offsets) // 2], int(lines[0]) / 1e6)
"""


def private_env(folder: Path) -> dict[str, str]:
    runtime = folder / "runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULSE_", "ALSA_"))}
    env.pop(NO_START_ENV, None)
    env.update(
        HOME=str(folder),
        XDG_RUNTIME_DIR=str(runtime),
        XDG_CONFIG_HOME=str(folder / "config"),
        PULSE_RUNTIME_PATH=str(runtime / "pulse"),
        PULSE_STATE_PATH=str(folder / "state"),
    )
    return env


@pytest.mark.slow
def test_a_user_server_is_started_with_a_sink_whose_delay_portaudio_sees(tmp_path: Path) -> None:
    if shutil.which("pulseaudio") is None or shutil.which("pactl") is None:
        pytest.skip("PulseAudio is not installed")
    env = private_env(tmp_path)
    try:
        first = ensure_sound_server(env)
        assert first == SoundServer(True, True, "started a PulseAudio sound server for this user")
        again = ensure_sound_server(env)
        assert again.running and not again.started  # found, not started twice
        default = subprocess.run(
            ["pactl", "get-default-sink"], env=env, capture_output=True, text=True, check=True
        )
        assert default.stdout.strip() == NULL_SINK
        measured = subprocess.run(
            [sys.executable, "-c", MEASURE], env=env, capture_output=True, text=True, timeout=60
        )
        assert measured.returncode == 0, measured.stderr
        reported, dac_offset, sink_delay = map(float, measured.stdout.split())
        # What PortAudio reports is what is heard: the sink adds almost nothing to it (the
        # stand-in null sink added ~370 ms here, over a second on busy machines).
        assert sink_delay < 0.05
        assert abs(dac_offset - reported) < 0.03
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)


IDLE_THEN_AGAIN = """
import json, os, sys, time
from pathlib import Path
from bagel_studio.core.audio import Player
from bagel_studio.core.audio.decode import decode

def server_pid():
    return int((Path(os.environ["PULSE_RUNTIME_PATH"]) / "pid").read_text())

def running(pid):
    return Path(f"/proc/{pid}").exists()

def wait_gone(pid):
    deadline = time.monotonic() + 60
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not running(pid)

report = {"available": Player.available()}
first = server_pid()
player = Player()
player.load(decode(sys.argv[1]))
time.sleep(3 * float(os.environ["IDLE"]))  # the open stream is a client: the server stays
report["kept_while_a_clip_is_loaded"] = running(first)
player.close()
report["gone_once_idle"] = wait_gone(first)
again = Player()
again.load(decode(sys.argv[1]))  # the clip needs the server: started again
report["reason"] = again.unavailable_reason
second = server_pid()
report["restarted"] = second != first and running(second)
again.play()
deadline = time.monotonic() + 60
while again.is_playing and time.monotonic() < deadline:
    time.sleep(0.02)
report["played_to_the_end"] = (again.is_playing, again.position_s())
again.close()
report["gone_after_quitting"] = wait_gone(second)
print(json.dumps(report))
"""


@pytest.mark.slow
def test_a_server_started_here_ends_once_idle_and_starts_again_for_a_clip(
    tmp_path: Path,
) -> None:
    if shutil.which("pulseaudio") is None or shutil.which("pactl") is None:
        pytest.skip("PulseAudio is not installed")
    env = private_env(tmp_path)
    env[IDLE_ENV] = env["IDLE"] = "1"
    clip = sig.write(tmp_path, "tone.wav", sig.tone(1000, 0.3, 44100), 44100)
    try:
        done = subprocess.run(
            [sys.executable, "-c", IDLE_THEN_AGAIN, str(clip)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout.splitlines()[-1])
        assert report["available"][0] is True
        assert report["kept_while_a_clip_is_loaded"]
        assert report["gone_once_idle"]
        assert report["reason"] is None and report["restarted"]
        assert report["played_to_the_end"] == [False, pytest.approx(0.3)]
        assert report["gone_after_quitting"]
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)


def test_without_pulseaudio_the_message_says_what_to_install(tmp_path: Path) -> None:
    env = private_env(tmp_path)
    env["PATH"] = str(tmp_path / "empty-bin")  # neither pactl nor pulseaudio on the PATH
    server = ensure_sound_server(env)
    assert not server.running and not server.started
    assert "PulseAudio is not installed" in server.message
    assert "apt-get install pulseaudio" in server.message


def test_starting_can_be_switched_off(tmp_path: Path) -> None:
    env = private_env(tmp_path)
    env[NO_START_ENV] = "1"
    server = ensure_sound_server(env)
    assert not server.running
    assert NO_START_ENV in server.message and "pulseaudio --start" in server.message
    assert not (tmp_path / "runtime" / "pulse" / "pid").exists()


def test_portaudio_error_is_put_in_words() -> None:
    server = SoundServer(False, False, "starting a sound server is switched off")
    text = explain_no_device("Error querying device -1", server)
    assert "-1" not in text
    assert text.startswith("no audio output device: neither a sound card nor a sound server")
    assert text.endswith("starting a sound server is switched off")


def test_the_player_says_in_words_why_it_cannot_play(tmp_path: Path) -> None:
    # In a fresh process with a private runtime folder: no sound server of this machine (nor
    # the tests' own) is seen, and the one it may not start is not started.
    env = private_env(tmp_path)
    env[NO_START_ENV] = "1"
    probe = (
        "import json\nfrom bagel_studio.core.audio import Player\n"
        "print(json.dumps(Player.available()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    ok, reason = json.loads(done.stdout.strip().splitlines()[-1])
    if ok:
        pytest.skip(f"this machine has a sound card ({reason})")
    assert reason.startswith("no audio output device: ")
    assert "querying device -1" not in reason
    assert "pulseaudio --start" in reason or "PortAudio is not installed" in reason
    assert not (tmp_path / "runtime" / "pulse" / "pid").exists()
