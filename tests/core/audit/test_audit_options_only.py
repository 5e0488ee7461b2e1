"""The options-only baseline through the evaluation runner, against the scripted
OpenAI-compatible server on 127.0.0.1: the paper's prompt without its question, stored apart
from full answers, reported per model and domain beside the full prompt, and the items every
reference model answers from the options alone flagged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.importers import import_paths
from bagel_studio.core.llm.templates import evaluation_template, options_only_template
from bagel_studio.core.store import Store
from tests.core.audit.planted import planted_items
from tests.support.llm_server import ScriptedServer

PARTICIPANT = [f"globi:participant:{n}" for n in range(40)]
CLEAN = [f"wikipedia:{n}" for n in range(40)]


def longest_is_gold(item: dict[str, object]) -> bool:
    """What the scripted ``longest`` persona gets right: the first longest option is the gold."""
    options = [str(o) for o in item["options"]]
    pick = max(range(4), key=lambda i: (len(options[i]), -i))
    return "ABCD"[pick] == item["answer"]


CLEAN_LONGEST = [i["id"] for i in planted_items() if i["id"] in CLEAN and longest_is_gold(i)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    wanted = set(PARTICIPANT) | set(CLEAN)
    source = tmp_path / "items.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for item in planted_items():
            if item["id"] in wanted:
                handle.write(json.dumps(item) + "\n")
    path = tmp_path / "options.bagel"
    with Store.open(path) as store:
        import_paths(store, [source])
    return path


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as scripted:
        yield scripted


def evaluate(path: Path, server: ScriptedServer, model: str, label: str, *extra: str) -> None:
    args = ["evaluate", str(path), "--model", model, "--label", label, "--base-url", server.url]
    assert run([*args, *extra]) == 0


def test_the_options_only_prompt_is_the_papers_without_the_question() -> None:
    full, alone = evaluation_template(), options_only_template()
    assert "Question: {question}" in full and "{question}" not in alone
    assert alone == full.replace("Question: {question}\n", "")


def test_options_only_accuracy_beside_the_full_prompt_and_the_flag(
    project: Path, server: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    evaluate(project, server, "longest", "shortcut-a", "--options-only")
    evaluate(project, server, "longest+second", "shortcut-b", "--options-only")
    evaluate(project, server, "longest", "shortcut-a")  # the full prompt, same profile
    prompts = [b["messages"][-1]["content"] for b in server.bodies if "messages" in b]
    assert sum("Question:" not in p for p in prompts) == 160
    assert sum("Question:" in p for p in prompts) == 80
    capsys.readouterr()

    assert run(["audit", str(project), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["options_only"]
    a = data["models"]["shortcut-a"]
    assert (a["GloBI"]["accuracy"], a["GloBI"]["n"], a["GloBI"]["full_accuracy"]) == (1.0, 40, 1.0)
    assert a["GloBI"]["p_value"] < 1e-20
    assert 0 < len(CLEAN_LONGEST) < 20
    assert a["Wikipedia"]["accuracy"] == len(CLEAN_LONGEST) / 40 and a["Wikipedia"]["n"] == 40
    assert data["models"]["shortcut-b"]["Wikipedia"]["full_n"] == 0  # never asked in full
    assert sorted(data["answerable_without_stem"]) == sorted(PARTICIPANT + CLEAN_LONGEST)

    with Store.open(project, read_only=True) as store:
        flag = next(
            f for f in store.flags.of_item(PARTICIPANT[0]) if f.check == "answerable-without-stem"
        )
        assert flag.details == {"models": ["shortcut-a", "shortcut-b"]}
        gold = next(i for i in planted_items() if i["id"] == PARTICIPANT[0])
        letter = str(gold["answer"])
        text = gold["options"]["ABCD".index(letter)]  # type: ignore[index]
        assert f"picked the gold {letter} {text!r} from the options alone" in flag.message
        assert not [
            f for f in store.flags.of_item(CLEAN[0]) if f.check == "answerable-without-stem"
        ]
        # Options-only answers are not closed-book answers: shortcut-b, asked only without the
        # question, is no second model agreeing on a wrong key.
        assert "models-reject-gold" not in store.flags.counts()

    assert run(["audit", str(project)]) == 0
    out = capsys.readouterr().out
    assert f"shortcut-a: Wikipedia {len(CLEAN_LONGEST) / 40:.1%} (n = 40" in out
    assert "GloBI 100.0% (n = 40, p = 8.3e-25; full 100.0%)" in out
    assert f"every model: {40 + len(CLEAN_LONGEST)} items" in out


def test_an_edited_item_loses_its_stale_answers(project: Path, server: ScriptedServer) -> None:
    evaluate(project, server, "longest", "shortcut-a", "--options-only")
    with Store.open(project) as store:
        item = store.items.get(PARTICIPANT[0])
        options = list(item.content.options)
        options[(item.content.answer_index or 0) - 1] += " and a much longer distractor text"
        operations.edit(store, PARTICIPANT[0], "ana", item.content.with_changes(options=options))
    assert run(["audit", str(project), "--json"]) == 0
    with Store.open(project, read_only=True) as store:
        assert "answerable-without-stem" not in {
            f.check for f in store.flags.of_item(PARTICIPANT[0])
        }
        assert "answerable-without-stem" in {f.check for f in store.flags.of_item(PARTICIPANT[1])}
