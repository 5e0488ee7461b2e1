"""A batch file is valid for the runner it names (``--target``): OpenAI's Batch API takes chat and
plain completions, vLLM's run-batch chat (with embeddings, score and rerank) but not
``/v1/completions``; neither takes llama.cpp's ``grammar``, so a profile that asks with it is
refused rather than written as something else. ``batch-import`` of a file with a repeated
``custom_id`` names the repeats and counts what it stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.llm.batch import custom_id
from bagel_studio.core.llm.evaluate import questions
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

VLLM_URLS = {"/v1/chat/completions", "/v1/embeddings", "/v1/score", "/v1/rerank"}
OPENAI_URLS = {"/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/responses"}


def export(project: Path, out: Path, *options: str) -> int:
    return run(["batch-export", str(project), str(out), *options])


@pytest.mark.parametrize("api_style", ["chat", "completions"])
def test_openai_takes_both_styles_without_a_grammar(
    api_style: str, llm_project: Path, scripted: ScriptedServer, tmp_path: Path
) -> None:
    out = tmp_path / "openai.jsonl"
    assert export(llm_project, out, "--model", "gold", "--base-url", scripted.url,
                  "--api-style", api_style, "--target", "openai") == 0  # fmt: skip
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == len(ITEMS) and {line["url"] for line in lines} <= OPENAI_URLS
    assert all("grammar" not in line["body"] for line in lines)


def test_vllm_takes_chat_and_refuses_plain_completions(
    llm_project: Path, scripted: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "vllm.jsonl"
    assert export(llm_project, out, "--model", "gold", "--base-url", scripted.url,
                  "--target", "vllm") == 0  # fmt: skip
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert {line["url"] for line in lines} <= VLLM_URLS
    assert "for vllm run-batch" in capsys.readouterr().out
    base = tmp_path / "base.jsonl"
    assert export(llm_project, base, "--model", "base", "--base-url", scripted.url,
                  "--api-style", "completions", "--target", "vllm") == 2  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "vllm run-batch takes no /v1/completions" in err[0], err
    assert not base.exists()


@pytest.mark.parametrize("target", ["openai", "vllm"])
def test_a_grammar_profile_is_refused_for_either_target(
    target: str,
    llm_project: Path,
    scripted: ScriptedServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "grammar.jsonl"
    assert export(llm_project, out, "--model", "gold", "--base-url", scripted.url, "--grammar",
                  "--target", target) == 2  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "takes no llama.cpp grammar" in err[0], err
    assert not out.exists()


def test_the_default_target_is_named(
    llm_project: Path, scripted: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "default.jsonl"
    assert export(llm_project, out, "--model", "gold", "--base-url", scripted.url) == 0
    assert "for OpenAI's Batch API (--target vllm" in capsys.readouterr().out


def answer_line(question_id: str, letter: str) -> str:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": letter}}]}
    return json.dumps({"custom_id": question_id, "response": {"status_code": 200, "body": body}})


def test_a_repeated_custom_id_is_reported_and_counted_once(
    llm_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(llm_project, read_only=True) as store:
        ids = [custom_id(q) for q in questions(store)]
    lines = [answer_line(i, "A") for i in ids]
    lines.insert(3, answer_line(ids[1], "B"))  # line 4 repeats line 2, with another answer
    lines.append(answer_line(ids[0], "A"))  # line 8 repeats line 1
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(lines) + "\n")
    status = run(["batch-import", str(llm_project), str(results), "--model", "gold"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert f"gold: {len(ITEMS)} answers stored (strict {len(ITEMS)}) from 8 lines" in out
    assert f"{results}:4: custom_id repeats line 2 (the first is kept)" in out
    assert f"{results}:8: custom_id repeats line 1 (the first is kept)" in out
    with Store.open(llm_project, read_only=True) as store:
        stored = {a["item_id"]: a for a in store.llm.all_answers("gold")}
    assert len(stored) == len(ITEMS) and stored["wiki:2"]["letter"] == "A"
    # Again: nothing new is stored, and it says so.
    assert run(["batch-import", str(llm_project), str(results), "--model", "gold",
                "--json"]) == 1  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert (result["stored"], result["answered_before"]) == (0, len(ITEMS))
    assert [r["line"] for r in result["repeated"]] == [4, 8]
