"""A judge's or a generator's request fits the model's context: the evidence (only it) is cut to
fit, keeping the parts about the question, and the stored record says by how much. The context
comes from the profile (--context-tokens), llama.cpp's /props, or, last, the error a request met.
The real openai client against the scripted server on 127.0.0.1, playing each kind of server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.llm.desk import model_choice_lines
from bagel_studio.core.llm.evidence import generation_values
from bagel_studio.core.llm.fit import GAP, shorten
from bagel_studio.core.llm.templates import generation_messages
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from tests.support.llm_server import ScriptedServer, tokens

pytestmark = pytest.mark.timeout(120)
DATA = Path(__file__).resolve().parents[3] / "resources" / "data" / "wikipedia"
KOALA = (DATA / "Koala.txt").read_text(encoding="utf-8")
SLEEP = "Their low-energy diet limits their activity and they sleep 20 hours a day."
QUESTION = "How many hours a day does the koala sleep?"
OPTIONS = ("About 4 hours", "About 8 hours", "About 12 hours", "About 20 hours")


@pytest.fixture
def koala_project(tmp_path: Path) -> Path:
    path = tmp_path / "koala.bagel"
    with Store.open(path, owner="test") as store:
        store.evidence.add_texts([{"key": "wikipedia:Koala", "kind": "wikipedia", "title": "Koala",
                          "scientific_name": "Phascolarctos cinereus", "text": KOALA,
                          "truncated": 0, "source_file": "Koala.txt"}], None)  # fmt: skip
        items = [
            NewItem(id, "Wikipedia", ItemContent(question, OPTIONS, 3, "Behavior"),
                    text_key="title:Koala")
            for id, question in (("wiki:koala:0", QUESTION),
                                 ("wiki:koala:1", "How long does a koala sleep each day?"))
        ]  # fmt: skip
        store.items.add_items(items, None)
    return path


def verdicts(path: Path) -> dict[str, dict[str, object]]:
    with Store.open(path, read_only=True) as store:
        rows = store.db.execute("SELECT * FROM llm_verdicts ORDER BY id").fetchall()
        columns = [c[0] for c in store.db.execute("SELECT * FROM llm_verdicts").description]
    return {str(row[1]): dict(zip(columns, row, strict=True)) for row in rows}


def sent_evidence(prompt: str) -> str:
    return prompt.split("Evidence:\n", 1)[1]


def judge(path: Path, url: str, *extra: str) -> tuple[int, dict[str, object]]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run(["judge", str(path), "--model", "gold", "--base-url", url, "--json", *extra])
    return status, json.loads(out.getvalue())


def test_llama_cpp_props_give_the_context_and_the_evidence_is_cut_before_asking(
    koala_project: Path, scripted: ScriptedServer
) -> None:
    scripted.context, scripted.props, scripted.tokenize = 2048, True, True
    status, summary = judge(koala_project, scripted.url)
    assert status == 0 and summary["verdicts"] == {"ok": 2}
    assert scripted.requests["/v1/chat/completions"] == 2  # no request was refused
    assert scripted.requests["/tokenize"] > 0  # counted by the server's own tokenizer
    for prompt in scripted.prompts:
        assert tokens(prompt) < 2048 - 300 // 2  # the reply keeps its room
        evidence = sent_evidence(prompt)
        assert evidence.startswith("Koala\nThe koala (Phascolarctos cinereus)")  # the lead
        assert SLEEP in evidence  # the paragraph the question is about
        assert f"\n{GAP}\n" in evidence
    stored = verdicts(koala_project)["wiki:koala:0"]
    assert stored["evidence_total_chars"] == len(KOALA)
    assert 1000 < int(stored["evidence_chars"]) < 12_000  # type: ignore[call-overload]
    note = str(stored["evidence_note"])
    share = round(100 * int(stored["evidence_chars"]) / len(KOALA))  # type: ignore[call-overload]
    assert note.startswith(f"evidence shortened to {stored['evidence_chars']:,} of {len(KOALA):,}")
    assert f"({share}%) to fit the model's context of 2,048 tokens (the server's /props)" in note
    assert summary["shortened"]["wiki:koala:0"] == note  # type: ignore[index]
    # The desk shows the verdict with how much of the evidence the judge saw.
    with Store.open(koala_project, read_only=True) as store:
        lines = model_choice_lines(store, store.items.get("wiki:koala:0"))
    seen = (
        f"(saw {stored['evidence_chars']:,} of the evidence's {len(KOALA):,} characters, {share}%)"
    )
    assert any(line.startswith("Judge gold") and line.endswith(seen) for line in lines)


def test_an_openai_style_server_takes_the_context_from_the_option(
    koala_project: Path, scripted: ScriptedServer
) -> None:
    scripted.context = 4096
    status, _ = judge(koala_project, scripted.url, "--context-tokens", "4096")
    assert status == 0 and scripted.requests["/v1/chat/completions"] == 2
    assert all(tokens(p) < 4096 for p in scripted.prompts)
    note = str(verdicts(koala_project)["wiki:koala:1"]["evidence_note"])
    assert "to fit the model's context of 4,096 tokens (the profile's context tokens)" in note
    with Store.open(koala_project, read_only=True) as store:  # kept in the profile
        profile = dict(store.llm.profile_rows())["gold"]
    assert profile["context_tokens"] == 4096


@pytest.mark.parametrize("style", ["openai", "llama.cpp"])
def test_a_context_error_is_answered_by_one_request_cut_to_fit(
    koala_project: Path, scripted: ScriptedServer, style: str
) -> None:
    scripted.context, scripted.context_style = 2048, style
    status, summary = judge(koala_project, scripted.url, "--concurrency", "1")
    assert status == 0 and summary["verdicts"] == {"ok": 2}
    # The first item's whole evidence was refused, then sent cut; the second, cut at once.
    assert scripted.requests["/v1/chat/completions"] == 3
    assert tokens(scripted.prompts[0]) > 2048 > tokens(scripted.prompts[1])
    assert SLEEP in sent_evidence(scripted.prompts[1])
    first, second = verdicts(koala_project).values()
    assert first["error"] is None and first["verdict"] == "ok"
    assert "context of 2,048 tokens (the server's error message" in str(first["evidence_note"])
    assert "(the server's error message)" in str(second["evidence_note"])


def test_a_server_that_names_no_size_gets_the_evidence_halved_once(
    koala_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.context, scripted.context_style = 2000, "bare"
    status = run(["judge", str(koala_project), "wiki:koala:0", "--model", "gold", "--base-url",
                  scripted.url, "--concurrency", "1"])  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out  # printed too
    assert "  wiki:koala:0: evidence shortened to " in out and "error message" in out
    assert scripted.requests["/v1/chat/completions"] == 2
    assert tokens(scripted.prompts[1]) < tokens(scripted.prompts[0]) / 2 + 300
    stored = verdicts(koala_project)["wiki:koala:0"]
    assert stored["verdict"] == "ok" and stored["evidence_note"]


def test_without_a_context_the_judge_keeps_its_cap_and_says_so(
    koala_project: Path, scripted: ScriptedServer
) -> None:
    status, _ = judge(koala_project, scripted.url, "wiki:koala:0")
    assert status == 0
    stored = verdicts(koala_project)["wiki:koala:0"]
    assert int(stored["evidence_chars"]) <= 12_000  # type: ignore[call-overload]
    assert "to the judge's cap of 12,000 characters" in str(stored["evidence_note"])
    assert SLEEP in sent_evidence(scripted.prompts[0])


def test_a_short_evidence_is_sent_whole_and_recorded_so(
    koala_project: Path, scripted: ScriptedServer
) -> None:
    with Store.open(koala_project) as store:
        content = ItemContent("Which taxon visits Trifolium?", ("A b", "C d", "E f", "G h"), 0,
                              "Masked participant identification")  # fmt: skip
        summary = {"summary": "Bombus terrestris visits flowers of Trifolium pratense."}
        store.items.add_items([NewItem("globi:9", "GloBI", content, source=summary)], None)
    scripted.context, scripted.props = 2048, True
    status, out = judge(koala_project, scripted.url, "globi:9")
    assert status == 0 and out["shortened"] == {}
    stored = verdicts(koala_project)["globi:9"]
    assert stored["evidence_note"] is None and stored["evidence_chars"] == 0


def test_regenerate_sends_the_papers_prompt_verbatim_around_the_cut_text(
    koala_project: Path, scripted: ScriptedServer
) -> None:
    with Store.open(koala_project) as store:
        item = store.items.get("wiki:koala:0")
        values = generation_values(store, item)
    assert values is not None
    whole = generation_messages("Wikipedia", values)
    before, after = whole[1]["content"].split(KOALA.strip(), 1)
    scripted.context, scripted.props = 4096, True
    status = run(["regenerate", str(koala_project), "wiki:koala:0", "--model", "generator",
                  "--base-url", scripted.url, "--json"])  # fmt: skip
    assert status == 0
    messages = scripted.bodies[-1]["messages"]
    assert messages[0] == whole[0]  # the system prompt as printed
    user = messages[1]["content"]
    assert user.startswith(before) and user.endswith(after)  # only the text differs
    sent = user[len(before) : len(user) - len(after)]
    assert SLEEP in sent and GAP in sent and len(sent) < len(KOALA)
    with Store.open(koala_project, read_only=True) as store:
        record = store.llm.regenerations("wiki:koala:0")[0]
    assert record["outcome"] == "created" and record["evidence_chars"] == len(sent)
    assert "context of 4,096 tokens (the server's /props)" in str(record["evidence_note"])


def test_shorten_keeps_the_lead_and_the_parts_about_the_question() -> None:
    cut = shorten(KOALA, QUESTION + " " + " ".join(OPTIONS), 3000)
    assert len(cut) <= 3000
    lines = cut.split("\n")
    assert lines[0].startswith("The koala (Phascolarctos cinereus)")
    assert any(SLEEP in line for line in lines)
    assert all(line == GAP or line in KOALA for line in lines)  # whole lines of the text, in order
    kept = [KOALA.index(line) for line in lines if line != GAP]
    assert kept == sorted(kept)
    assert shorten("short", "anything", 100) == "short"


def test_a_server_silent_beside_its_openai_routes_is_not_asked_again(
    koala_project: Path, scripted: ScriptedServer
) -> None:
    # /props hangs: the probe gives up within the timeout and asks nothing more beside the
    # completions (no tokenizer), which still answer; the judge's cap still holds.
    scripted.props, scripted.props_delay, scripted.tokenize = True, 5.0, True
    status, _ = judge(koala_project, scripted.url, "--timeout", "0.5", "wiki:koala:0")
    assert status == 0
    assert scripted.requests["/props"] == 1 and scripted.requests["/tokenize"] == 0
    assert "/extras/tokenize/count" not in scripted.requests
    assert "judge's cap" in str(verdicts(koala_project)["wiki:koala:0"]["evidence_note"])
