"""A key that cannot be sent (a carriage return from a Windows file, a line feed, a tab, a
character outside ASCII) is refused before anything is sent, by every command that takes one,
with one line naming its variable and what is wrong; the key itself, whole or in parts, is in no
message, traceback or file. Real servers on 127.0.0.1 through the real openai client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.llm.client import EndpointError, LLMClient
from bagel_studio.core.llm.profiles import Profile
from bagel_studio.core.model import Decision
from bagel_studio.core.operations.reviews import decide
from bagel_studio.core.store import Store
from tests.support.llm_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[3]
BODY = "sk-HOSTILE-7f3a9c"  # what must never be shown, with any of these around or inside it
HOSTILE = {
    "carriage return": (BODY + "\r", "a carriage return"),
    "line feed": (BODY[:8] + "\n" + BODY[8:], "a line feed"),
    "tab": (BODY + "\t", "a tab"),
    "non-ASCII": (BODY[:8] + "é" + BODY[8:], "a character outside ASCII"),
    "space": (" " + BODY, "a space"),
}


def leaked(text: str) -> bool:
    return any(part in text for part in (BODY, BODY[:8], BODY[8:], repr(BODY)[1:-1]))


def commands(project: Path, url: str) -> dict[str, list[str]]:
    ask = ["--model", "gold", "--base-url", url, "--api-key-env", "HOSTILE_KEY"]
    return {
        "evaluate": ["evaluate", str(project), *ask],
        "judge": ["judge", str(project), "wiki:1", *ask],
        "regenerate": ["regenerate", str(project), "wiki:2", *ask],
    }


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_key_that_cannot_be_sent_is_refused_without_being_shown(
    kind: str,
    llm_project: Path,
    scripted: ScriptedServer,
    isolated_config: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key, words = HOSTILE[kind]
    with Store.open(llm_project) as store:
        decide(store, "wiki:2", "ana", Decision.REJECT, reason="wrong gold")
    monkeypatch.setenv("HOSTILE_KEY", key)
    for name, argv in commands(llm_project, scripted.url).items():
        assert run(argv) == 2, name
        output = capsys.readouterr()
        assert not leaked(output.out + output.err), (name, output)
        lines = output.err.strip().splitlines()
        assert len(lines) == 1 and "$HOSTILE_KEY" in lines[0] and words in lines[0], (name, lines)
        assert "nothing was sent" in lines[0]
    assert scripted.total() == 0  # refused before any request, even the model listing
    for path in [*llm_project.parent.iterdir(), *isolated_config.rglob("*")]:
        if path.is_file():
            assert BODY[8:].encode() not in path.read_bytes(), path


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_stored_profile_with_a_hostile_key_is_refused_without_being_shown(
    kind: str,
    llm_project: Path,
    scripted: ScriptedServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The profile was saved while its variable held a good key; the variable changes (a key
    pasted from a Windows file): every command that asks with the stored profile (no --base-url)
    refuses it the same way."""
    monkeypatch.setenv("HOSTILE_KEY", "sk-good")
    assert run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                "--api-key-env", "HOSTILE_KEY", "--items", "wiki:1"]) == 0  # fmt: skip
    with Store.open(llm_project) as store:
        decide(store, "wiki:2", "ana", Decision.REJECT, reason="wrong gold")
    sent = scripted.total()
    capsys.readouterr()
    key, words = HOSTILE[kind]
    monkeypatch.setenv("HOSTILE_KEY", key)
    for argv in (
        ["evaluate", str(llm_project), "--model", "gold"],
        ["judge", str(llm_project), "wiki:1", "--model", "gold"],
        ["regenerate", str(llm_project), "wiki:2", "--model", "gold"],
    ):
        assert run(argv) == 2, argv
        output = capsys.readouterr()
        assert not leaked(output.out + output.err), (argv, output)
        lines = output.err.strip().splitlines()
        assert len(lines) == 1 and "$HOSTILE_KEY" in lines[0] and words in lines[0], (argv, lines)
    assert scripted.total() == sent


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_commands_that_send_nothing_show_nothing_of_a_hostile_key(
    kind: str,
    llm_project: Path,
    scripted: ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for label in ("gold", "always-A"):
        assert run(["evaluate", str(llm_project), "--model", label, "--base-url", scripted.url,
                    "--api-key-env", "HOSTILE_KEY"]) == 0  # fmt: skip
    monkeypatch.setenv("HOSTILE_KEY", HOSTILE[kind][0])
    batch = tmp_path / "batch.jsonl"
    results = tmp_path / "results.jsonl"
    results.write_text("", encoding="utf-8")
    for argv in (
        ["levels", str(llm_project), "--models", "gold", "always-A"],
        ["stats", str(llm_project)],
        ["batch-export", str(llm_project), str(batch), "--model", "gold+x", "--base-url",
         scripted.url, "--api-key-env", "HOSTILE_KEY"],
        ["batch-import", str(llm_project), str(results), "--model", "gold", "--api-key-env",
         "HOSTILE_KEY"],
    ):  # fmt: skip
        assert run(argv) in (0, 1), argv
        output = capsys.readouterr()
        assert not leaked(output.out + output.err), (argv, output)
    assert not leaked(batch.read_text(encoding="utf-8"))


def test_the_client_refuses_the_key_before_it_is_made(
    scripted: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOSTILE_KEY", HOSTILE["non-ASCII"][0])
    profile = Profile("gold", "gold", scripted.url, api_key_env="HOSTILE_KEY")
    assert profile.key_state() == "unusable: a character outside ASCII at character 9 of 18"
    with pytest.raises(EndpointError) as refused:
        LLMClient(profile)
    assert not leaked(str(refused.value))
    assert scripted.total() == 0


def test_no_traceback_from_a_key_outside_ascii(llm_project: Path) -> None:
    with ScriptedServer() as server:
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOSTILE_KEY": BODY + "é"}
        result = subprocess.run(
            [sys.executable, "-m", "bagel_studio", "evaluate", str(llm_project), "--model",
             "gold", "--base-url", server.url, "--api-key-env", "HOSTILE_KEY"],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not leaked(result.stdout + result.stderr)


def test_the_client_debug_log_never_holds_the_key(llm_project: Path) -> None:
    """A usable key, with the openai client's own log at its most talkative (``OPENAI_LOG=debug``,
    which a curator sets to see what is sent): the requests are logged, the key is not."""
    with ScriptedServer() as server:
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "GOOD_KEY": BODY,
               "OPENAI_LOG": "debug"}  # fmt: skip
        result = subprocess.run(
            [sys.executable, "-m", "bagel_studio", "evaluate", str(llm_project), "--model",
             "gold", "--base-url", server.url, "--api-key-env", "GOOD_KEY", "--retries", "0"],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Sending HTTP Request: POST" in result.stderr  # the log is on
    assert not leaked(result.stdout + result.stderr)
