"""The second-opinion judge, regeneration from evidence, and the Batch API round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

SUMMARY = "Bombus terrestris (Apidae) visits flowers of Trifolium pratense in Kent, 2019."


@pytest.fixture
def evidence_project(llm_project: Path) -> Path:
    with Store.open(llm_project) as store:
        store.items.add_items(
            [
                NewItem(
                    id="globi:9",
                    domain="GloBI",
                    content=ItemContent(
                        "Which taxon visits Trifolium pratense in Kent?",
                        ("Bombus terrestris", "Canis lupus", "Salmo trutta", "Apis mellifera"),
                        0,
                        "Masked participant identification",
                    ),
                    source={"summary": SUMMARY},
                    supporting_evidence=("visits flowers of Trifolium pratense",),
                )
            ],
            None,
        )
    return llm_project


def test_judge_stores_verdicts_as_suggestions(
    evidence_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = scripted.url
    assert run(["judge", str(evidence_project), "globi:9", "wiki:1", "--model", "gold",
                "--base-url", url, "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["verdicts"] == {"ok": 2}
    prompt = scripted.bodies[-1]["messages"][0]["content"]
    assert "Keyed answer:" in prompt
    judged = [b["messages"][0]["content"] for b in scripted.bodies]
    assert any(SUMMARY in p and "Supporting spans" in p for p in judged)
    assert run(["judge", str(evidence_project), "globi:9", "--model", "same-wrong",
                "--base-url", url, "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["disagree"] == ["globi:9"]
    with Store.open(evidence_project, read_only=True) as store:
        verdicts = store.llm.verdicts_for_item("globi:9")
        assert [v["verdict"] for v in verdicts] == ["wrong_gold", "ok"]
        assert verdicts[0]["key_index"] == 1 and verdicts[0]["model"] == "same-wrong"
        assert verdicts[0]["reason"] and verdicts[0]["asked_at"]
        assert store.items.get("globi:9").status == "unreviewed"  # a verdict never decides
        flag = next(f for f in store.flags.of_item("globi:9") if f.check == "judge-disagrees")
        assert "same-wrong" in flag.message and "wrong_gold, would key B" in flag.message
        assert "judge-disagrees" not in {f.check for f in store.flags.of_item("wiki:1")}
    assert run(["judge", str(evidence_project), "wiki:1", "--model", "rambling",
                "--base-url", url]) == 1  # fmt: skip
    assert run(["judge", str(evidence_project), "nope", "--model", "gold"]) == 2


def test_regenerate_creates_a_linked_checked_item_or_a_rejection(
    evidence_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = scripted.url
    assert run(["regenerate", str(evidence_project), "globi:9", "--model", "generator",
                "--base-url", url, "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == {"globi:9": "globi:9~regen1"}
    messages = scripted.bodies[-1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"].endswith(f"SOURCE CONTEXT:\n{SUMMARY}")
    with Store.open(evidence_project, read_only=True) as store:
        new = store.items.get("globi:9~regen1")
        assert new.status == "unreviewed" and new.content.answer_index == 1
        assert new.content.dimension == "Masked participant identification"
        assert new.supporting_evidence and new.rationale
        link = store.llm.regenerations("globi:9")[0]
        assert link["regenerated_from"] == "globi:9" and link["outcome"] == "created"
        assert store.flags.of_item("globi:9~regen1") is not None
    # A generator rejection is stored with its reason; an item without evidence is named.
    assert run(["regenerate", str(evidence_project), "globi:9", "wiki:1", "--model", "reject",
                "--base-url", url, "--json"]) == 1  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["outcomes"] == {"wiki:1": "no-evidence", "globi:9": "generator-rejection"}
    assert out["reasons"]["globi:9"] == "too_sparse"
    with Store.open(evidence_project, read_only=True) as store:
        assert store.imports.generator_rejection_counts()["GloBI"] == {"too_sparse": 1}
    assert run(["regenerate", str(evidence_project), "globi:9", "--model", "rambling",
                "--base-url", url]) == 1  # fmt: skip


def test_batch_export_then_import_is_exactly_evaluate(
    llm_project: Path, scripted: ScriptedServer, tmp_path: Path
) -> None:
    requests = tmp_path / "batch.jsonl"
    assert run(["batch-export", str(llm_project), str(requests), "--model", "always-C",
                "--base-url", scripted.url]) == 0  # fmt: skip
    lines = [json.loads(line) for line in requests.read_text().splitlines()]
    assert len(lines) == len(ITEMS)
    assert {tuple(sorted(line)) for line in lines} == {("body", "custom_id", "method", "url")}
    assert lines[0]["url"] == "/v1/chat/completions" and lines[0]["body"]["temperature"] == 0.0
    # Run the batch against the server as a batch runner would, in both response shapes.
    import urllib.request

    outputs = []
    for number, line in enumerate(lines):
        request = urllib.request.Request(
            scripted.url.removesuffix("/v1") + line["url"],
            data=json.dumps(line["body"]).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            body = json.loads(response.read())
        if number == 0:
            outputs.append({"custom_id": line["custom_id"], "response": None,
                            "error": {"code": "500", "message": "server overloaded"}})  # fmt: skip
        elif number % 2:
            response = {"status_code": 200, "body": body}
            outputs.append({"id": f"r{number}", "custom_id": line["custom_id"],
                            "response": response, "error": None})  # fmt: skip
        else:
            outputs.append({"custom_id": line["custom_id"], "response": body})
    outputs.reverse()  # joined on custom_id, not on order
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(json.dumps(o) for o in outputs) + "\nnot json\n")
    assert run(["batch-import", str(llm_project), str(results), "--model", "always-C"]) == 1
    with Store.open(llm_project, read_only=True) as store:
        stored = {a["item_id"]: a for a in store.llm.all_answers("always-C")}
    assert len(stored) == len(ITEMS)
    failed = [a for a in stored.values() if a["parse"] == "failed"]
    assert len(failed) == 1 and "server overloaded" in failed[0]["error"]
    ok = [a for a in stored.values() if a["parse"] != "failed"]
    assert {a["letter"] for a in ok} == {"C"} and {a["origin"] for a in ok} == {"batch"}
    # The failed one is all a new batch (or evaluate) asks for.
    again = tmp_path / "again.jsonl"
    assert run(["batch-export", str(llm_project), str(again), "--model", "always-C"]) == 0
    assert len(again.read_text().splitlines()) == 1
    before = scripted.total()
    assert run(["evaluate", str(llm_project), "--model", "always-C"]) == 0
    assert scripted.total() - before == 2  # the endpoint check and the one failed item


def test_batch_import_of_a_missing_file_is_a_usage_error(llm_project: Path, tmp_path: Path) -> None:
    missing = str(tmp_path / "none.jsonl")
    assert run(["batch-import", str(llm_project), missing, "--model", "x"]) == 2


def test_judge_says_what_failed(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run(["judge", str(llm_project), "wiki:1", "globi:1", "--model", "rambling",
                  "--base-url", scripted.url])  # fmt: skip
    assert status == 1
    captured = capsys.readouterr()
    assert "rambling: 2 asked, 0 verdicts (none), 2 unreadable or failed" in captured.out
    assert "failed: wiki:1: the reply holds no JSON object" in captured.err


def test_batch_export_says_what_it_left_out(
    llm_project: Path, scripted: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                "--items", "wiki:1", "wiki:2"]) == 0  # fmt: skip
    capsys.readouterr()
    out = tmp_path / "batch.jsonl"
    assert run(["batch-export", str(llm_project), str(out), "--model", "gold"]) == 0
    captured = capsys.readouterr()
    assert f"{len(ITEMS) - 2} requests for gold" in captured.out
    assert f"2 of {len(ITEMS)} items are answered already by gold" in captured.err
    assert len(out.read_text().splitlines()) == len(ITEMS) - 2
