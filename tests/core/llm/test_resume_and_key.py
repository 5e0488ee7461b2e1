"""An evaluation killed with SIGKILL resumes without losing or re-asking an answer; the API key
never reaches the project, the preferences, the output or the stored errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS, gold_map
from tests.support.llm_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[3]
SECRET = "sk-test-DO-NOT-LEAK-4242"


@pytest.mark.slow
def test_sigkill_during_evaluation_then_resume(llm_project: Path) -> None:
    with ScriptedServer(gold_map()) as server:
        # The last item's request hangs for as long as this test may poll: the run cannot
        # finish before the kill, however slowly the test runs on a busy machine.
        server.fail_next("slow", question="goldcrest", seconds=60)
        command = [sys.executable, "-m", "bagel_studio", "evaluate", str(llm_project),
                   "--model", "gold+delay=0.3", "--label", "gold", "--base-url", server.url,
                   "--concurrency", "1"]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(command, env=env, cwd=ROOT)
        deadline = time.monotonic() + 60
        stored_at_kill = 0
        while time.monotonic() < deadline:
            with Store.open(llm_project, read_only=True) as store:
                stored_at_kill = store.llm.answer_count("gold")
            if stored_at_kill >= 2:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        server.clear_faults()  # the resumed run is not held up
        assert process.returncode == -signal.SIGKILL
        with Store.open(llm_project, read_only=True) as store:
            before = {a["item_id"]: a for a in store.llm.all_answers("gold")}
        assert 2 <= len(before) < len(ITEMS), "the kill must land in the middle of the run"
        asked_before = dict(server.asked)

        result = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                                timeout=120)  # fmt: skip
        assert result.returncode == 0, result.stderr
        with Store.open(llm_project, read_only=True) as store:
            after = {a["item_id"]: a for a in store.llm.all_answers("gold")}
    assert len(after) == len(ITEMS)
    for item_id, answer in before.items():  # nothing stored was lost or changed
        assert after[item_id] == answer
    questions = {item_id: question for item_id, _, _, question, _, _ in ITEMS}
    for item_id, question in questions.items():
        again = server.asked[("gold+delay=0.3", question)] - asked_before.get(
            ("gold+delay=0.3", question), 0
        )
        if item_id in before:
            assert again == 0, f"{item_id} was answered before the kill and asked again"
        else:
            assert again == 1


def test_the_key_never_leaks(
    llm_project: Path,
    scripted: ScriptedServer,
    isolated_config: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MY_LLM_KEY", SECRET)
    scripted.fail_next("echo-auth", times=3, question="barn owl")  # its error quotes the header
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "--api-key-env", "MY_LLM_KEY", "--retries", "2"])  # fmt: skip
    assert status == 1
    assert f"Bearer {SECRET}" in scripted.authorizations  # the key was sent...
    output = capsys.readouterr()
    assert SECRET not in output.out + output.err  # ...and is nowhere else
    with Store.open(llm_project, read_only=True) as store:
        failed = [a for a in store.llm.all_answers("gold") if a["parse"] == "failed"]
        assert failed and "[key hidden]" in failed[0]["error"]
        profile = dict(store.llm.profile_rows())["gold"]
        assert profile["api_key_env"] == "MY_LLM_KEY"
    for path in [*llm_project.parent.glob("llm.bagel*"), *isolated_config.rglob("*")]:
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
